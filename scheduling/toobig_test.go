package scheduling

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A claim that refused a pod for its size (claim.tooBig) refuses the pods
// asking the same without adding up their requests, and still takes a
// smaller pod: here the 1-cpu pod joins the first claim, which refused
// the second 12-cpu pod (no type holds 24 cpus), fewest pods first and
// ties in creation order, as Karpenter's walk does.
func TestClaimTooBigRemembersOnlyTheRequestsRefused(t *testing.T) {
	in := Input{
		Pods:      append(pods(3, "big", "12", "1Gi"), newPod("small", "1", "1Gi")),
		NodePools: []Pool{pool(newPool("default"))},
	}
	r := Solve(in)
	require.Empty(t, r.Unschedulable)
	require.Len(t, r.NodeClaims, 3)
	holding := func(pod string) int {
		return slices.IndexFunc(r.NodeClaims, func(c NodeClaim) bool { return slices.Contains(c.Pods, pod) })
	}
	require.GreaterOrEqual(t, holding("default/small"), 0, "%v", claimsByType(r))
	assert.Equal(t, holding("default/big-0"), holding("default/small"), "the small pod joins the first claim, which refused a big one")
	for _, c := range r.NodeClaims {
		assert.Len(t, c.Pods, map[bool]int{true: 2, false: 1}[slices.Contains(c.Pods, "default/small")], "claim %s", c.Name)
	}
}
