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
	// terminated remembers, by instance ID, when each termination was
	// counted, for TerminationDedupTTL; the expired are forgotten once it
	// holds sweepAt instances.
	terminated map[string]time.Time
	sweepAt    int
}

// TerminationDedupTTL is how long a terminated instance is remembered
// once its reservation got its unit back: the AWS provider v1.15.0 keeps
// instance IDs this long (terminatedInstanceTTL), so that the repeated
// reports of one termination count once.
const TerminationDedupTTL = 15 * time.Minute

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

// MarkTerminated counts the instance (instanceID) of the reservation
// terminated at the given time: the reservation can launch one more. The
// same instance reported again within TerminationDedupTTL of the report
// that counted is not counted again (AWS provider v1.15.0: a deletion goes
// on returning "not found" once the instance is gone). A reservation never
// reported is left alone, though the instance is remembered.
func (a *ReservationAvailability) MarkTerminated(id, instanceID string, at time.Time) {
	if counted, ok := a.terminated[instanceID]; ok && !at.After(counted.Add(TerminationDedupTTL)) {
		return
	}
	if a.terminated == nil {
		a.terminated = map[string]time.Time{}
	}
	if len(a.terminated) >= max(a.sweepAt, 64) {
		for other, counted := range a.terminated {
			if at.After(counted.Add(TerminationDedupTTL)) {
				delete(a.terminated, other)
			}
		}
		a.sweepAt = 2 * len(a.terminated)
	}
	a.terminated[instanceID] = at
	c, ok := a.counts[id]
	if !ok {
		return
	}
	c.available++
	a.counts[id] = c
}

// MarkUnavailable sets the reservations' counts to 0, as a launch that EC2
// refused because the reservation is full (ReservationCapacityExceeded)
// does until the next report (AWS provider v1.15.0); an
// insufficient-capacity error on a reservation leaves its count and makes
// it unavailable instead (pricing.UnavailableOfferings.MarkReservationUnavailable).
func (a *ReservationAvailability) MarkUnavailable(ids ...string) {
	for _, id := range ids {
		if c, ok := a.counts[id]; ok {
			c.available = 0
			a.counts[id] = c
		}
	}
}
