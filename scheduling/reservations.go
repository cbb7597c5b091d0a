package scheduling

import (
	"errors"
	"iter"
	"math"
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// reservations tracks capacity reservations during a solve, as Karpenter's
// reservation manager does: each claim holds one unit of every reserved
// offering it could launch into, since which one it launches is not known
// until the end (reference §1, "Launch decision").
type reservations struct {
	capacity map[string]int             // reservation ID → units left
	held     map[string]map[string]bool // claim hostname → reservation IDs
	// credited are the reservations Options.ReservationCredit gave units
	// back: held like reservations with units, even from offerings that
	// have none.
	credited map[string]bool
}

// errReservationsExhausted marks a failure to reserve capacity: Karpenter
// neither relaxes the pod's preferences nor falls back to other capacity
// types for it, since the reservations may free up on a later pass.
var errReservationsExhausted = errors.New("reserved capacity exhausted")

// errReservationsFull is the refusal, outside Karpenter's provisioning mode,
// of a claim whose only offerings are reservations already full: the pod
// goes on to the next NodePool.
var errReservationsFull = errors.New("every capacity reservation these instance types could launch into is full, and no other capacity type is allowed")

func newReservations(templates []*template, credit map[string]int) *reservations {
	r := &reservations{capacity: map[string]int{}, held: map[string]map[string]bool{}}
	for _, t := range templates {
		if t.memo != nil {
			r.addReserved(t)
			continue
		}
		for _, o := range t.options {
			for _, of := range o.it.Offerings {
				if of.CapacityType != apis.CapacityTypeReserved || of.ReservationID == "" {
					continue
				}
				t.reserved = true
				// Several catalogs may list one reservation: the smallest
				// capacity wins, as upstream takes it.
				if n, ok := r.capacity[of.ReservationID]; !ok || of.ReservationCapacity < n {
					r.capacity[of.ReservationID] = of.ReservationCapacity
				}
			}
		}
	}
	r.credit(credit)
	return r
}

// credit gives the known reservations their credited units, saturating
// at the largest int.
func (r *reservations) credit(credit map[string]int) {
	for id, n := range credit {
		left, known := r.capacity[id]
		if !known || n <= 0 {
			continue
		}
		if r.credited == nil {
			r.credited = map[string]bool{}
		}
		r.credited[id] = true
		r.capacity[id] = left + min(n, math.MaxInt-left)
	}
}

// full reports whether the reserved offering has no unit to hold: none
// left in its catalog and none credited.
func (r *reservations) full(of *instancetypes.Offering) bool {
	return of.ReservationCapacity == 0 && !r.credited[of.ReservationID]
}

// reserve holds, for the claim with this hostname, every reserved offering
// of the options the filter allows, and lets go of those it no longer
// allows. With strict (Karpenter's provisioning mode) it fails when some
// option has a compatible reserved offering with units but none can be
// held, or when the claim would lose every reservation it held; the claim's
// holdings are then unchanged. A reservation that was full before the solve
// (available, no unit left) is neither held nor waited for; when such
// reservations are all the options offer, strict fails as for units held
// elsewhere (the pod waits) and fallback fails with errReservationsFull (the
// pod goes to another NodePool), as Karpenter v1.15.0's offeringsToReserve
// does since it tells a reservation's health from its count.
func (r *reservations) reserve(hostname string, options []*typeOption, f *offeringFilter, strict bool) error {
	if r.onlyFull(options, f) {
		if strict {
			return errReservationsExhausted
		}
		return errReservationsFull
	}
	before := r.held[hostname]
	now := map[string]bool{}
	compatible := false
	for of := range reservedOfferings(options, f) {
		if r.full(of) {
			continue
		}
		compatible = true
		if before[of.ReservationID] || now[of.ReservationID] || r.capacity[of.ReservationID] > 0 {
			now[of.ReservationID] = true
		}
	}
	if strict && ((compatible && len(now) == 0) || (len(before) > 0 && len(now) == 0)) {
		return errReservationsExhausted
	}
	for id := range now {
		if !before[id] {
			r.capacity[id]--
		}
	}
	for id := range before {
		if !now[id] {
			r.capacity[id]++
		}
	}
	if len(now) == 0 {
		delete(r.held, hostname)
	} else {
		r.held[hostname] = now
	}
	return nil
}

// wouldFail reports, without holding anything, whether reserve would fail.
func (r *reservations) wouldFail(hostname string, options []*typeOption, f *offeringFilter) bool {
	if r.onlyFull(options, f) {
		return true
	}
	before := r.held[hostname]
	compatible, reservable := false, false
	for of := range reservedOfferings(options, f) {
		if r.full(of) {
			continue
		}
		compatible = true
		reservable = reservable || before[of.ReservationID] || r.capacity[of.ReservationID] > 0
	}
	return (compatible || len(before) > 0) && !reservable
}

// onlyFull reports whether the only available offerings of the options that
// the filter allows are reserved ones with no unit left (see full).
func (r *reservations) onlyFull(options []*typeOption, f *offeringFilter) bool {
	full := false
	for _, o := range options {
		for i := range o.it.Offerings {
			of := &o.it.Offerings[i]
			if !of.Available || !f.allows(of) {
				continue
			}
			if of.CapacityType != apis.CapacityTypeReserved || !r.full(of) {
				return false
			}
			full = true
		}
	}
	return full
}

// reservedOfferings yields the available reserved offerings of the options
// that the filter allows.
func reservedOfferings(options []*typeOption, f *offeringFilter) iter.Seq[*instancetypes.Offering] {
	return func(yield func(*instancetypes.Offering) bool) {
		for _, o := range options {
			for i := range o.it.Offerings {
				of := &o.it.Offerings[i]
				if of.CapacityType == apis.CapacityTypeReserved && of.Available && f.allows(of) && !yield(of) {
					return
				}
			}
		}
	}
}

// release lets go of everything the claim with this hostname holds.
func (r *reservations) release(hostname string) {
	for id := range r.held[hostname] {
		r.capacity[id]++
	}
	delete(r.held, hostname)
}

// heldIDs returns the reservation IDs the claim holds, sorted.
func (r *reservations) heldIDs(hostname string) []string {
	ids := make([]string, 0, len(r.held[hostname]))
	for id := range r.held[hostname] {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
