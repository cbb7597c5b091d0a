package instancetypes

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// MaxLaunchOptions is how many of a NodeClaim's instance types Karpenter's
// AWS provider offers EC2 in one launch (its CreateFleet overrides): the
// cheapest, after its launch filters (Exotic types and dearer spot
// offerings set aside).
const MaxLaunchOptions = 60

// exoticResources are the accelerators that make a type exotic.
var exoticResources = []corev1.ResourceName{
	apis.ResourceAWSNeuron, apis.ResourceAWSNeuronCore, apis.ResourceAMDGPU, apis.ResourceNVIDIAGPU, apis.ResourceHabanaGaudi,
}

// Exotic reports whether Karpenter's AWS provider launches the type only
// when no other type of the NodeClaim can be launched (and the claim has no
// minValues requirement): bare metal (an instance size naming "metal") and
// types with GPUs, Neuron or Gaudi accelerators.
func (it *InstanceType) Exotic() bool {
	if size, ok := it.Requirements.Lookup(apis.LabelInstanceSize); ok && size.Operator() == corev1.NodeSelectorOpIn {
		// A type's label has one value; Any reads it without a copy.
		if size.Len() == 1 && strings.Contains(size.Any(), "metal") {
			return true
		}
		if size.Len() > 1 && slices.ContainsFunc(size.Values(), func(v string) bool { return strings.Contains(v, "metal") }) {
			return true
		}
	}
	for _, name := range exoticResources {
		if it.Capacity.Get(name) > 0 {
			return true
		}
	}
	return false
}
