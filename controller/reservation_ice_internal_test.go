package controller

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/pricing"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// A reserved launch refused for capacity marks the reservation it went
// into, the one of the zone with the most units left, and not the other
// reservation of the type and zone (AWS provider v1.15.0); that one is
// then the reserved override. An offering of another capacity type is
// marked by type and zone, as before.
func TestRefusedReservedLaunchMarksItsReservation(t *testing.T) {
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name: "m5.large", Labels: map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux"},
		Capacity: resources.New(2000, 8<<30, 29),
		Offerings: []instancetypes.Offering{
			{Zone: "us-east-1a", CapacityType: apis.CapacityTypeOnDemand, Price: 0.096, Available: true},
			{Zone: "us-east-1a", CapacityType: apis.CapacityTypeReserved, Price: 0.0000001, Available: true, ReservationID: "cr-a", ReservationCapacity: 1},
			{Zone: "us-east-1a", CapacityType: apis.CapacityTypeReserved, Price: 0.0000001, Available: true, ReservationID: "cr-b", ReservationCapacity: 3},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := instancetypes.NewCatalog(it)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	claim := scheduling.NodeClaim{Name: "default-1", NodePool: "default", InstanceType: "m5.large", Zone: "us-east-1a",
		CapacityType: apis.CapacityTypeReserved, LaunchOptions: []string{"m5.large"},
		Requirements: []corev1.NodeSelectorRequirement{{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.CapacityTypeReserved, apis.CapacityTypeOnDemand}}}}
	c := &Controller{unavailable: &pricing.UnavailableOfferings{}}
	reserved := cloud.OfferingKey{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: apis.CapacityTypeReserved}

	c.markRefused(reserved, claim, catalog, now)
	if !c.unavailable.IsReservationUnavailable("m5.large", "us-east-1a", "cr-b", now) {
		t.Error("cr-b, the reservation with the most units, is not marked")
	}
	if c.unavailable.IsReservationUnavailable("m5.large", "us-east-1a", "cr-a", now) {
		t.Error("cr-a is marked too")
	}
	if c.unavailable.IsOfferingUnavailable(apis.CapacityTypeOnDemand, "m5.large", "us-east-1a", "", now) {
		t.Error("the on-demand offering is marked")
	}
	// The next reserved launch goes to cr-a, and its refusal marks cr-a.
	if out := c.overrides(claim, &apis.NodePool{}, catalog, now); len(out) != 1 || out[0].CapacityType != apis.CapacityTypeReserved {
		t.Errorf("overrides %v, want the reserved offering of cr-a", out)
	}
	c.markRefused(reserved, claim, catalog, now)
	if !c.unavailable.IsReservationUnavailable("m5.large", "us-east-1a", "cr-a", now) {
		t.Error("cr-a is not marked")
	}
	if out := c.overrides(claim, &apis.NodePool{}, catalog, now); len(out) != 0 {
		t.Errorf("overrides %v after both reservations were refused, want none of the reserved capacity type", out)
	}
	c.markRefused(cloud.OfferingKey{InstanceType: "m5.large", Zone: "us-east-1a", CapacityType: apis.CapacityTypeOnDemand}, claim, catalog, now)
	if !c.unavailable.IsOfferingUnavailable(apis.CapacityTypeOnDemand, "m5.large", "us-east-1a", "", now) {
		t.Error("the refused on-demand offering is not marked")
	}
}
