package controller

import (
	"cmp"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/pricing"
	"github.com/karpsim/karpsim/scheduling"
)

// TestOverridesAreWhatTheAWSProviderSends checks the CreateFleet overrides
// of a claim over 100 launch types, each offered spot in two zones and on
// demand in three at one price: the 60-type cap, the capacity-type
// priority (reserved, then spot, then on-demand) and the spot filter, which
// minValues turns off.
func TestOverridesAreWhatTheAWSProviderSends(t *testing.T) {
	catalog := instancetypes.Fake(100)
	var names []string
	for _, it := range catalog {
		names = append(names, it.Name)
	}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	claimOf := func(capacityType string, allowed ...string) scheduling.NodeClaim {
		return scheduling.NodeClaim{Name: "default-1", NodePool: "default", InstanceType: "fake-it-0", Zone: "test-zone-1",
			CapacityType: capacityType, LaunchOptions: names,
			Requirements: []corev1.NodeSelectorRequirement{{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: allowed}}}
	}
	pool := &apis.NodePool{}
	withMinValues := &apis.NodePool{}
	withMinValues.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
		{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpExists, MinValues: new(5)}}
	summary := func(out []cloud.Override) (types int, capacityTypes []string) {
		seen := map[string]bool{}
		for _, o := range out {
			seen[o.InstanceType] = true
			if !slices.Contains(capacityTypes, o.CapacityType) {
				capacityTypes = append(capacityTypes, o.CapacityType)
			}
		}
		return len(seen), capacityTypes
	}
	c := &Controller{unavailable: &pricing.UnavailableOfferings{}}

	// Spot and on-demand allowed: a spot fleet, its offerings no dearer
	// than the cheapest on-demand one (fake-it-0's, at the same price).
	out := c.overrides(claimOf(apis.CapacityTypeSpot, "spot", "on-demand"), pool, catalog, now)
	types, cts := summary(out)
	if types != 1 || len(out) != 2 || !slices.Equal(cts, []string{"spot"}) {
		t.Errorf("spot filter: %d types, %d overrides, %v; want fake-it-0 spot in two zones", types, len(out), cts)
	}
	// minValues turns the spot filter off: every type's spot offerings, up
	// to the 60-type cap, cheapest first.
	out = c.overrides(claimOf(apis.CapacityTypeSpot, "spot", "on-demand"), withMinValues, catalog, now)
	types, cts = summary(out)
	if types != instancetypes.MaxLaunchOptions || len(out) != 2*instancetypes.MaxLaunchOptions || !slices.Equal(cts, []string{"spot"}) {
		t.Errorf("minValues: %d types, %d overrides, %v; want 60 types' spot offerings", types, len(out), cts)
	}
	if !slices.IsSortedFunc(out, func(a, b cloud.Override) int { return cmp.Compare(a.PricePerHour, b.PricePerHour) }) || out[0].InstanceType != "fake-it-0" {
		t.Errorf("overrides not cheapest first: %v", out[:3])
	}
	// The provider prefers spot whatever the scheduler chose, while spot is
	// allowed and offered.
	out = c.overrides(claimOf(apis.CapacityTypeOnDemand, "spot", "on-demand"), pool, catalog, now)
	if _, cts = summary(out); !slices.Equal(cts, []string{"spot"}) {
		t.Errorf("capacity types %v, want spot first", cts)
	}
	// With fake-it-0's spot offerings out of capacity, no spot offering
	// is as cheap as on-demand: an on-demand fleet of 60 types in three
	// zones.
	for _, zone := range []string{"test-zone-1", "test-zone-2"} {
		c.unavailable.MarkUnavailable(apis.CapacityTypeSpot, "fake-it-0", zone, now)
	}
	out = c.overrides(claimOf(apis.CapacityTypeOnDemand, "spot", "on-demand"), pool, catalog, now)
	types, cts = summary(out)
	if types != instancetypes.MaxLaunchOptions || len(out) != 3*instancetypes.MaxLaunchOptions || !slices.Equal(cts, []string{"on-demand"}) {
		t.Errorf("spot unavailable: %d types, %d overrides, %v; want 60 types on demand in three zones", types, len(out), cts)
	}

	// A claim launching into a reservation sends only reserved offerings.
	reserved := *catalog[0]
	reserved.Offerings = append(slices.Clone(reserved.Offerings), instancetypes.Offering{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved,
		Price: 0.0001, Available: true, ReservationID: "cr-1", ReservationCapacity: 2})
	withReservation, err := instancetypes.NewCatalog(append([]*instancetypes.InstanceType{&reserved}, catalog[1:]...)...)
	if err != nil {
		t.Fatal(err)
	}
	claim := claimOf(apis.CapacityTypeReserved, "reserved", "spot", "on-demand")
	out = c.overrides(claim, pool, withReservation, now)
	if want := []cloud.Override{{InstanceType: "fake-it-0", Zone: "test-zone-1", CapacityType: "reserved", PricePerHour: 0.0001}}; !slices.Equal(out, want) {
		t.Errorf("reserved: %v, want %v", out, want)
	}
}
