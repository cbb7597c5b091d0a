package provider

import (
	"time"

	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/pricing"
)

// UnavailableOfferings is a provider's cache of offerings a launch found
// without capacity (or a spot interruption took away), which provisioning,
// launches and consolidation leave out until each mark expires. It holds
// no clock: every method takes the time, which must move forward.
type UnavailableOfferings interface {
	// MarkUnavailable records an insufficient-capacity answer for the
	// offering at the given time; the provider says for how long and what
	// else it covers.
	MarkUnavailable(capacityType, instanceType, zone string, at time.Time)
	// MarkReservationUnavailable records one for a launch into the
	// capacity reservation.
	MarkReservationUnavailable(instanceType, zone, reservationID string, at time.Time)
	IsReservationUnavailable(instanceType, zone, reservationID string, now time.Time) bool
	// IsOfferingUnavailable reports whether the offering (of the
	// reservation, when reservationID is set) is unavailable at now.
	IsOfferingUnavailable(capacityType, instanceType, zone, reservationID string, now time.Time) bool
	// Prune forgets the marks expired at now; Holds reports whether any
	// mark holds at now; Seq changes whenever a mark is made or pruned.
	Prune(now time.Time) int
	Holds(now time.Time) bool
	Seq() uint64
}

var (
	_ UnavailableOfferings = (*pricing.UnavailableOfferings)(nil)
	_ UnavailableOfferings = (*azure.LoopCache)(nil)
)

// NewUnavailableOfferings is Karpenter's insufficient-capacity cache,
// each mark for pricing.DefaultUnavailableTTL.
func (*AWS) NewUnavailableOfferings() UnavailableOfferings { return &pricing.UnavailableOfferings{} }

// NewUnavailableOfferings is the Azure provider's cache, whose marks cover
// the size's family too (azure.LoopCache).
func (*Azure) NewUnavailableOfferings() UnavailableOfferings { return &azure.LoopCache{} }
