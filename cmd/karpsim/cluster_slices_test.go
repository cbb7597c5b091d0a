package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClusterGivesResourceSlices: with --dra, the ResourceSlices read from
// a cluster (node-local, zoned) decide as those of the file do, and they
// change the plan.
func TestClusterGivesResourceSlices(t *testing.T) {
	t.Parallel()
	path := scenario("dra-published-devices")
	env, f := fakeCluster(t, path)
	code, want, stderr := runCmd("plan", "-f", path, "--dra")
	require.Equal(t, 0, code, stderr)
	code, got, stderr := runEnv(env, "plan", "--context", "fake", "--dra")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)
	assert.Contains(t, got, "us-east-1b", "the zoned FPGA narrows the new node's zone")
	assert.Contains(t, got, "gpu-node-2", "the free published GPU takes a pod")
	noWrites(t, f)
}
