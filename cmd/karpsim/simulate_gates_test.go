package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// simulate --feature-gates is disrupt's flag: an unknown gate or a value
// that is no boolean is a usage error (exit 2), and the gates are refused
// with the Cluster Autoscaler, which has none of Karpenter's.
func TestSimulateFeatureGatesAreChecked(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "..", "testdata", "scenarios", "node-repair.yaml")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--feature-gates", "NodeRepiar=true"}, `unknown gate "NodeRepiar"`},
		{[]string{"--feature-gates", "NodeRepair=yes"}, `--feature-gates "NodeRepair=yes": want NAME=true or NAME=false`},
		{[]string{"--feature-gates", "NodeRepair=true", "--autoscaler", "cluster-autoscaler"}, "do not apply to --autoscaler cluster-autoscaler"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"simulate", "-f", file}, c.args...), nil, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("simulate %v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, stderr.String(), c.want)
		}
	}
}
