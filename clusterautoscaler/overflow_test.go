package clusterautoscaler

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/resources"
)

// A node's utilization sums its pods' requests: 1,025 pods of 2^53 bytes
// each make a full node, never an idle one. The sum wrapped negative, and
// the node looked as idle as its cpu.
func TestUtilizationPast2To63IsFull(t *testing.T) {
	a, f := twoNodes(t)
	n := f.nodes[0]
	n.Node.Allocatable = n.Node.Allocatable.DeepCopy()
	n.Node.Allocatable[corev1.ResourcePods] = resource.MustParse("5000")
	for i := range 1025 {
		p := webPod(fmt.Sprintf("hog-%d", i))
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: *resource.NewQuantity(resources.MaxAmount, resource.BinarySI)}
		p.Spec.NodeName = n.Name()
		n.Node.Pods = append(n.Node.Pods, p)
	}
	if u := a.utilization(n); u < 1 {
		t.Fatalf("utilization %.2f of a node whose pods ask for 1,025 × 2^53 bytes", u)
	}
	for _, c := range a.findUnneeded(f.nodes) {
		if c.node == n {
			t.Fatalf("%s is unneeded at utilization %.2f", n.Name(), c.utilization)
		}
	}
}
