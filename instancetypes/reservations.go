package instancetypes

import (
	"time"
)

// ReservationAvailability counts the instances each capacity reservation
// can still launch, as the AWS provider's availability cache does: a count
// is recorded when EC2 reports it (Sync), lowered by one for each launch
// into the reservation and raised by one for each termination, so that
// offerings follow launches between two reports. A reservation never
// reported counts 0: its offerings are full. The zero value
// is empty and ready to use; it is not safe for concurrent use.
type ReservationAvailability struct {
	counts map[string]reservationCount
}

type reservationCount struct {
	available int
	syncedAt  time.Time
}

// Sync records the available instance count EC2 reported for the
// reservation at the given time, replacing what was counted before.
func (a *ReservationAvailability) Sync(id string, available int, at time.Time) {
	if a.counts == nil {
		a.counts = map[string]reservationCount{}
	}
	a.counts[id] = reservationCount{available: max(available, 0), syncedAt: at}
}

// Available is how many more instances the reservation can launch: 0 when
// it was never reported.
func (a *ReservationAvailability) Available(id string) int {
	if a == nil {
		return 0
	}
	return a.counts[id].available
}

// Known reports whether the reservation's count was ever reported.
func (a *ReservationAvailability) Known(id string) bool {
	if a == nil {
		return false
	}
	_, ok := a.counts[id]
	return ok
}

// MarkLaunched counts one launch into the reservation at the given time.
// A launch before the last report is already in it and is not counted
// again (upstream prefers to overestimate what is left), the count does
// not go below 0, and a reservation never reported is left alone.
func (a *ReservationAvailability) MarkLaunched(id string, at time.Time) {
	c, ok := a.counts[id]
	if !ok || c.syncedAt.After(at) || c.available == 0 {
		return
	}
	c.available--
	a.counts[id] = c
}

// MarkTerminated counts one instance of the reservation terminated: it
// can launch one more. A reservation never reported is left alone.
func (a *ReservationAvailability) MarkTerminated(id string) {
	c, ok := a.counts[id]
	if !ok {
		return
	}
	c.available++
	a.counts[id] = c
}

// MarkUnavailable sets the reservations' counts to 0, as a launch that EC2
// refused for lack of reserved capacity does.
func (a *ReservationAvailability) MarkUnavailable(ids ...string) {
	for _, id := range ids {
		if c, ok := a.counts[id]; ok {
			c.available = 0
			a.counts[id] = c
		}
	}
}
