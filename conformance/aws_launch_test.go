package conformance

import (
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

// The AWS provider's launch filters: of a NodeClaim's instance types it
// offers EC2 (its CreateFleet overrides) at most 60, the cheapest, leaving
// out bare-metal and accelerated types when others fit and no requirement
// has minValues, and spot offerings dearer than the cheapest on-demand one
// when both capacity types are allowed. karpsim computes the same list as
// scheduling.NodeClaim.LaunchOptions, and launches one of them.

// launchClaim places a one-CPU pod and returns its claim.
func launchClaim(t *T, w *schedWorld) scheduling.NodeClaim {
	t.Helper()
	p := unschedPod("p", "1")
	res := w.solve(p)
	c := claimOf(t, res, p)
	require.NotEmpty(t, c.LaunchOptions, describe(res))
	require.Contains(t, c.LaunchOptions, c.InstanceType)
	return c
}

// fullAWSWorld is the whole embedded catalog under one NodePool with the
// given requirements, as upstream's spec that loads every fake type.
func fullAWSWorld(reqs ...apis.NodeSelectorRequirementWithMinValues) *schedWorld {
	pool := nodePool("default", func(np *apis.NodePool) { np.Spec.Template.Spec.Requirements = reqs })
	return newWorldOf(instancetypes.Default(), pool)
}

// cheapestNames are the names of the n types cheapest under the pool's
// requirements (their cheapest available offering they allow), ties by
// name, among those with room for a one-CPU pod. (Upstream's fake types
// all have room; karpsim's catalog has one-vCPU types that do not.)
func cheapestNames(t *T, w *schedWorld, n int) []string {
	t.Helper()
	reqs, err := requirements.FromNodePool(w.in.NodePools[0].NodePool.Spec.Template)
	require.NoError(t, err)
	type priced struct {
		name  string
		price float64
	}
	var all []priced
	for _, it := range w.catalog {
		if o, ok := it.CheapestOffering(reqs); ok && it.Allocatable().CPU() >= 1000 {
			all = append(all, priced{it.Name, o.Price})
		}
	}
	slices.SortFunc(all, func(a, b priced) int {
		if a.price != b.price {
			if a.price < b.price {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	out := []string{}
	for _, p := range all[:min(n, len(all))] {
		out = append(out, p.name)
	}
	return out
}

// cheapestOf is the type's cheapest available offering of the capacity type.
func cheapestOf(t *T, w *schedWorld, name, capacityType string) (float64, bool) {
	t.Helper()
	it, ok := w.catalog.Get(name)
	require.True(t, ok, name)
	o, found := it.CheapestOffering(requirements.NewRequirements(requirements.In(apis.LabelCapacityType, capacityType)))
	return o.Price, found
}

func inCapacityTypes(values ...string) apis.NodeSelectorRequirementWithMinValues {
	return apis.NodeSelectorRequirementWithMinValues{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: values}
}

var _ = register("aws-launch",
	conformanceCase{Name: "sixty-cheapest", Run: func(t *T) {
		w := fullAWSWorld(inCapacityTypes(apis.CapacityTypeOnDemand))
		c := launchClaim(t, w)
		require.Len(t, c.LaunchOptions, instancetypes.MaxLaunchOptions)
		require.Greater(t, len(c.InstanceTypeOptions), instancetypes.MaxLaunchOptions)
		cheapest := cheapestNames(t, w, 100)
		for _, name := range c.LaunchOptions {
			require.Contains(t, cheapest, name)
		}
	}},
	conformanceCase{Name: "spot-cheaper-than-on-demand", Run: func(t *T) {
		w := fullAWSWorld(inCapacityTypes(apis.CapacityTypeSpot, apis.CapacityTypeOnDemand))
		c := launchClaim(t, w)
		require.Equal(t, apis.CapacityTypeSpot, c.CapacityType)
		cheapestOD := math.Inf(1)
		for _, name := range c.LaunchOptions {
			if p, ok := cheapestOf(t, w, name, apis.CapacityTypeOnDemand); ok {
				cheapestOD = min(cheapestOD, p)
			}
		}
		for _, name := range c.LaunchOptions {
			p, ok := cheapestOf(t, w, name, apis.CapacityTypeSpot)
			require.True(t, ok, name)
			require.Less(t, p, cheapestOD, name)
		}
		require.Less(t, c.PricePerHour, cheapestOD)
		// The filter bites: among the claim's options some spot offering is dearer.
		dearer := false
		for _, name := range c.InstanceTypeOptions {
			if p, ok := cheapestOf(t, w, name, apis.CapacityTypeSpot); ok && p > cheapestOD {
				dearer = true
			}
		}
		require.True(t, dearer, "no spot offering dearer than %v among the options", cheapestOD)
	}},
	conformanceCase{Name: "min-values-keeps-metal", Run: func(t *T) {
		one := 1
		w := awsWorld(t, nil, instancetypes.AWSOptions{}, func(np *apis.NodePool) {
			np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{{
				Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.CapacityTypeSpot}, MinValues: &one}}
		})
		c := launchClaim(t, w)
		require.True(t, slices.ContainsFunc(c.LaunchOptions, func(n string) bool { return strings.Contains(n, "metal") }), "%v", c.LaunchOptions)
	}},
	conformanceCase{Name: "metal-set-aside", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		c := launchClaim(t, w)
		require.True(t, slices.ContainsFunc(c.InstanceTypeOptions, func(n string) bool { return strings.Contains(n, "metal") }), "%v", c.InstanceTypeOptions)
		for _, n := range c.LaunchOptions {
			require.NotContains(t, n, "metal")
		}
	}},
	conformanceCase{Name: "gpu-set-aside", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		c := launchClaim(t, w)
		require.True(t, slices.ContainsFunc(c.InstanceTypeOptions, func(n string) bool { return strings.HasPrefix(n, "g") }), "%v", c.InstanceTypeOptions)
		for _, n := range c.LaunchOptions {
			require.False(t, strings.HasPrefix(n, "g"), n)
		}
	}},
)
