package snapshot

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/consolidation"
)

// rebootingNodeDocs is node a of the general pool fenced with
// karpenter.sh/rebooting:NoSchedule, its claim's Rebooting condition with
// the given status ("" for none).
func rebootingNodeDocs(t *testing.T, status string) []string {
	t.Helper()
	docs := disruptionNode("a", "True", "", "")
	node := strings.Replace(docs[0], "spec:\n", "spec:\n  taints: [{key: karpenter.sh/rebooting, effect: NoSchedule}]\n", 1)
	require.NotEqual(t, docs[0], node)
	claim := docs[1]
	if status != "" {
		claim += `    - {type: Rebooting, status: "` + status + `", reason: RebootRequested, lastTransitionTime: "2026-03-03T11:59:00Z"}` + "\n"
	}
	return []string{nodeClassYAML, nodePoolYAML, node, claim}
}

// TestRebootingNodeTaints: Karpenter v1.15 reads a rebooting node's taints
// as an uninitialized node's, less its reboot fence; a node whose reboot is
// done keeps the taints it has.
func TestRebootingNodeTaints(t *testing.T) {
	for status, fenced := range map[string]bool{"True": false, "False": true, "": true} {
		s := build(t, rebootingNodeDocs(t, status)...)
		require.Len(t, s.Nodes, 1)
		assert.Equal(t, fenced, len(s.Nodes[0].Taints) == 1, "Rebooting %q: %v", status, s.Nodes[0].Taints)
	}
}

// TestForDisruptionRebootingNode: the claim's Rebooting condition reaches
// consolidation, which takes the node for no candidate.
func TestForDisruptionRebootingNode(t *testing.T) {
	now := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	d, err := ForDisruption(decode(t, rebootingNodeDocs(t, "True")...), Options{}, now)
	require.NoError(t, err)
	decision := consolidation.Evaluate(d.Cluster, now, consolidation.Options{})
	require.Len(t, decision.Candidates, 1)
	assert.Equal(t, "being rebooted (its NodeClaim's Rebooting condition is True)", decision.Candidates[0].Reason)
}
