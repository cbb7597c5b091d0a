package main

import (
	"path/filepath"
	"testing"
)

// TestAzureExplainAndAdviseGolden runs `karpsim explain pod`, `karpsim
// explain node` and `karpsim advise` on the Azure goldens' inputs
// (testdata/azure/plan and disrupt), comparing the JSON with
// testdata/azure/{explain,advise}/NAME.json; -update rewrites them. The
// README beside them says why each answer is right.
func TestAzureExplainAndAdviseGolden(t *testing.T) {
	t.Parallel()
	plan := filepath.Join(azureGoldens, "plan", "general-purpose", "input.yaml")
	drift := filepath.Join(azureGoldens, "disrupt", "image-drift", "input.yaml")
	for _, tc := range []struct {
		golden string
		args   []string
	}{
		{"explain/pod-inflate.json", []string{"explain", "pod", "default/inflate-8f5b84bfd-0", "-f", plan, "-o", "json"}},
		{"explain/node-image-drift.json", []string{"explain", "node", "aks-general-purpose-a1b2c", "-f", drift, "-o", "json"}},
		{"advise/general-purpose.json", []string{"advise", "-f", plan, "-o", "json"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			t.Parallel()
			code, stdout, stderr := runShared(tc.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			matchGolden(t, filepath.Join(azureGoldens, tc.golden), []byte(stdout), tc.golden)
		})
	}
}
