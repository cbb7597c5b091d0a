package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const defaultScenarioPath = "../../testdata/scenarios/default.yaml"

func TestCompareTable(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd("compare", "-f", defaultScenarioPath)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "Scenario default: 1h0m0s from 2026-01-05T00:00:00Z, seed 1")
	assert.Regexp(t, `\s+KARPENTER\s+CLUSTER AUTOSCALER\s+KARPENTER SAVES`, stdout)
	for _, row := range []string{"total cost", "peak nodes", "final nodes", "launches", "pending p50", "pending p90", "pending p99", "pending max", "disruptions", "cpu requested / allocatable"} {
		assert.Contains(t, stdout, row)
	}
	assert.NotContains(t, stderr, "warning", "default.yaml states its node group")
}

func TestCompareJSON(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd("compare", "-f", defaultScenarioPath, "-o", "json")
	require.Equal(t, 0, code, stderr)
	var c comparison
	require.NoError(t, json.Unmarshal([]byte(stdout), &c))
	require.NotNil(t, c.Karpenter)
	require.NotNil(t, c.ClusterAutoscaler)
	assert.Empty(t, c.Karpenter.Autoscaler)
	assert.Equal(t, "cluster-autoscaler", c.ClusterAutoscaler.Autoscaler)
	assert.NotNil(t, c.Karpenter.Utilization)
	assert.InDelta(t, c.ClusterAutoscaler.TotalCost-c.Karpenter.TotalCost, c.Difference.CostSaved, 1e-4)
	assert.Equal(t, c.ClusterAutoscaler.PendingTime.P90.Duration-c.Karpenter.PendingTime.P90.Duration, c.Difference.PendingTimeSaved.P90.Duration)
	assert.Greater(t, c.Difference.PendingTimeSaved.Max.Duration, int64(0), "an ASG launch is slower than Karpenter's")

	_, again, _ := runCmd("compare", "-f", defaultScenarioPath, "-o", "json")
	assert.Equal(t, stdout, again, "the same scenario and seed must give byte-identical output")
}

func TestCompareAndAutoscalerUsage(t *testing.T) {
	code, _, stderr := runCmd("compare")
	assert.Equal(t, 2, code, "compare needs -f")
	assert.Contains(t, stderr, "no -f given")
	code, _, stderr = runCmd("simulate", "--autoscaler", "cluster-autoscalr")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "karpenter or cluster-autoscaler")
}
