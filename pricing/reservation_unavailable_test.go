package pricing

import (
	"testing"
	"time"
)

// A reservation's mark holds for that reservation only: not for another
// of the same type and zone, nor for the type and zone's other capacity
// types; a mark of the reserved capacity type holds for every reservation.
// Marks of the type and zone without a reservation do not hold for one.
func TestReservationScopedMarks(t *testing.T) {
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	u := &UnavailableOfferings{}
	u.MarkReservationUnavailable("m5.large", "us-east-1a", "cr-a", at)
	checks := []struct {
		name string
		got  bool
		want bool
	}{
		{"cr-a", u.IsReservationUnavailable("m5.large", "us-east-1a", "cr-a", at), true},
		{"cr-a after the TTL", u.IsReservationUnavailable("m5.large", "us-east-1a", "cr-a", at.Add(DefaultUnavailableTTL+time.Second)), false},
		{"cr-b", u.IsReservationUnavailable("m5.large", "us-east-1a", "cr-b", at), false},
		{"reserved without a reservation", u.IsUnavailable("reserved", "m5.large", "us-east-1a", at), false},
		{"on-demand", u.IsOfferingUnavailable("on-demand", "m5.large", "us-east-1a", "", at), false},
		{"cr-a as an offering", u.IsOfferingUnavailable("reserved", "m5.large", "us-east-1a", "cr-a", at), true},
	}
	u.MarkUnavailable("reserved", "m5.large", "us-east-1b", at)
	checks = append(checks, struct {
		name string
		got  bool
		want bool
	}{"an unscoped reserved mark", u.IsReservationUnavailable("m5.large", "us-east-1b", "cr-c", at), false})
	u.MarkCapacityTypeUnavailable("reserved", at)
	checks = append(checks, struct {
		name string
		got  bool
		want bool
	}{"the reserved capacity type", u.IsReservationUnavailable("m5.large", "us-east-1b", "cr-c", at), true})
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: unavailable %v, want %v", c.name, c.got, c.want)
		}
	}
	entries := u.Entries(at)
	if len(entries) != 3 || entries[0].String() != "offering reserved/m5.large/us-east-1a/cr-a until 2026-11-01T00:03:00Z" {
		t.Errorf("entries %v", entries)
	}
}
