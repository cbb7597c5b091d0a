package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateGolden runs `karpsim simulate -f NAME.yaml -o json` on every
// scenario under testdata/scenarios and compares the output with
// NAME.expected.json; -update (the flag of TestPlanGolden) rewrites them.
// Each scenario's NAME.md says what its timeline shows and why that is
// Karpenter's behaviour; review the diff of any -update against it.
func TestSimulateGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenarios under testdata/scenarios")
	}
	for _, file := range files {
		base := strings.TrimSuffix(file, ".yaml")
		t.Run(filepath.Base(base), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run([]string{"simulate", "-f", file, "-o", "json"}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			matchGolden(t, base+".expected.json", stdout.Bytes(), "simulate of "+file)
			if _, err := os.Stat(base + ".md"); err != nil {
				t.Errorf("scenario %s has no %s.md saying why its timeline is Karpenter's", file, filepath.Base(base))
			}
		})
	}
}
