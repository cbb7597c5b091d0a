package optimize_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

// The optimizing planner beside Karpenter's on the embedded EC2 catalog:
// five pods of 3.5 CPU and 3Gi, sizes no instance type fits exactly, on
// an on-demand NodePool of c, m and r types. optimize.Solve returns a plan
// in scheduling's own form, which every constraint Karpenter keeps holds
// for (it is solved by scheduling too), at a cost no higher than
// Karpenter's. Karpenter takes one type big enough for every pod; two
// 8-CPU nodes of two pods and a 4-CPU node of one cost 37.5% less.
// simulator.Config.Planner and consolidation.Options.Planner
// take it in place of scheduling.Solve.
func ExampleSolve() {
	pool := &apis.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: apis.NodePoolSpec{Template: apis.NodeClaimTemplate{Spec: apis.NodeClaimTemplateSpec{
			NodeClassRef: &apis.NodeClassReference{Group: apis.AWSGroup, Kind: "EC2NodeClass", Name: "default"},
			Requirements: []apis.NodeSelectorRequirementWithMinValues{
				{Key: apis.LabelInstanceCategory, Operator: corev1.NodeSelectorOpIn, Values: []string{"c", "m", "r"}},
				{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.CapacityTypeOnDemand}},
				{Key: apis.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.ArchitectureAmd64}},
			},
		}}},
	}
	pool.SetDefaults()
	var pods []*corev1.Pod
	for i := range 5 {
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("batch-%d", i), Namespace: "jobs"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "batch", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3500m"), corev1.ResourceMemory: resource.MustParse("3Gi")},
			}}}},
		})
	}
	in := scheduling.Input{Pods: pods, NodePools: []scheduling.Pool{{NodePool: pool, InstanceTypes: instancetypes.Default()}}}

	karpenter := scheduling.Solve(in)
	optimized, err := optimize.Solve(in, optimize.SolveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, plan := range []struct {
		name string
		res  scheduling.Result
	}{{"Karpenter", karpenter}, {"optimized", optimized}} {
		types := map[string]int{}
		for _, c := range plan.res.NodeClaims {
			types[c.InstanceType]++
		}
		fmt.Printf("%s: $%.4f/hour, %d pods on %v\n", plan.name, optimize.PlanPerHour(plan.res), plan.res.Summary.ScheduledPods, types)
	}
	// Output:
	// Karpenter: $1.2240/hour, 5 pods on map[c6a.8xlarge:1]
	// optimized: $0.7650/hour, 5 pods on map[c6a.2xlarge:2 c6a.xlarge:1]
}
