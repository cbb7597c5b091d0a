package optimize_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// The local search leaves a plan alone when a NodePool may launch a
// capacity reservation's offering, in any of its pools: a claim standing
// as a node would not hold the reservation.
func TestLocalSearchRefusesReservations(t *testing.T) {
	reserved, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:     "reserved",
		Labels:   map[string]string{apis.LabelArch: apis.ArchitectureAmd64, corev1.LabelOSStable: "linux"},
		Capacity: resources.New(4000, 16*gib, 110),
		Offerings: []instancetypes.Offering{
			{Zone: "test-1a", CapacityType: apis.CapacityTypeOnDemand, Price: 0.2, Available: true},
			{Zone: "test-1a", CapacityType: apis.CapacityTypeReserved, ReservationID: "cr-1", Price: 0.01, Available: true},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	plain := nodePool("plain", catalog(nodeType("small", 4, 16, 0.2)), nil)
	in := scheduling.Input{Pods: pods(3, "p", "1", "1Gi"), NodePools: []scheduling.Pool{plain}}
	if !optimize.LocalSearchReads(in, scheduling.Solve(in)) {
		t.Fatal("the local search refuses a plan without reservations")
	}
	in.NodePools = append(in.NodePools, nodePool("with-reservation", catalog(reserved), nil))
	if optimize.LocalSearchReads(in, scheduling.Solve(in)) {
		t.Fatal("the local search reads a plan whose NodePools may launch a reservation")
	}
}
