package scheduling

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
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
			r := Solve(Input{Pods: pods(1, "web", "100m", "1Gi"), Nodes: []*Node{node}, NodePools: []Pool{pool(newPool("default"))}})
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
	r := Solve(Input{Pods: pods(1, "web", "1", "1Gi"), Nodes: nodes, NodePools: []Pool{pool(np)}})
	assert.Empty(t, r.NodeClaims, "launched past a 100-cpu limit")
	require.Len(t, r.Unschedulable, 1)
	assert.Contains(t, r.Unschedulable[0].Reason, "exceed the NodePool's limits: cpu (")
}

// A NodePool's limit on nodes read from an absurd quantity is counted down
// without wrapping.
func TestNodeLimitPastInt64IsBounded(t *testing.T) {
	np := newPool("default", withLimit(resourceNodes, "-1e30"))
	r := Solve(Input{Pods: pods(1, "web", "1", "1Gi"), NodePools: []Pool{pool(np)}})
	assert.Empty(t, r.NodeClaims)
	np = newPool("default", withLimit(resourceNodes, "1e30"))
	r = Solve(Input{Pods: pods(1, "web", "1", "1Gi"), NodePools: []Pool{pool(np)}})
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

// hugeCatalog is one instance type of 2^53 bytes and 5,000 pods: room
// for more than 1,024 pods of 2^53 bytes each, one at a time.
func hugeCatalog(t *testing.T) instancetypes.Catalog {
	t.Helper()
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:      "huge",
		Labels:    map[string]string{apis.LabelArch: apis.ArchitectureAmd64, apis.LabelOS: "linux"},
		Capacity:  resources.New(64_000, resources.MaxAmount, 5000),
		Offerings: []instancetypes.Offering{{Zone: "test-zone-1", CapacityType: apis.CapacityTypeOnDemand, Price: 1, Available: true}},
	})
	require.NoError(t, err)
	catalog, err := instancetypes.NewCatalog(it)
	require.NoError(t, err)
	return catalog
}

// DaemonSet overhead is a sum per instance type: 1,025 DaemonSets of 2^53
// bytes leave no type room for a pod, where the wrapped sum left the type
// room for anything.
func TestDaemonSetOverheadPast2To63LeavesNoRoom(t *testing.T) {
	var daemons []*corev1.Pod
	for i := range 1025 {
		daemons = append(daemons, daemonSet(fmt.Sprintf("agent-%04d", i), "0", maxAmountText))
	}
	r := Solve(Input{Pods: pods(1, "web", "100m", "1Gi"), DaemonSets: daemons, NodePools: []Pool{{NodePool: newPool("default"), InstanceTypes: hugeCatalog(t)}}})
	assert.Empty(t, r.NodeClaims, "launched a node whose DaemonSets ask for 1,025 × 2^53 bytes")
	require.Len(t, r.Unschedulable, 1)
	// The reason shows the sum stopped at 2^62 bytes, never a wrapped
	// negative one.
	assert.Contains(t, r.Unschedulable[0].Reason, `"memory":"4Ei"`)
}

// The same overhead on an existing node: DaemonSet pods expected there but
// not bound yet keep their room, and their sum saturates.
func TestExpectedDaemonSetsPast2To63LeaveNoRoomOnANode(t *testing.T) {
	var daemons []*corev1.Pod
	for i := range 1025 {
		daemons = append(daemons, daemonSet(fmt.Sprintf("agent-%04d", i), "0", maxAmountText, withToleration("", "")))
	}
	node := makeNode("node-a", "", true, "8", "8Gi")
	node.Allocatable[corev1.ResourcePods] = resource.MustParse("5000")
	r := Solve(Input{Pods: pods(1, "web", "100m", "1Gi"), Nodes: []*Node{node}, DaemonSets: daemons})
	assert.Empty(t, r.Bindings, "bound to a node whose DaemonSets ask for 1,025 × 2^53 bytes")
}
