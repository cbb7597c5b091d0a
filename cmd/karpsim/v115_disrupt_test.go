package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Karpenter v1.15's disruption inputs through `karpsim disrupt`: the
// karpenter.sh/disruption-cost annotation, --feature-gates
// PodDeletionCostManagement, the NodeClaim's Rebooting condition and the
// Unhealthy budget reason.

func TestParseFeatureGates(t *testing.T) {
	for _, s := range []string{"", "PodDeletionCostManagement=false", " SpotToSpotConsolidation = false ,"} {
		g, err := parseFeatureGates(s)
		require.NoError(t, err, s)
		assert.Equal(t, coreFeatureGates{}, g, s)
	}
	g, err := parseFeatureGates("PodDeletionCostManagement=true,SpotToSpotConsolidation=true")
	require.NoError(t, err)
	assert.Equal(t, coreFeatureGates{podDeletionCostManagement: true, spotToSpot: true}, g)
	for _, s := range []string{"PodDeletionCostManagement", "PodDeletionCostManagement=maybe", "NodeRepair=true", "NodeClassCEL=true"} {
		_, err := parseFeatureGates(s)
		assert.ErrorIs(t, err, errUsage, s)
	}
	code, _, stderr := runCmd("disrupt", "-f", disruptScenario("empty-node"), "--feature-gates", "NodeRepair=true")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown gate "NodeRepair"`)
}

// disruptDeletes runs disrupt -o json on the YAML and returns the nodes its
// commands delete.
func disruptDeletes(t *testing.T, input string, args ...string) ([]string, disruptResult) {
	t.Helper()
	file := writeFile(t, "in.yaml", input)
	code, stdout, stderr := runCmd(append([]string{"disrupt", "-f", file, "-o", "json"}, args...)...)
	require.Zero(t, code, stderr)
	var r disruptResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	var out []string
	for _, c := range r.Commands {
		out = append(out, c.Delete...)
	}
	return out, r
}

// TestDisruptEvictionCostAnnotations: two m5.large each run one 0.5-CPU pod
// (do-not-disrupt-and-pdb without its blockers); consolidation deletes the
// node whose pod costs less to evict, the first by name on a tie.
func TestDisruptEvictionCostAnnotations(t *testing.T) {
	data, err := os.ReadFile(disruptScenario("do-not-disrupt-and-pdb"))
	require.NoError(t, err)
	base, _, ok := strings.Cut(string(data), "---\napiVersion: policy/v1")
	require.True(t, ok)
	const dnd = `    karpenter.sh/do-not-disrupt: "true"`
	require.Contains(t, base, dnd)
	first, second := "ip-10-0-1-10.ec2.internal", "ip-10-0-2-11.ec2.internal"

	// The first node's pod has a pod-deletion-cost: the second goes,
	// unless Karpenter manages pod-deletion-cost itself.
	withPDC := strings.Replace(base, dnd, `    controller.kubernetes.io/pod-deletion-cost: "1000000"`, 1)
	deleted, _ := disruptDeletes(t, withPDC)
	assert.Equal(t, []string{second}, deleted)
	deleted, _ = disruptDeletes(t, withPDC, "--feature-gates", "PodDeletionCostManagement=true")
	assert.Equal(t, []string{first}, deleted)

	// The second node's pod has a higher disruption-cost: the first goes,
	// with the gate on or off.
	withBoth := strings.Replace(withPDC, "  labels: {app: ledger}", "  annotations: {karpenter.sh/disruption-cost: \"2000000\"}\n  labels: {app: ledger}", 1)
	deleted, _ = disruptDeletes(t, withBoth)
	assert.Equal(t, []string{first}, deleted)
	deleted, _ = disruptDeletes(t, withBoth, "--feature-gates", "PodDeletionCostManagement=true")
	assert.Equal(t, []string{first}, deleted)
}

// TestDisruptRebootingNode: in budget-notready-deleting one NotReady and one
// deleting node use two of the budget's three disruptions; a third node
// whose NodeClaim is rebooting uses the last one, and is no candidate.
func TestDisruptRebootingNode(t *testing.T) {
	data, err := os.ReadFile(disruptScenario("budget-notready-deleting"))
	require.NoError(t, err)
	input := string(data)
	at := strings.Index(input, "name: default-g5h6j")
	require.Positive(t, at)
	const initialized = `    - {type: Initialized, status: "True", reason: Initialized, lastTransitionTime: "2026-03-02T08:03:00Z"}` + "\n"
	i := strings.Index(input[at:], initialized)
	require.Positive(t, i)
	cut := at + i + len(initialized)
	rebooting := input[:cut] + `    - {type: Rebooting, status: "True", reason: RebootRequested, message: rebooting, lastTransitionTime: "2026-03-03T11:59:00Z"}` + "\n" + input[cut:]

	deleted, _ := disruptDeletes(t, input)
	assert.Equal(t, []string{"ip-10-0-1-13.ec2.internal"}, deleted, "the scenario as it is")
	deleted, r := disruptDeletes(t, rebooting)
	assert.Empty(t, deleted)
	for _, v := range r.Candidates {
		switch v.Node {
		case "ip-10-0-3-12.ec2.internal":
			assert.Equal(t, "being rebooted (its NodeClaim's Rebooting condition is True)", v.Reason)
		case "ip-10-0-1-13.ec2.internal", "ip-10-0-2-14.ec2.internal":
			assert.Contains(t, v.Reason, "3 already disrupting", v.Node)
		}
	}

	// A budget for Unhealthy alone is accepted and paces nothing karpsim runs.
	unhealthy := strings.Replace(input, `      - {nodes: "3"}`, `      - {nodes: "3"}`+"\n"+`      - {nodes: "0", reasons: [Unhealthy]}`, 1)
	require.NotEqual(t, input, unhealthy)
	deleted, _ = disruptDeletes(t, unhealthy)
	assert.Equal(t, []string{"ip-10-0-1-13.ec2.internal"}, deleted)
}
