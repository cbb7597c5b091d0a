package instancetypes_test

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// NewAWS models EC2 types for an EC2NodeClass of one's own, as Karpenter's
// AWS provider does: here two types of the embedded facts, in two zones of
// eu-west-1, first under the default EC2NodeClass (AL2023), then under one
// whose kubelet allows 20 pods a node. The cap lowers the pods a node takes
// from the 29 its network interfaces allow; the kube-reserved memory stays
// what the provider derives from those 29 (11 MiB a pod and 255 MiB), as
// upstream computes it. Each type is sold on-demand and as spot in each
// zone; prices are the embedded us-east-1 on-demand prices and karpsim's
// spot model unless AWSOptions.Prices says otherwise.
func ExampleNewAWS() {
	facts := slices.DeleteFunc(instancetypes.EmbeddedFacts(), func(f instancetypes.EC2Facts) bool {
		return f.InstanceType != "m6i.large" && f.InstanceType != "m7g.large"
	})
	maxPods := intstr.FromInt32(20)
	nodeClass := &apis.EC2NodeClass{Spec: apis.EC2NodeClassSpec{
		AMISelectorTerms: []apis.AMISelectorTerm{{Alias: "al2023@latest"}},
		Kubelet:          &apis.KubeletConfiguration{MaxPods: &maxPods},
	}}
	for _, opts := range []instancetypes.AWSOptions{
		{Region: "eu-west-1", Zones: []string{"eu-west-1a", "eu-west-1b"}},
		{Region: "eu-west-1", Zones: []string{"eu-west-1a", "eu-west-1b"}, NodeClass: nodeClass},
	} {
		catalog, err := instancetypes.NewAWS(facts, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, it := range catalog {
			onDemand, _ := it.CheapestOffering(requirements.NewRequirements(requirements.In(apis.LabelCapacityType, apis.CapacityTypeOnDemand)))
			fmt.Printf("%s %s: %d offerings, on-demand $%.4f in %s\n", it.Name, it.Allocatable(), len(it.Offerings), onDemand.Price, onDemand.Zone)
		}
	}
	// Output:
	// m6i.large {"cpu":"1930m","ephemeral-storage":"17Gi","memory":"6903Mi","pods":"29","vpc.amazonaws.com/pod-eni":"9"}: 4 offerings, on-demand $0.0960 in eu-west-1a
	// m7g.large {"cpu":"1930m","ephemeral-storage":"17Gi","memory":"6844Mi","pods":"29","vpc.amazonaws.com/pod-eni":"9"}: 4 offerings, on-demand $0.0816 in eu-west-1a
	// m6i.large {"cpu":"1930m","ephemeral-storage":"17Gi","memory":"6903Mi","pods":"20","vpc.amazonaws.com/pod-eni":"9"}: 4 offerings, on-demand $0.0960 in eu-west-1a
	// m7g.large {"cpu":"1930m","ephemeral-storage":"17Gi","memory":"6844Mi","pods":"20","vpc.amazonaws.com/pod-eni":"9"}: 4 offerings, on-demand $0.0816 in eu-west-1a
}
