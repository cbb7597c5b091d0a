// Command costadvice asks how much Karpenter overpays on a workload and
// what would fix it, from Go: Karpenter's plan (scheduling.Solve), a
// proven lower bound on any plan's cost (optimize.LowerBound), the
// optimizing planner's plan (optimize.Solve), and the NodePool edits
// under which Karpenter's own plan is cheaper (advise.Advise).
package main

import (
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "costadvice:", err)
		os.Exit(1)
	}
}

// input is an on-demand NodePool of c, m and r types and 60 pods of
// 3.5 CPU and 3Gi: sizes that fit no type exactly.
func input() scheduling.Input {
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
	for i := range 60 {
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("batch-%d", i), Namespace: "jobs"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "batch", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3500m"), corev1.ResourceMemory: resource.MustParse("3Gi")},
			}}}},
		})
	}
	return scheduling.Input{Pods: pods, NodePools: []scheduling.Pool{{NodePool: pool, InstanceTypes: instancetypes.Default()}}}
}

// run prints the four figures and the best advice.
func run(w io.Writer) error {
	in := input()
	karpenter := scheduling.Solve(in)
	bound, err := optimize.LowerBound(in, karpenter, optimize.BoundOptions{})
	if err != nil {
		return err
	}
	optimized, err := optimize.Solve(in, optimize.SolveOptions{})
	if err != nil {
		return err
	}
	report, err := advise.Advise(in, advise.Options{Top: 3})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Karpenter's plan:   $%.4f/hour, %d node(s) for %d pods\n", optimize.PlanPerHour(karpenter), len(karpenter.NodeClaims), karpenter.Summary.ScheduledPods)
	fmt.Fprintf(w, "lower bound:        $%.4f/hour (%s): Karpenter's plan is %+.0f%% above it\n", bound.PerHour, bound.Method, 100*bound.Gap)
	fmt.Fprintf(w, "optimizing planner: $%.4f/hour, %d node(s) for %d pods\n", optimize.PlanPerHour(optimized), len(optimized.NodeClaims), optimized.Summary.ScheduledPods)
	for i, a := range report.Advice {
		fmt.Fprintf(w, "advice %d:           $%.4f/hour (-%.1f%%) with", i+1, a.PerHour, a.SavingPercent)
		for _, e := range a.Edits {
			fmt.Fprintf(w, " [%s]", e)
		}
		fmt.Fprintln(w)
	}
	return nil
}
