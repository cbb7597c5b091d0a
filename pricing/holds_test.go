package pricing

import (
	"testing"
	"time"
)

func TestHolds(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var nilCache *UnavailableOfferings
	u := &UnavailableOfferings{}
	if nilCache.Holds(t0) || u.Holds(t0) {
		t.Fatal("an empty cache holds a mark")
	}
	u.MarkZoneUnavailable("us-east-1a", t0)
	if !u.Holds(t0.Add(DefaultUnavailableTTL)) || u.Holds(t0.Add(DefaultUnavailableTTL+1)) {
		t.Error("Holds disagrees with the mark's expiry")
	}
}
