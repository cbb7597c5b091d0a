package instancetypes

import (
	"fmt"
	"testing"
	"time"
)

// A termination reported again within TerminationDedupTTL counts once;
// after it, the instance counts again, and the instances remembered are
// forgotten once their time is over.
func TestReservationTerminationCountedOnce(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var a ReservationAvailability
	a.Sync("cr-x", 0, at)
	a.MarkTerminated("cr-x", "i-1", at)
	a.MarkTerminated("cr-x", "i-1", at.Add(TerminationDedupTTL))
	if got := a.Available("cr-x"); got != 1 {
		t.Fatalf("count %d after one termination reported twice, want 1", got)
	}
	a.MarkTerminated("cr-x", "i-1", at.Add(TerminationDedupTTL+time.Second))
	if got := a.Available("cr-x"); got != 2 {
		t.Fatalf("count %d once the instance was forgotten, want 2", got)
	}
	for i := range 200 {
		a.MarkTerminated("cr-y", fmt.Sprintf("old-%d", i), at)
	}
	later := at.Add(time.Hour)
	for i := range 200 {
		a.MarkTerminated("cr-y", fmt.Sprintf("new-%d", i), later)
	}
	if n := len(a.terminated); n > 300 {
		t.Errorf("%d instances remembered, the expired ones are not forgotten", n)
	}
	a.MarkTerminated("cr-y", "new-0", later)
	if _, ok := a.terminated["new-0"]; !ok {
		t.Error("a recent instance was forgotten")
	}
}
