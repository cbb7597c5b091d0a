package azure

import (
	"testing"
	"time"

	"github.com/karpsim/karpsim/apis"
)

// An insufficient-capacity mark is an allocation failure: the size in the
// zone, both capacity types, and its family from its vCPU count up, for an
// hour; Prune forgets it after, advancing the sequence number.
func TestLoopCacheMarksAnAllocationFailure(t *testing.T) {
	var c LoopCache
	if c.Holds(t0) || c.Seq() != 0 {
		t.Fatal("a new cache holds marks")
	}
	c.MarkUnavailable(apis.CapacityTypeSpot, "Standard_D4s_v3", "southcentralus-1", t0)
	seq := c.Seq()
	for _, tc := range []struct {
		size, zone, ct string
		want           bool
	}{
		{"Standard_D4s_v3", "southcentralus-1", apis.CapacityTypeSpot, true},
		{"Standard_D4s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, true},
		{"Standard_D64s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, true},
		{"Standard_D2s_v3", "southcentralus-1", apis.CapacityTypeOnDemand, false},
		{"Standard_D4s_v3", "southcentralus-2", apis.CapacityTypeSpot, false},
	} {
		if got := c.IsOfferingUnavailable(tc.ct, tc.size, tc.zone, "", t0.Add(AllocationFailureTTL)); got != tc.want {
			t.Errorf("%s %s %s: unavailable %v, want %v", tc.ct, tc.size, tc.zone, got, tc.want)
		}
	}
	if !c.Holds(t0.Add(AllocationFailureTTL)) || c.Prune(t0.Add(AllocationFailureTTL)) != 0 || c.Seq() != seq {
		t.Error("the marks hold for AllocationFailureTTL")
	}
	after := t0.Add(AllocationFailureTTL + time.Nanosecond)
	if c.Holds(after) || c.IsOfferingUnavailable(apis.CapacityTypeSpot, "Standard_D4s_v3", "southcentralus-1", "", after) {
		t.Error("a mark holds past its hour")
	}
	// Two offerings and two family marks are forgotten.
	if n := c.Prune(after); n != 4 || c.Seq() != seq+4 {
		t.Errorf("Prune forgot %d marks, seq %d; want 4, %d", n, c.Seq(), seq+4)
	}
	c.MarkReservationUnavailable("Standard_D4s_v3", "southcentralus-1", "r-1", after)
	if !c.IsReservationUnavailable("Standard_D4s_v3", "southcentralus-1", "r-1", after) ||
		c.IsOfferingUnavailable(apis.CapacityTypeOnDemand, "Standard_D4s_v3", "southcentralus-1", "", after) {
		t.Error("a reservation's mark covers the reserved offering alone")
	}
}
