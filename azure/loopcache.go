package azure

import (
	"time"

	"github.com/karpsim/karpsim/apis"
)

// LoopCache is the provider's UnavailableOfferings as Karpenter's loop asks
// it (provider.UnavailableOfferings): by capacity type, size and zone, with
// a sequence number that changes with the marks. A launch's
// insufficient-capacity answer is Azure's allocation failure in the
// launch's zone (ZonalAllocationFailed; AllocationFailed in the regional
// zone "0", whose scope is that zone alone): the size there, on demand and
// spot, for AllocationFailureTTL, and with it the size's family there from
// its vCPU count up. A spot interruption, which the Azure provider has no
// controller for, is marked the same way. Azure sells no capacity
// reservations: a reservation's mark is its offering's, for
// UnavailableTTL. The zero value is empty and ready to use.
type LoopCache struct {
	u   UnavailableOfferings
	seq uint64
}

// MarkUnavailable marks an allocation failure of the size in zone at the
// given time; capacityType does not narrow it, as the provider marks both.
func (c *LoopCache) MarkUnavailable(_, size, zone string, at time.Time) {
	for _, ct := range []string{apis.CapacityTypeOnDemand, apis.CapacityTypeSpot} {
		c.u.Mark(size, zone, ct, at, AllocationFailureTTL)
	}
	c.seq++
}

// MarkReservationUnavailable marks the size's reserved offering in zone.
func (c *LoopCache) MarkReservationUnavailable(size, zone, _ string, at time.Time) {
	c.u.Mark(size, zone, apis.CapacityTypeReserved, at, UnavailableTTL)
	c.seq++
}

// IsReservationUnavailable reports whether the size's reserved offering in
// zone is marked at now.
func (c *LoopCache) IsReservationUnavailable(size, zone, _ string, now time.Time) bool {
	return c.u.IsUnavailable(size, zone, apis.CapacityTypeReserved, now)
}

// IsOfferingUnavailable reports whether the offering is unavailable at now
// (UnavailableOfferings.IsUnavailable).
func (c *LoopCache) IsOfferingUnavailable(capacityType, size, zone, _ string, now time.Time) bool {
	return c.u.IsUnavailable(size, zone, capacityType, now)
}

// Prune forgets the marks that have expired at now and returns how many;
// each advances the sequence number.
func (c *LoopCache) Prune(now time.Time) int {
	n := 0
	for key, expires := range c.u.offerings {
		if now.After(expires) {
			delete(c.u.offerings, key)
			n++
		}
	}
	for key, m := range c.u.families {
		if now.After(m.expires) {
			delete(c.u.families, key)
			n++
		}
	}
	if !c.u.spot.IsZero() && now.After(c.u.spot) {
		c.u.spot = time.Time{}
		n++
	}
	c.seq += uint64(n)
	return n
}

// Holds reports whether any mark holds at now.
func (c *LoopCache) Holds(now time.Time) bool {
	if !c.u.spot.IsZero() && !now.After(c.u.spot) {
		return true
	}
	for _, expires := range c.u.offerings {
		if !now.After(expires) {
			return true
		}
	}
	for _, m := range c.u.families {
		if !now.After(m.expires) {
			return true
		}
	}
	return false
}

// Seq changes whenever a mark is made or pruned.
func (c *LoopCache) Seq() uint64 { return c.seq }
