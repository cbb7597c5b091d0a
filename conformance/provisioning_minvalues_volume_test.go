package conformance

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
)

// v1.15.0's specs of a pod whose volume's storage class allows one zone
// under a NodePool asking for three zones (minValues 3), over one type sold
// as spot in the three zones: the volume narrows the claim's zones to one,
// below minValues.

// zoneMinValuesVolumeWorld is that world: MinValuesPolicy BestEffort when
// bestEffort is set, else Strict; and the pod mounting the claim.
func zoneMinValuesVolumeWorld(bestEffort bool) (*world, *corev1.Pod) {
	w := newWorld(mustCatalog(minValuesPolicyType("instance-type-1",
		offering("test-zone-1", apis.CapacityTypeSpot, 0.52, true),
		offering("test-zone-2", apis.CapacityTypeSpot, 0.52, true),
		offering("test-zone-3", apis.CapacityTypeSpot, 0.52, true))),
		nodePool("default", zonesMinValues(3)))
	w.opts.MinValuesBestEffort = bestEffort
	class := "one-zone"
	w.classes = []*storagev1.StorageClass{storageClass(class, "test-zone-1")}
	w.pvcs = []*corev1.PersistentVolumeClaim{pvc("one-zone-claim", &class, "")}
	return w, ppod("p", requests("cpu", "0.9", "memory", "0.9Gi"), mounts("one-zone-claim"))
}

var _ = register("provisioning",
	conformanceCase{Name: "zone-min-values-volume-narrows-strict", Run: func(t *T) {
		w, p := zoneMinValuesVolumeWorld(false)
		w.provision(p)
		require.False(t, scheduled(p), "the volume leaves one zone of the three minValues asks for: %v", w.last.NodeClaims)
	}},
	conformanceCase{Name: "zone-min-values-volume-narrows-best-effort", Run: func(t *T) {
		w, p := zoneMinValuesVolumeWorld(true)
		w.provision(p)
		require.True(t, scheduled(p), "%v", w.last.Unschedulable)
		require.Equal(t, "test-zone-1", zoneOf(w, p))
		require.True(t, relaxedWarning(w), "%v", w.last.Warnings)
		c := w.last.NodeClaims[0]
		// Relaxed against the zones the volume leaves: one zone, minValues 1.
		require.Equal(t, map[string]int{apis.LabelTopologyZone: 1}, c.MinValuesRelaxed)
		i := slices.IndexFunc(c.Requirements, func(r corev1.NodeSelectorRequirement) bool { return r.Key == apis.LabelTopologyZone })
		require.GreaterOrEqual(t, i, 0, "%v", c.Requirements)
		require.Equal(t, corev1.NodeSelectorOpIn, c.Requirements[i].Operator)
		require.Equal(t, []string{"test-zone-1"}, c.Requirements[i].Values)
	}},
)
