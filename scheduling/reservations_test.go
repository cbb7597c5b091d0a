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

// reservedCatalog has one 4-CPU type sold on-demand in test-zone-1 at
// 0.20/h and through a 2-instance capacity reservation there at 0.12/h.
func reservedCatalog(t *testing.T) instancetypes.Catalog {
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:     "m-reserved",
		Labels:   map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux"},
		Capacity: resources.New(4000, 16<<30, 110),
		Offerings: []instancetypes.Offering{
			{Zone: "test-zone-1", CapacityType: apis.CapacityTypeOnDemand, Price: 0.20, Available: true},
			{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved, Price: 0.12, Available: true, ReservationID: "cr-1", ReservationCapacity: 2},
		},
	})
	require.NoError(t, err)
	c, err := instancetypes.NewCatalog(it)
	require.NoError(t, err)
	return c
}

func TestReservedCapacityComesFirstAndIsNotFallenBackFrom(t *testing.T) {
	catalog := reservedCatalog(t)
	np := Pool{NodePool: newPool("default"), InstanceTypes: catalog}
	// One node per pod: three claims compete for a reservation of two.
	web := pods(3, "web", "3", "1Gi", withLabels("app", "web"), withPodAntiAffinity(apis.LabelHostname, "web"))

	r := Solve(Input{Pods: web, NodePools: []Pool{np}})
	require.Len(t, r.NodeClaims, 2)
	for _, c := range r.NodeClaims {
		assert.Equal(t, apis.CapacityTypeReserved, c.CapacityType)
		assert.InDelta(t, 0.12, c.PricePerHour, 1e-9)
	}
	require.Len(t, r.Unschedulable, 1, "the third pod waits for the reservation instead of falling back to on-demand")
	assert.Contains(t, r.Unschedulable[0].Reason, "reserved capacity exhausted")

	r = Solve(Input{Pods: web, NodePools: []Pool{np}, Options: Options{ReservedFallback: true}})
	require.Len(t, r.NodeClaims, 3)
	assert.Equal(t, apis.CapacityTypeOnDemand, r.NodeClaims[2].CapacityType, "with fallback the third launches on-demand")
	assert.Empty(t, r.Unschedulable)
}

func TestReservationsPinClaimsToTheirIDs(t *testing.T) {
	np := Pool{NodePool: newPool("default"), InstanceTypes: reservedCatalog(t)}
	r := Solve(Input{Pods: []*corev1.Pod{newPod("one", "1", "1Gi")}, NodePools: []Pool{np}})
	require.Len(t, r.NodeClaims, 1)
	assert.Contains(t, r.NodeClaims[0].Requirements, corev1.NodeSelectorRequirement{Key: apis.LabelCapacityReservationID, Operator: corev1.NodeSelectorOpIn, Values: []string{"cr-1"}})
}

func TestAPodWaitingForReservationsIsNotRelaxed(t *testing.T) {
	np := Pool{NodePool: newPool("default"), InstanceTypes: reservedCatalog(t)}
	// Two pods hold both units; the third prefers a zone it cannot have.
	// Relaxing that preference would not free a reservation, so it is
	// not relaxed: the explanation shows a single attempt.
	in := Input{Pods: append(pods(2, "web", "3", "1Gi", withLabels("app", "web"), withPodAntiAffinity(apis.LabelHostname, "web")),
		newPod("late", "2", "1Gi", withLabels("app", "web"), withPodAntiAffinity(apis.LabelHostname, "web"),
			withPreferredNodeAffinity(5, apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1"))), NodePools: []Pool{np}}
	_, e, err := Explain(in, "default/late")
	require.NoError(t, err)
	for _, a := range e.Attempts {
		assert.Zero(t, a.Relaxations)
	}
	assert.Contains(t, e.Outcome, "reserved capacity exhausted")
}

// A pod that asks for one type of capacity reservation does not launch into
// a reservation of another type, even a cheaper one.
func TestReservationTypeIsChecked(t *testing.T) {
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:     "m-block",
		Labels:   map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux"},
		Capacity: resources.New(4000, 16<<30, 110),
		Offerings: []instancetypes.Offering{
			{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved, Price: 0.10, Available: true,
				ReservationID: "cr-1", ReservationCapacity: 2, ReservationType: apis.CapacityReservationTypeCapacityBlock},
			{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved, Price: 0.12, Available: true,
				ReservationID: "cr-2", ReservationCapacity: 2, ReservationType: apis.CapacityReservationTypeDefault},
		},
	})
	require.NoError(t, err)
	catalog, err := instancetypes.NewCatalog(it)
	require.NoError(t, err)
	np := Pool{NodePool: newPool("default"), InstanceTypes: catalog}
	for reservationType, want := range map[string]string{apis.CapacityReservationTypeCapacityBlock: "cr-1", apis.CapacityReservationTypeDefault: "cr-2"} {
		p := newPod("p", "1", "1Gi", withNodeSelector(apis.LabelCapacityReservationType, reservationType))
		r := Solve(Input{Pods: []*corev1.Pod{p}, NodePools: []Pool{np}})
		require.Len(t, r.NodeClaims, 1, reservationType)
		c := r.NodeClaims[0]
		assert.Equal(t, apis.CapacityTypeReserved, c.CapacityType)
		assert.Contains(t, c.Requirements, corev1.NodeSelectorRequirement{Key: apis.LabelCapacityReservationID, Operator: corev1.NodeSelectorOpIn, Values: []string{want}}, reservationType)
	}
}
