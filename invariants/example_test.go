package invariants_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/invariants"
	"github.com/karpsim/karpsim/scheduling"
)

// A plan from scheduling.Solve keeps every rule; the same plan with both
// pods squeezed onto a 1-CPU type does not, and the checker says which
// node, and by how much.
func ExampleCheckPlan() {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	np.SetDefaults()
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("700m")}}}}}}
	}
	in := scheduling.Input{
		Pods:      []*corev1.Pod{pod("a"), pod("b")},
		NodePools: []scheduling.Pool{{NodePool: np, InstanceTypes: instancetypes.Fake(4)}},
	}
	plan := scheduling.Solve(in)
	fmt.Println("solve:", len(invariants.CheckPlan(in, plan)), "violations")

	squeezed := plan
	squeezed.NodeClaims = []scheduling.NodeClaim{plan.NodeClaims[0]}
	squeezed.NodeClaims[0].InstanceType = "fake-it-0"
	squeezed.NodeClaims[0].InstanceTypeOptions = []string{"fake-it-0"}
	squeezed.NodeClaims[0].PricePerHour = 0.3147483648
	for _, v := range invariants.CheckPlan(in, squeezed) {
		fmt.Println(v)
	}
	// Output:
	// solve: 0 violations
	// overcommit node=default-1 nodepool=default: cpu: pods request 1400m and DaemonSets 0, allocatable is 900m
}
