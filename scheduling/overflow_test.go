package scheduling

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/resources"
)

// maxAmountText is resources.MaxAmount (2^53) as a quantity.
var maxAmountText = fmt.Sprint(resources.MaxAmount)

// A node whose bound pods request 2^53 bytes each, 1,025 to 2,048 of them,
// is full: the sum passes 2^63, which wrapped into a negative sum and left
// the node room for anything. It now saturates, and the new pod goes to a
// new node.
func TestBoundPodsPast2To63LeaveNoRoom(t *testing.T) {
	for _, n := range []int{1025, 1536, 2048} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			node := makeNode("full", "default", true, "8", "8Gi", pods(n, "hog", "0", maxAmountText)...)
			node.Allocatable[corev1.ResourcePods] = resource.MustParse("5000")
			r := Solve(Input{Pods: pods(1, "web", "100m", "1Gi"), Nodes: []*Node{node}, NodePools: []NodePool{pool(newPool("default"))}})
			assert.Empty(t, r.Bindings, "a 1 GiB pod bound to a node whose pods ask for %d × 2^53 bytes", n)
			require.Len(t, r.NodeClaims, 1)
			assert.Contains(t, strings.Join(r.Warnings, "\n"), "node full: its bound pods request more [memory] than karpsim counts")
		})
	}
}

// A NodePool limited to 100 cpu whose 1,025 nodes each have 2^53
// millicores is past its limit: the charged sum passes 2^63, which wrapped
// into a large remainder and launched past the limit.
func TestPoolUsagePast2To63StaysPastTheLimit(t *testing.T) {
	var nodes []*Node
	for i := range 1025 {
		node := makeNode(fmt.Sprintf("big-%04d", i), "default", true, maxAmountText+"m", "1Gi")
		// Nothing fits on them: only the pool's limit decides.
		node.Allocatable = corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}
		nodes = append(nodes, node)
	}
	np := newPool("default", withLimit(corev1.ResourceCPU, "100"))
	r := Solve(Input{Pods: pods(1, "web", "1", "1Gi"), Nodes: nodes, NodePools: []NodePool{pool(np)}})
	assert.Empty(t, r.NodeClaims, "launched past a 100-cpu limit")
	require.Len(t, r.Unschedulable, 1)
	assert.Contains(t, r.Unschedulable[0].Reason, "exceed the NodePool's limits: cpu (")
}

// A NodePool's limit on nodes read from an absurd quantity is counted down
// without wrapping.
func TestNodeLimitPastInt64IsBounded(t *testing.T) {
	np := newPool("default", withLimit(resourceNodes, "-1e30"))
	r := Solve(Input{Pods: pods(1, "web", "1", "1Gi"), NodePools: []NodePool{pool(np)}})
	assert.Empty(t, r.NodeClaims)
	np = newPool("default", withLimit(resourceNodes, "1e30"))
	r = Solve(Input{Pods: pods(1, "web", "1", "1Gi"), NodePools: []NodePool{pool(np)}})
	assert.Len(t, r.NodeClaims, 1)
}

// A claim's requests are a sum too, checked as c.requests.Add(p.requests)
// fits the claim's room: a sum past 2^63 does not fit, where a wrapped one
// did.
func TestClaimRequestsPast2To63DoNotFit(t *testing.T) {
	big := resources.New(0, resources.MaxAmount, 1)
	var sum resources.Vector
	for range 1025 {
		sum = sum.Add(big)
	}
	room := resources.New(4000, 16<<30, 5000)
	assert.False(t, sum.Add(resources.New(100, 1<<30, 1)).Fits(room))
}
