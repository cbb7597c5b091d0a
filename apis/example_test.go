package apis_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

// SetDefaults fills in what the API server would (consolidation policy,
// consolidateAfter, budgets, expireAfter); Validate refuses what it would,
// naming the field.
func ExampleNodePool_SetDefaults() {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{}
	np.SetDefaults()
	fmt.Println(np.Spec.Disruption.ConsolidationPolicy, np.Spec.Disruption.ConsolidateAfter, np.Spec.Disruption.Budgets[0].Nodes, np.Spec.Template.Spec.ExpireAfter)

	np.Spec.Disruption.Budgets = []apis.Budget{{Nodes: "150%"}}
	fmt.Println(np.Validate())
	// Output:
	// WhenEmptyOrUnderutilized 0s 10% 720h
	// spec.disruption.budgets[0].nodes: "150%" is not a node count or a percentage (use e.g. "10" or "10%"; percentages go up to 100%)
}
