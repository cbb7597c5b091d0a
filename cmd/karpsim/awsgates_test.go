package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/scheduling"
)

func TestParseAWSFeatureGates(t *testing.T) {
	for _, s := range []string{"", "NodeClassCEL=false", " NodeClassCEL = false ,"} {
		g, err := parseAWSFeatureGates(s)
		require.NoError(t, err, s)
		assert.False(t, g.nodeClassCEL, s)
	}
	g, err := parseAWSFeatureGates("NodeClassCEL=true")
	require.NoError(t, err)
	assert.True(t, g.nodeClassCEL)
	for _, s := range []string{"NodeClassCEL", "NodeClassCEL=yes please", "SpotToSpot=true"} {
		_, err := parseAWSFeatureGates(s)
		assert.ErrorIs(t, err, errUsage, s)
	}
}

// plan --aws-feature-gates NodeClassCEL=true evaluates a maxPods expression
// per type; without the gate the expression is ignored, as upstream.
func TestPlanKubeletExpressions(t *testing.T) {
	input, err := os.ReadFile(scenario("max-pods"))
	require.NoError(t, err)
	file := writeFile(t, "in.yaml", strings.Replace(string(input), "maxPods: 8", `maxPods: "min(8, vcpus * 2)"`, 1))
	code, stdout, stderr := runCmd("plan", "-f", file, "-o", "json", "--aws-feature-gates", "NodeClassCEL=true")
	require.Zero(t, code, stderr)
	var plan scheduling.Result
	require.NoError(t, json.Unmarshal([]byte(stdout), &plan))
	require.NotEmpty(t, plan.NodeClaims)
	vcpus := map[string]int{"c6g.medium": 1, "c6g.large": 2, "c6g.xlarge": 4, "c6g.2xlarge": 8}
	for _, c := range plan.NodeClaims {
		n, ok := vcpus[c.InstanceType]
		require.True(t, ok, "%s launches %s", c.Name, c.InstanceType)
		assert.LessOrEqual(t, len(c.Pods), min(8, 2*n), c.Name)
	}
	assert.Zero(t, plan.Summary.UnschedulablePods)
	// Without the gate the expression is ignored: the ENI limit stands, and
	// one node takes the 20 pods.
	code, stdout, stderr = runCmd("plan", "-f", file, "-o", "json")
	require.Zero(t, code, stderr)
	var ungated scheduling.Result
	require.NoError(t, json.Unmarshal([]byte(stdout), &ungated))
	assert.Less(t, len(ungated.NodeClaims), len(plan.NodeClaims))

	bad := writeFile(t, "bad.yaml", strings.Replace(string(input), "maxPods: 8", `maxPods: "0 - 1"`, 1))
	code, _, stderr = runCmd("plan", "-f", bad, "--aws-feature-gates", "NodeClassCEL=true")
	assert.NotZero(t, code)
	assert.Contains(t, stderr, "resolving maxPods")
	code, _, stderr = runCmd("plan", "-f", bad)
	assert.Zero(t, code, stderr)
}
