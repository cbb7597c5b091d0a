package requirements_test

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// A NodePool allows three zones and spot or on-demand; a pod asks for one
// zone and on-demand. Their intersection is what a new NodeClaim for the pod
// requires; an instance type sold only as spot does not intersect it.
func ExampleRequirements_Compatible() {
	nodePool := requirements.NewRequirements(
		requirements.In(apis.LabelTopologyZone, "us-east-1a", "us-east-1b", "us-east-1c"),
		requirements.In(apis.LabelCapacityType, "spot", "on-demand"),
	)
	pod := requirements.NewRequirements(
		requirements.In(apis.LabelTopologyZone, "us-east-1b"),
		requirements.In(apis.LabelCapacityType, "on-demand"),
	)
	fmt.Println(nodePool.Compatible(pod, requirements.AllowUndefinedWellKnown))
	claim := nodePool.Intersect(pod)
	fmt.Println(claim)

	spotOnly := requirements.NewRequirements(requirements.In(apis.LabelCapacityType, "spot"))
	fmt.Println(spotOnly.Intersects(claim))
	// Output:
	// <nil>
	// karpenter.sh/capacity-type In [on-demand], topology.kubernetes.io/zone In [us-east-1b]
	// incompatible requirements: karpenter.sh/capacity-type In [on-demand] conflicts with karpenter.sh/capacity-type In [spot]
}

// Gt and Lt are integer bounds: "generation greater than 2" allows 3 and up.
func ExampleRequirement_Intersection() {
	generation, err := requirements.New(apis.LabelInstanceGeneration, corev1.NodeSelectorOpGt, "2")
	if err != nil {
		panic(err)
	}
	offered := requirements.In(apis.LabelInstanceGeneration, "1", "2", "5", "6")
	fmt.Println(generation.Intersection(offered))
	// Output:
	// karpenter.k8s.aws/instance-generation In [5 6]
}
