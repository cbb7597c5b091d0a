package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// TestDisruptGolden runs `karpsim disrupt -o json` on every scenario under
// testdata/disrupt and compares the output with the scenario's
// expected.json; -update (the flag of TestPlanGolden) rewrites them. A
// scenario may hold an args file with more flags, one line split on spaces:
// that is how two scenarios evaluate the same kind of cluster at two times
// (--at). Each scenario's README.md says why the output is Karpenter's.
func TestDisruptGolden(t *testing.T) {
	runGolden(t, "disrupt")
}

func disruptScenario(name string) string {
	return filepath.Join("..", "..", "testdata", "disrupt", name, "input.yaml")
}

func TestDisruptExitCodes(t *testing.T) {
	noClass := writeFile(t, "pool.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: lonely}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: missing}\n      requirements: []\n")
	noTime := writeFile(t, "pod.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: app, image: app}]\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no files", []string{"disrupt"}, 2, "no -f or --kubeconfig given"},
		{"bad output", []string{"disrupt", "-f", disruptScenario("empty-node"), "-o", "xml"}, 2, `-o "xml"`},
		{"bad time", []string{"disrupt", "-f", disruptScenario("empty-node"), "--at", "noon"}, 2, `--at "noon"`},
		{"no timestamp", []string{"disrupt", "-f", noTime}, 2, "give --at"},
		{"missing class", []string{"disrupt", "-f", noClass, "--at", "2026-03-03T12:00:00Z"}, 1, "pool.yaml"},
		{"missing file", []string{"disrupt", "-f", "does-not-exist.yaml"}, 1, "does-not-exist.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

func TestDisruptTable(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd("disrupt", "-f", disruptScenario("empty-node"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "no --at given: evaluating at 2026-03-03T12:00:00Z")
	assert.Contains(t, stdout, "At 2026-03-03T12:00:00Z:")
	assert.Regexp(t, `emptiness +Empty/delete: 1 node empty +ip-10-0-2-11.ec2.internal +- +0.0960`, stdout)
	assert.Regexp(t, `ip-10-0-2-11.ec2.internal +default +yes +emptiness: empty, deleted`, stdout)
	assert.Regexp(t, `default-a1b2c +ip-10-0-1-10.ec2.internal +default +2026-03-01T08:00:00Z`, stdout)

	code, stdout, stderr = runCmd("disrupt", "-f", disruptScenario("merge-into-cheaper-type"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "c5.xlarge us-east-1a on-demand $0.1700")

	code, stdout, stderr = runCmd("disrupt", "-f", disruptScenario("do-not-disrupt-and-pdb"))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "No disruption: no method found a command.")
	assert.NotContains(t, stdout, "EXPIRED")
}

func TestDisruptYAMLMatchesJSON(t *testing.T) {
	t.Parallel()
	file := disruptScenario("drift-replaces-not-cheaper")
	code, asJSON, stderr := runCmd("disrupt", "-f", file, "-o", "json")
	require.Equal(t, 0, code, stderr)
	code, asYAML, stderr := runCmd("disrupt", "-f", file, "-o", "yaml")
	require.Equal(t, 0, code, stderr)
	converted, err := yaml.YAMLToJSON([]byte(asYAML))
	require.NoError(t, err)
	assert.JSONEq(t, asJSON, string(converted))
}
