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

// A pod or a NodePool that asks for (un)interruptible reserved capacity
// launches into a reservation of that kind only, even when another is
// cheaper (provider v1.15.0's capacity-reservation-interruptible).
func TestReservationInterruptibleIsChecked(t *testing.T) {
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:     "m-interruptible",
		Labels:   map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux"},
		Capacity: resources.New(4000, 16<<30, 110),
		Offerings: []instancetypes.Offering{
			{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved, Price: 0.10, Available: true,
				ReservationID: "cr-1", ReservationCapacity: 2, ReservationType: apis.CapacityReservationTypeDefault, Interruptible: true},
			{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved, Price: 0.12, Available: true,
				ReservationID: "cr-2", ReservationCapacity: 2, ReservationType: apis.CapacityReservationTypeDefault},
		},
	})
	require.NoError(t, err)
	catalog, err := instancetypes.NewCatalog(it)
	require.NoError(t, err)
	for interruptible, want := range map[string]string{"true": "cr-1", "false": "cr-2"} {
		p := newPod("p", "1", "1Gi", withNodeSelector(apis.LabelCapacityReservationInterruptible, interruptible))
		r := Solve(Input{Pods: []*corev1.Pod{p}, NodePools: []Pool{{NodePool: newPool("default"), InstanceTypes: catalog}}})
		require.Len(t, r.NodeClaims, 1, "pod selecting %s", interruptible)
		assert.Contains(t, r.NodeClaims[0].Requirements, corev1.NodeSelectorRequirement{Key: apis.LabelCapacityReservationID, Operator: corev1.NodeSelectorOpIn, Values: []string{want}}, interruptible)

		np := newPool("default", withRequirement(apis.LabelCapacityReservationInterruptible, corev1.NodeSelectorOpIn, interruptible))
		require.NoError(t, np.Validate(), "a NodePool requirement on a well-known label")
		r = Solve(Input{Pods: []*corev1.Pod{newPod("q", "1", "1Gi")}, NodePools: []Pool{{NodePool: np, InstanceTypes: catalog}}})
		require.Len(t, r.NodeClaims, 1, "pool requiring %s", interruptible)
		assert.Contains(t, r.NodeClaims[0].Requirements, corev1.NodeSelectorRequirement{Key: apis.LabelCapacityReservationID, Operator: corev1.NodeSelectorOpIn, Values: []string{want}}, interruptible)
	}
}

// The placement group labels are well known: a NodePool may require them,
// and a type that does not state them (its EC2NodeClass selects no
// placement group) stays compatible, as Karpenter allows undefined
// well-known labels.
func TestPlacementGroupLabelsAreWellKnown(t *testing.T) {
	np := newPool("default",
		withRequirement(apis.LabelPlacementGroupID, corev1.NodeSelectorOpIn, "pg-0123456789abcdef0"),
		withRequirement(apis.LabelPlacementGroupPartition, corev1.NodeSelectorOpIn, "1", "2"))
	require.NoError(t, np.Validate())
	r := Solve(Input{Pods: []*corev1.Pod{newPod("p", "1", "1Gi")}, NodePools: []Pool{{NodePool: np, InstanceTypes: reservedCatalog(t)}}})
	require.Len(t, r.NodeClaims, 1)
	assert.Empty(t, r.Unschedulable)
}
