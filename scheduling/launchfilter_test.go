package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

// launchType is a 4-CPU type with the given size label, capacity extras and
// offerings in test-zone-1.
func launchType(t *testing.T, name, size string, extra resources.Vector, offerings ...instancetypes.Offering) *instancetypes.InstanceType {
	t.Helper()
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:      name,
		Labels:    map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux", apis.LabelInstanceSize: size},
		Capacity:  resources.New(4000, 16<<30, 110).Add(extra),
		Offerings: offerings,
	})
	require.NoError(t, err)
	return it
}

func launchOffer(capacityType string, price float64) instancetypes.Offering {
	return instancetypes.Offering{Zone: "test-zone-1", CapacityType: capacityType, Price: price, Available: true}
}

func TestLaunchFilters(t *testing.T) {
	gpu := resources.Vector{}.With(apis.ResourceNVIDIAGPU, 1)
	catalog, err := instancetypes.NewCatalog(
		launchType(t, "a-metal", "metal", resources.Vector{}, launchOffer(apis.CapacityTypeOnDemand, 0.05), launchOffer(apis.CapacityTypeSpot, 0.01)),
		launchType(t, "b-gpu", "xlarge", gpu, launchOffer(apis.CapacityTypeOnDemand, 0.06), launchOffer(apis.CapacityTypeSpot, 0.02)),
		// Its spot offering is dearer than c-cheap's on-demand one.
		launchType(t, "c-dear-spot", "xlarge", resources.Vector{}, launchOffer(apis.CapacityTypeOnDemand, 0.30), launchOffer(apis.CapacityTypeSpot, 0.15)),
		launchType(t, "d-cheap", "xlarge", resources.Vector{}, launchOffer(apis.CapacityTypeOnDemand, 0.10)),
	)
	require.NoError(t, err)
	solve := func(reqs ...apis.NodeSelectorRequirementWithMinValues) NodeClaim {
		np := newPool("default")
		np.Spec.Template.Spec.Requirements = reqs
		r := Solve(Input{Pods: []*corev1.Pod{newPod("p", "1", "1Gi")}, NodePools: []Pool{{NodePool: np, InstanceTypes: catalog}}})
		require.Len(t, r.NodeClaims, 1)
		return r.NodeClaims[0]
	}
	both := apis.NodeSelectorRequirementWithMinValues{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn,
		Values: []string{apis.CapacityTypeSpot, apis.CapacityTypeOnDemand}}

	// Metal and GPU are set aside; c-dear-spot's spot costs more than
	// d-cheap's on-demand, so no spot offering is left: on-demand d-cheap.
	c := solve(both)
	assert.Equal(t, []string{"a-metal", "b-gpu", "d-cheap", "c-dear-spot"}, c.InstanceTypeOptions)
	assert.Equal(t, []string{"d-cheap", "c-dear-spot"}, c.LaunchOptions)
	assert.Equal(t, "d-cheap", c.InstanceType)
	assert.Equal(t, apis.CapacityTypeOnDemand, c.CapacityType)

	// A minValues requirement turns both filters off: the cheapest spot
	// offering, the metal type's, launches.
	withMin := both
	one := 1
	withMin.MinValues = &one
	c = solve(withMin)
	assert.Equal(t, "a-metal", c.InstanceType)
	assert.Equal(t, apis.CapacityTypeSpot, c.CapacityType)
	assert.Equal(t, []string{"a-metal", "b-gpu", "c-dear-spot"}, c.LaunchOptions)

	// Only exotic types fit a GPU pod: they are launched.
	np := newPool("default")
	np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{both}
	r := Solve(Input{Pods: []*corev1.Pod{newPod("p", "1", "1Gi", withRequest(apis.ResourceNVIDIAGPU, "1"))},
		NodePools: []Pool{{NodePool: np, InstanceTypes: catalog}}})
	require.Len(t, r.NodeClaims, 1)
	assert.Equal(t, "b-gpu", r.NodeClaims[0].InstanceType)
	assert.Equal(t, apis.CapacityTypeSpot, r.NodeClaims[0].CapacityType)
}

func TestLaunchOptionsAreAtMostSixty(t *testing.T) {
	big := instancetypes.Fake(200)
	np := newPool("default", withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand))
	r := Solve(Input{Pods: []*corev1.Pod{newPod("p", "100m", "100Mi")}, NodePools: []Pool{{NodePool: np, InstanceTypes: big}}})
	require.Len(t, r.NodeClaims, 1)
	c := r.NodeClaims[0]
	require.Greater(t, len(c.InstanceTypeOptions), instancetypes.MaxLaunchOptions)
	assert.Len(t, c.LaunchOptions, instancetypes.MaxLaunchOptions)
	assert.Contains(t, c.LaunchOptions, c.InstanceType)
}

// With a reserved offering among the options only reserved offerings are
// offered, exotic or not: the provider's reservation filters run first.
func TestLaunchFiltersKeepReservedExoticTypes(t *testing.T) {
	gpu := resources.Vector{}.With(apis.ResourceNVIDIAGPU, 1)
	reserved := launchOffer(apis.CapacityTypeReserved, 0.50)
	reserved.ReservationID, reserved.ReservationCapacity = "cr-gpu", 1
	catalog, err := instancetypes.NewCatalog(
		launchType(t, "a-gpu", "xlarge", gpu, launchOffer(apis.CapacityTypeOnDemand, 1.00), reserved),
		launchType(t, "d-cheap", "xlarge", resources.Vector{}, launchOffer(apis.CapacityTypeOnDemand, 0.10)),
	)
	require.NoError(t, err)
	np := newPool("default", withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeReserved, apis.CapacityTypeOnDemand))
	r := Solve(Input{Pods: []*corev1.Pod{newPod("p", "1", "1Gi")}, NodePools: []Pool{{NodePool: np, InstanceTypes: catalog}}})
	require.Len(t, r.NodeClaims, 1)
	c := r.NodeClaims[0]
	assert.Equal(t, "a-gpu", c.InstanceType)
	assert.Equal(t, apis.CapacityTypeReserved, c.CapacityType)
	assert.Equal(t, []string{"a-gpu"}, c.LaunchOptions)
}
