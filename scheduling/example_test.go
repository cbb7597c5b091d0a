package scheduling_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// Three pods on an on-demand, amd64 NodePool: one NodeClaim, the cheapest
// on-demand offering that holds them; a fourth pod asking for arm64 is
// refused, and the reason says why.
func ExampleSolve() {
	pool := &apis.NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: apis.NodePoolSpec{Template: apis.NodeClaimTemplate{Spec: apis.NodeClaimTemplateSpec{
			NodeClassRef: &apis.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"},
			Requirements: []apis.NodeSelectorRequirementWithMinValues{
				{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"on-demand"}},
				{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}},
			},
		}}},
	}
	pool.SetDefaults()
	pod := func(name string, nodeSelector map[string]string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "shop"},
			Spec: corev1.PodSpec{NodeSelector: nodeSelector, Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")},
			}}}},
		}
	}
	res := scheduling.Solve(scheduling.Input{
		Pods:      []*corev1.Pod{pod("web-0", nil), pod("web-1", nil), pod("web-2", nil), pod("arm-0", map[string]string{corev1.LabelArchStable: "arm64"})},
		NodePools: []scheduling.Pool{{NodePool: pool, InstanceTypes: instancetypes.Default()}},
	})
	for _, c := range res.NodeClaims {
		fmt.Println(c.Name, c.CapacityType, c.InstanceType, c.Pods)
	}
	for _, u := range res.Unschedulable {
		fmt.Println(u.Pod, "unschedulable:", u.Reason)
	}
	// Output:
	// default-1 on-demand t3a.xlarge [shop/web-0 shop/web-1 shop/web-2]
	// shop/arm-0 unschedulable: NodePool "default": incompatible requirements: kubernetes.io/arch In [arm64] conflicts with kubernetes.io/arch In [amd64]
}
