// Command quickstart plans from Go structs: a NodePool and ten pods go to
// scheduling.Solve over the embedded EC2 catalog, and the NodeClaims
// Karpenter would launch are printed.
package main

import (
	"fmt"
	"io"
	"os"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// run plans ten 1-CPU pods on a NodePool of c, m and r types, spot or
// on-demand, and prints each NodeClaim and the refused pods.
func run(w io.Writer) error {
	pool := &apis.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: apis.NodePoolSpec{Template: apis.NodeClaimTemplate{Spec: apis.NodeClaimTemplateSpec{
			NodeClassRef: &apis.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
			Requirements: []apis.NodeSelectorRequirementWithMinValues{
				{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpIn, Values: []string{"c", "m", "r"}},
				{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot", "on-demand"}},
			},
		}}},
	}
	pool.SetDefaults()
	var pods []*corev1.Pod
	for i := range 10 {
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("web-%d", i), Namespace: "shop"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("2Gi")},
			}}}},
		})
	}
	res := scheduling.Solve(scheduling.Input{
		Pods:      pods,
		NodePools: []scheduling.Pool{{NodePool: pool, InstanceTypes: instancetypes.Default()}},
	})
	for _, c := range res.NodeClaims {
		fmt.Fprintf(w, "%s: %s %s in %s at $%.4f/hour for %d pods\n", c.Name, c.CapacityType, c.InstanceType, c.Zone, c.PricePerHour, len(c.Pods))
	}
	for _, u := range res.Unschedulable {
		fmt.Fprintf(w, "%s: unschedulable: %s\n", u.Pod, u.Reason)
	}
	fmt.Fprintf(w, "%d of %d pods scheduled on %d new node(s), $%.4f/hour\n", res.Summary.ScheduledPods, res.Summary.Pods, res.Summary.NodeClaims, res.Summary.PricePerHour)
	return nil
}
