package azure

import (
	"errors"
	"testing"
	"time"

	"github.com/karpsim/karpsim/apis"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestUnavailableFamilyMarks(t *testing.T) {
	u := &UnavailableOfferings{}
	// Standard_D4s_v3 (4 vCPUs) and Standard_D64s_v3 are both of the
	// standardDSv3Family; Standard_D2s_v3 has 2 vCPUs.
	u.Mark("Standard_D4s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, t0, time.Minute)
	for _, tc := range []struct {
		size, zone, ct string
		at             time.Time
		want           bool
	}{
		{"Standard_D4s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, t0, true},
		{"Standard_D64s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, t0, true},
		{"Standard_D2s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, t0, false},
		{"Standard_D64s_v3", "southcentralus-2", apis.CapacityTypeOnDemand, t0, false},
		{"Standard_D64s_v3", "southcentralus-1", apis.CapacityTypeSpot, t0, false},
		{"Standard_D4s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, t0.Add(time.Minute), true},
		{"Standard_D4s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, t0.Add(time.Minute + 1), false},
	} {
		if got := u.IsUnavailable(tc.size, tc.zone, tc.ct, tc.at); got != tc.want {
			t.Errorf("%s %s %s at %v: unavailable %v, want %v", tc.ct, tc.size, tc.zone, tc.at.Sub(t0), got, tc.want)
		}
	}
	// A larger size marked later keeps the lower bound.
	u.Mark("Standard_D64s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, t0, time.Hour)
	if !u.IsUnavailable("Standard_D8s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, t0.Add(30*time.Minute)) {
		t.Error("the family's bound rose to the larger size's vCPUs")
	}
	u.MarkSpot(t0, time.Minute)
	if !u.IsUnavailable("Standard_D2s_v3", "0", apis.CapacityTypeSpot, t0) || u.IsUnavailable("Standard_D2s_v3", "0", apis.CapacityTypeOnDemand, t0) {
		t.Error("spot marked everywhere: want every spot offering, and no on-demand one, unavailable")
	}
	u.Flush()
	if u.IsUnavailable("Standard_D4s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, t0) {
		t.Error("flushed, an offering is still unavailable")
	}
	var none *UnavailableOfferings
	if none.IsUnavailable("Standard_D4s_v3", "0", apis.CapacityTypeSpot, t0) {
		t.Error("a nil cache marks an offering")
	}
}

func TestHandleLaunchError(t *testing.T) {
	c := mustCatalog(t, "southcentralus", Settings{})
	it := mustGet(t, c, "Standard_D2s_v3")
	u := &UnavailableOfferings{}
	f, err := u.HandleLaunchError(ErrAllocationFailed, it, "southcentralus-2", apis.CapacityTypeSpot, t0)
	if err != nil {
		t.Fatal(err)
	}
	if f.Reason != "AllocationFailure" || errors.Is(f, ErrInsufficientCapacity) {
		t.Errorf("failure %v", f)
	}
	for _, o := range it.Offerings {
		if got, want := u.IsUnavailable(it.Name, o.Zone, o.CapacityType, t0), o.Zone != RegionalZone; got != want {
			t.Errorf("after an allocation failure in a zone, %s in %s: unavailable %v, want %v", o.CapacityType, o.Zone, got, want)
		}
	}
	applied := u.Apply(c, t0)
	if got := mustGet(t, applied, it.Name); got == it || !got.Offerings[0].Available {
		t.Errorf("Apply: a copy with zone 0 still available wanted, got %+v", got.Offerings[:2])
	}
	for _, o := range it.Offerings {
		if !o.Available && o.CapacityType == apis.CapacityTypeOnDemand {
			t.Error("Apply changed the catalog it was given")
		}
	}
	f, err = u.HandleLaunchError(ErrRegionalQuota, it, "0", apis.CapacityTypeOnDemand, t0)
	if err != nil || !errors.Is(f, ErrInsufficientCapacity) {
		t.Errorf("regional quota: %v, %v", f, err)
	}
	if _, err := u.HandleLaunchError(ErrAllocationFailed, it, "eastus-1", apis.CapacityTypeSpot, t0); err == nil {
		t.Error("an offering the size lacks: no error")
	}
	if _, err := u.HandleLaunchError(LaunchError(99), it, "0", apis.CapacityTypeSpot, t0); err == nil {
		t.Error("an unknown launch error: no error")
	}
	if _, err := u.HandleLaunchError(ErrAllocationFailed, nil, "0", apis.CapacityTypeSpot, t0); err == nil {
		t.Error("no instance type: no error")
	}
}
