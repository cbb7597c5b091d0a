package optimize_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

var maxAmount = resource.NewQuantity(resources.MaxAmount, resource.DecimalSI)

// The lower bound counts what existing nodes leave free: a node whose
// 1,025 bound pods ask for 2^53 bytes each leaves no memory free. The sum
// wrapped into a vast free memory, and with the node's free cpu the bound
// put the pending pod there for nothing.
func TestLowerBoundBoundPodsPast2To63LeaveNothingFree(t *testing.T) {
	node := &scheduling.Node{Name: "full", Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("5000")}}
	node.Allocatable = node.Capacity
	for i := range 1025 {
		p := newPod(fmt.Sprintf("hog-%d", i), "0", maxAmount.String())
		p.Spec.NodeName = node.Name
		node.Pods = append(node.Pods, p)
	}
	in := scheduling.Input{Pods: pods(4, "a", "1", "1Gi"), Nodes: []*scheduling.Node{node},
		NodePools: []scheduling.Pool{nodePool("default", catalog(nodeType("small", 4, 64, 1)), nil)}}
	b, r := bound(t, in)
	if r.Summary.ScheduledPods != 4 || len(r.Bindings) != 0 {
		t.Fatalf("plan: %d pods scheduled, %d bound to the full node", r.Summary.ScheduledPods, len(r.Bindings))
	}
	if !near(b.PerHour, 1) || !near(r.Summary.PricePerHour, 1) {
		t.Errorf("bound %.4f, plan %.4f; want 1 and 1", b.PerHour, r.Summary.PricePerHour)
	}
}

// A NodePool's usage is charged against its limits: 1,025 nodes of 2^53
// millicores put a pool limited to 100 cpu past its limit, and the bound
// prices the pods on the other pool, as the plan does.
func TestLowerBoundPoolUsagePast2To63(t *testing.T) {
	var nodes []*scheduling.Node
	for i := range 1025 {
		nodes = append(nodes, &scheduling.Node{Name: fmt.Sprintf("giant-%d", i), NodePool: "cheap",
			Labels:      map[string]string{"karpenter.sh/nodepool": "cheap"},
			Capacity:    corev1.ResourceList{corev1.ResourceCPU: *maxAmount, corev1.ResourceMemory: resource.MustParse("8Gi")},
			Allocatable: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}})
	}
	in := scheduling.Input{Pods: pods(4, "a", "1", "1Gi"), Nodes: nodes, NodePools: []scheduling.Pool{
		nodePool("cheap", catalog(nodeType("small", 4, 64, 1)), corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")}),
		nodePool("dear", catalog(nodeType("dear", 4, 64, 3)), nil),
	}}
	b, r := bound(t, in)
	if r.Summary.ScheduledPods != 4 || !near(r.Summary.PricePerHour, 3) {
		t.Fatalf("plan: %d pods scheduled at $%.4f/h; want 4 at $3 on the dear pool", r.Summary.ScheduledPods, r.Summary.PricePerHour)
	}
	if !near(b.PerHour, 3) {
		t.Errorf("bound %.4f; want 3 (the cheap pool is past its limit)", b.PerHour)
	}
}

// A node limit past int64 (1e30, which apimachinery reads as 0) is no
// limit: the bound prices the pods as the plan does.
func TestLowerBoundNodeLimitPastInt64(t *testing.T) {
	in := scheduling.Input{Pods: pods(4, "a", "1", "1Gi"), NodePools: []scheduling.Pool{
		nodePool("default", catalog(nodeType("small", 4, 64, 1)), corev1.ResourceList{"nodes": resource.MustParse("1e30")}),
	}}
	b, r := bound(t, in)
	if r.Summary.ScheduledPods != 4 || !near(r.Summary.PricePerHour, 1) || !near(b.PerHour, 1) {
		t.Errorf("plan: %d pods at $%.4f/h, bound %.4f; want 4 pods, 1 and 1", r.Summary.ScheduledPods, r.Summary.PricePerHour, b.PerHour)
	}
}
