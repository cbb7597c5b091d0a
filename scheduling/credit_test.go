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

func TestReservationsCredit(t *testing.T) {
	full := &instancetypes.Offering{CapacityType: apis.CapacityTypeReserved, ReservationID: "r-full", Available: true}
	r := &reservations{capacity: map[string]int{"r-full": 0, "r-one": 1}, held: map[string]map[string]bool{}}
	r.credit(map[string]int{"r-full": 1, "r-unknown": 5, "r-one": 0})
	assert.Equal(t, map[string]int{"r-full": 1, "r-one": 1}, r.capacity, "an unknown reservation is not made known; 0 credits nothing")
	assert.False(t, r.full(full), "a credited reservation may be held")
	assert.True(t, r.full(&instancetypes.Offering{CapacityType: apis.CapacityTypeReserved, ReservationID: "r-one", Available: true}),
		"an offering with no unit left and no credit is full")

	r = &reservations{capacity: map[string]int{"r": 2}, held: map[string]map[string]bool{}}
	r.credit(map[string]int{"r": int(^uint(0) >> 1)})
	assert.Equal(t, int(^uint(0)>>1), r.capacity["r"], "saturates instead of overflowing")
}

// TestSolveWithReservationCredit: in Karpenter's provisioning mode a pod
// whose only offering is a full reservation waits; with a unit credited it
// gets a claim holding the reservation, and a second pod that needs a
// second unit still waits.
func TestSolveWithReservationCredit(t *testing.T) {
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:     "m-reserved",
		Labels:   map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux"},
		Capacity: resources.New(4000, 16<<30, 110),
		Offerings: []instancetypes.Offering{
			{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved, Price: 0.12, Available: true, ReservationID: "cr-full"},
		},
	})
	require.NoError(t, err)
	catalog, err := instancetypes.NewCatalog(it)
	require.NoError(t, err)
	in := Input{NodePools: []Pool{{NodePool: newPool("default"), InstanceTypes: catalog}},
		Pods: pods(2, "web", "3", "1Gi", withLabels("app", "web"), withPodAntiAffinity(apis.LabelHostname, "web"))}
	res := Solve(in)
	assert.Empty(t, res.NodeClaims)
	assert.Len(t, res.Unschedulable, 2)

	in.Options.ReservationCredit = map[string]int{"cr-full": 1}
	res = Solve(in)
	require.Len(t, res.NodeClaims, 1)
	assert.Len(t, res.Unschedulable, 1, "one unit credited, one claim")
	assert.Contains(t, res.NodeClaims[0].Requirements, corev1.NodeSelectorRequirement{Key: apis.LabelCapacityReservationID, Operator: corev1.NodeSelectorOpIn, Values: []string{"cr-full"}})
	assert.Equal(t, apis.CapacityTypeReserved, res.NodeClaims[0].CapacityType)

	in.Options.ReservationCredit = map[string]int{"cr-other": 5}
	res = Solve(in)
	assert.Empty(t, res.NodeClaims, "a credit to a reservation no catalog names gives nothing")
}
