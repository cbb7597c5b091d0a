package invariants

import (
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// The checker sums too: a pod bound to a node whose 1,025 pods ask for
// 2^53 bytes each overcommits it, and the checker says so, where the
// wrapped sum let the binding pass.
func TestCheckPlanSumsPast2To63(t *testing.T) {
	hog := func(p *corev1.Pod) {
		p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = *resource.NewQuantity(resources.MaxAmount, resource.BinarySI)
	}
	var bound []*corev1.Pod
	for i := range 1025 {
		bound = append(bound, newPod(fmt.Sprintf("hog-%d", i), "0", hog))
	}
	n := node("n1", "", "test-zone-1", 8, bound...)
	n.Allocatable[corev1.ResourcePods] = resource.MustParse("5000")
	in := scheduling.Input{Pods: []*corev1.Pod{newPod("a", "100m")}, Nodes: []*scheduling.Node{n}}
	vs := CheckPlan(in, scheduling.Result{Bindings: []scheduling.Binding{{Pod: "default/a", Node: "n1"}}})
	if len(vs) != 1 || vs[0].Rule != RuleOvercommit || vs[0].Node != "n1" || !strings.HasPrefix(vs[0].Detail, "memory: pods request 4Ei and DaemonSets 0,") {
		t.Fatalf("violations %v, want n1 overcommitted in memory", vs)
	}
}
