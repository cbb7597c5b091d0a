package conformance

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

// minValuesPolicyType is an arm64 linux type of 4 CPUs and 4Gi with the
// given spot offerings.
func minValuesPolicyType(name string, offerings ...instancetypes.Offering) *instancetypes.InstanceType {
	return mustType(instancetypes.Spec{
		Name: name, Labels: map[string]string{apis.LabelArch: apis.ArchitectureArm64, apis.LabelOS: "linux"},
		Capacity: resources.New(4000, 4<<30, 5), Overhead: fakeOverhead, Offerings: offerings,
	})
}

// twoSpotTypes are upstream's two types, each sold as spot in one zone.
func twoSpotTypes() instancetypes.Catalog {
	return mustCatalog(
		minValuesPolicyType("instance-type-1", offering("test-zone-1-spot", apis.CapacityTypeSpot, 0.52, true)),
		minValuesPolicyType("instance-type-2", offering("test-zone-2-spot", apis.CapacityTypeSpot, 0.52, true)))
}

// oneTypeTwoZones is upstream's single type sold as spot in two zones.
func oneTypeTwoZones() instancetypes.Catalog {
	return mustCatalog(minValuesPolicyType("instance-type-1",
		offering("test-zone-1", apis.CapacityTypeSpot, 0.52, true), offering("test-zone-2", apis.CapacityTypeSpot, 0.54, true)))
}

func typesMinValues(n int) poolOption {
	return withMinValues(in(apis.LabelInstanceType, "instance-type-1", "instance-type-2", "instance-type-3"), n)
}

func zonesMinValues(n int) poolOption {
	return withMinValues(in(apis.LabelTopologyZone, "test-zone-1", "test-zone-2", "test-zone-3"), n)
}

// relaxedWarning reports whether the last round warned that a claim
// launches below its minValues (karpsim's counterpart of the annotation
// Karpenter puts on such a NodeClaim).
func relaxedWarning(w *world) bool {
	for _, m := range w.last.Warnings {
		if strings.Contains(m, "minValues") && strings.Contains(m, "BestEffort") {
			return true
		}
	}
	return false
}

func smallPod() *corev1.Pod { return ppod("p", requests("cpu", "0.9", "memory", "0.9Gi")) }

var _ = register("provisioning",
	conformanceCase{Name: "min-values-strict", Run: func(t *T) {
		w := newWorld(twoSpotTypes(), nodePool("default", withWeight(100), typesMinValues(3)))
		p := smallPod()
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "min-values-best-effort", Run: func(t *T) {
		w := newWorld(twoSpotTypes(), nodePool("default", withWeight(100), typesMinValues(3)))
		w.opts.MinValuesBestEffort = true
		p := smallPod()
		w.provision(p)
		require.True(t, scheduled(p))
		require.Equal(t, "instance-type-1", w.nodeOf(p).Labels[apis.LabelInstanceType])
		require.True(t, relaxedWarning(w), "%v", w.last.Warnings)
		require.ElementsMatch(t, []string{"instance-type-1", "instance-type-2"}, w.last.NodeClaims[0].InstanceTypeOptions)
	}},
	conformanceCase{Name: "min-values-relaxed-before-other-pool", Run: func(t *T) {
		w := newWorld(twoSpotTypes(), nodePool("default", withWeight(100), typesMinValues(3)),
			nodePool("no-min-values", withWeight(10), withRequirements(in(apis.LabelInstanceType, "instance-type-1", "instance-type-2", "instance-type-3"))))
		w.opts.MinValuesBestEffort = true
		p := smallPod()
		w.provision(p)
		require.Equal(t, "default", poolOf(w, p))
		require.Equal(t, "instance-type-1", w.nodeOf(p).Labels[apis.LabelInstanceType])
		require.True(t, relaxedWarning(w), "%v", w.last.Warnings)
	}},
	conformanceCase{Name: "min-values-relaxed-heavier-pool", Run: func(t *T) {
		w := newWorld(twoSpotTypes(), nodePool("default", withWeight(100), typesMinValues(3)),
			nodePool("lower", withWeight(10), typesMinValues(3)))
		w.opts.MinValuesBestEffort = true
		p := smallPod()
		w.provision(p)
		require.Equal(t, "default", poolOf(w, p))
		require.Equal(t, "instance-type-1", w.nodeOf(p).Labels[apis.LabelInstanceType])
		require.True(t, relaxedWarning(w), "%v", w.last.Warnings)
	}},
	conformanceCase{Name: "zone-min-values-strict", Run: func(t *T) {
		w := newWorld(oneTypeTwoZones(), nodePool("default", zonesMinValues(3)))
		p := smallPod()
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "zone-min-values-best-effort", Run: func(t *T) {
		w := newWorld(oneTypeTwoZones(), nodePool("default", zonesMinValues(3)))
		w.opts.MinValuesBestEffort = true
		p := smallPod()
		w.provision(p)
		require.True(t, scheduled(p))
		require.Equal(t, "instance-type-1", w.nodeOf(p).Labels[apis.LabelInstanceType])
		require.Contains(t, []string{"test-zone-1", "test-zone-2"}, zoneOf(w, p))
		require.True(t, relaxedWarning(w), "%v", w.last.Warnings)
	}},
	conformanceCase{Name: "type-and-zone-min-values-best-effort", Run: func(t *T) {
		w := newWorld(oneTypeTwoZones(), nodePool("default", withWeight(100), typesMinValues(3), zonesMinValues(3)))
		w.opts.MinValuesBestEffort = true
		p := smallPod()
		w.provision(p)
		require.True(t, scheduled(p))
		require.Equal(t, "instance-type-1", w.nodeOf(p).Labels[apis.LabelInstanceType])
		require.Contains(t, []string{"test-zone-1", "test-zone-2"}, zoneOf(w, p))
		require.True(t, relaxedWarning(w), "%v", w.last.Warnings)
	}},
)
