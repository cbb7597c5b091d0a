package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/simulator"
)

func TestNoArgumentsSimulatesTheDefaultScenario(t *testing.T) {
	code, stdout, stderr := runCmd()
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "no -f given: running the built-in scenario")
	assert.Contains(t, stdout, "Scenario default: 1h0m0s from 2026-01-05T00:00:00Z, seed 1")
	assert.Regexp(t, `launch +- +default-00001 +10 +\S+ spot +provisioning: 10 pending pods`, stdout)
	assert.Regexp(t, `bind +- +default-00001 +10 `, stdout)
	assert.Regexp(t, `delete +emptiness +default-00001 `, stdout)
	assert.Contains(t, stdout, "10 pods: p50 ")
	assert.Contains(t, stdout, "disruptions   emptiness 1")
	assert.Regexp(t, `nodes +peak 1 \(sampled\), final 0 `, stdout)

	code, help, _ := runCmd("help")
	require.Equal(t, 0, code)
	assert.Contains(t, help, "simulate ")
	code, help, _ = runCmd("-h")
	require.Equal(t, 0, code)
	assert.Contains(t, help, "Commands:")
}

// The embedded scenario and its copy under testdata/scenarios must not
// drift apart: the README points users at the copy.
func TestDefaultScenarioCopyMatchesTheEmbeddedOne(t *testing.T) {
	copied, err := os.ReadFile(filepath.Join("..", "..", "testdata", "scenarios", "default.yaml"))
	require.NoError(t, err)
	assert.Equal(t, string(defaultScenario), string(copied))
}

func TestSimulateJSON(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd("simulate", "-o", "json", "--seed", "9")
	require.Equal(t, 0, code, stderr)
	var r simulator.Result
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	assert.Equal(t, uint64(9), r.Seed)
	assert.Equal(t, 10, r.PendingTime.Count)
	assert.Equal(t, 0, r.Final.Nodes)
	assert.Equal(t, 1, r.DisruptionsByMethod["emptiness"])

	code, again, _ := runCmd("simulate", "-o", "json", "--seed", "9")
	require.Equal(t, 0, code)
	assert.Equal(t, stdout, again, "the same scenario and seed must give byte-identical output")
}

func TestSimulateExitCodes(t *testing.T) {
	badField := writeFile(t, "bad.yaml", "duration: 1h\nsteps:\n- {at: 1m, explode: {}}\n")
	noDuration := writeFile(t, "short.yaml", "seed: 1\n")
	badManifest := writeFile(t, "manifest.yaml", "duration: 1h\ninline: |\n  apiVersion: v1\n  kind: Pod\n  metadata: {name: neg}\n  spec:\n    containers: [{name: a, image: a, resources: {requests: {cpu: \"-1\"}}}]\n")
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"bad output", []string{"simulate", "-o", "xml"}, 2, `-o "xml"`},
		{"bad seed", []string{"simulate", "--seed", "minus-one"}, 2, "seed"},
		{"unknown flag", []string{"simulate", "--speed", "2"}, 2, "speed"},
		{"extra argument", []string{"simulate", "scenario.yaml"}, 2, `unexpected argument "scenario.yaml"`},
		{"missing file", []string{"simulate", "-f", "does-not-exist.yaml"}, 1, "does-not-exist.yaml"},
		{"unknown field", []string{"simulate", "-f", badField}, 1, "bad.yaml"},
		{"no duration", []string{"simulate", "-f", noDuration}, 1, "short.yaml: invalid scenario: duration must be positive"},
		{"refused manifest", []string{"simulate", "-f", badManifest}, 1, "manifest.yaml"},
		{"optimize under the Cluster Autoscaler", []string{"simulate", "--optimize", "--autoscaler", "cluster-autoscaler"}, 2, "--optimize changes Karpenter's provisioning"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.want)
		})
	}
}

// --check turns a broken invariant into exit code 1, after the run's own
// output, and leaves a clean run alone.
func TestSimulateCheck(t *testing.T) {
	code, _, stderr := runCmd("simulate", "--check", "-f", filepath.Join("..", "..", "testdata", "scenarios", "spot-storm.yaml"))
	require.Equal(t, 0, code, stderr)
	// A cluster given overcommitted: the checker reports the node.
	code, stdout, stderr := runCmd("simulate", "--check", "-o", "json", "-f", filepath.Join("testdata", "overcommitted-node.yaml"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "invariant violated")
	assert.Contains(t, stderr, "overcommit node=node-a")
	assert.Contains(t, stdout, `"violations"`, "the result still prints, with the violations")
}
