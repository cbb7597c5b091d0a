package pricing

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"time"
)

// DefaultUnavailableTTL is how long an offering stays unavailable after an
// insufficient-capacity error: upstream's UnavailableOfferingsTTL
// (aws pkg/cache/cache.go).
const DefaultUnavailableTTL = 3 * time.Minute

// Scope says which offerings an UnavailableOffering covers.
type Scope uint8

const (
	// ScopeOffering covers one (capacity type, instance type, zone): EC2
	// returned an insufficient-capacity error for it.
	ScopeOffering Scope = iota
	// ScopeCapacityType covers every offering of one capacity type. Upstream
	// marks spot this way when the spot service-linked role cannot be
	// created.
	ScopeCapacityType
	// ScopeZone covers every offering in one zone. Upstream versions with an
	// AZ cache mark a zone this way when a launch finds a subnet out of IP
	// addresses; newer ones mark the subnet and block the zone once all of
	// its subnets are marked.
	ScopeZone
)

// String returns "offering", "capacity-type" or "zone".
func (s Scope) String() string {
	switch s {
	case ScopeOffering:
		return "offering"
	case ScopeCapacityType:
		return "capacity-type"
	case ScopeZone:
		return "zone"
	}
	return fmt.Sprintf("Scope(%d)", uint8(s))
}

// UnavailableOffering is one mark in UnavailableOfferings.
type UnavailableOffering struct {
	Scope Scope
	// CapacityType is set for ScopeOffering and ScopeCapacityType,
	// InstanceType for ScopeOffering, Zone for ScopeOffering and ScopeZone;
	// the others are empty.
	CapacityType, InstanceType, Zone string
	// ReservationID scopes a ScopeOffering mark of the reserved capacity
	// type to one capacity reservation (MarkReservationUnavailable); empty
	// otherwise.
	ReservationID string
	// Expires is the last instant at which the mark holds: an offering is
	// unavailable while now <= Expires, as in upstream's cache.
	Expires time.Time
}

// String reads like "offering spot/m5.large/us-east-1a until 2024-05-01T12:03:00Z".
func (o UnavailableOffering) String() string {
	var what string
	switch o.Scope {
	case ScopeCapacityType:
		what = o.CapacityType
	case ScopeZone:
		what = o.Zone
	default:
		what = o.CapacityType + "/" + o.InstanceType + "/" + o.Zone
		if o.ReservationID != "" {
			what += "/" + o.ReservationID
		}
	}
	return fmt.Sprintf("%s %s until %s", o.Scope, what, o.Expires.UTC().Format(time.RFC3339Nano))
}

// unavailableKey is an UnavailableOffering without its expiry.
type unavailableKey struct {
	scope                                           Scope
	capacityType, instanceType, zone, reservationID string
}

// UnavailableOfferings records offerings that returned an insufficient
// capacity error, each until an expiry, as Karpenter's ICE cache does. It
// holds no clock: every method takes the time. The zero value is empty and
// ready to use; a nil *UnavailableOfferings reads as empty.
//
// An offering is unavailable while its own mark, its capacity type's or its
// zone's has not expired. Marking again replaces the expiry with the new one,
// as upstream's cache does. A mark keeps only its expiry, so it also shows to
// a query dated before it was made; pass times that move forward.
//
// It is not safe for concurrent use; give each goroutine a Clone.
type UnavailableOfferings struct {
	// TTL is how long MarkUnavailable, MarkCapacityTypeUnavailable and
	// MarkZoneUnavailable last. Zero or negative means DefaultUnavailableTTL.
	TTL time.Duration

	expires map[unavailableKey]time.Time
	// typeSeq counts changes per instance type; wideSeq changes of capacity
	// type and zone marks, which affect every type; seq all changes.
	typeSeq map[string]uint64
	wideSeq uint64
	seq     uint64
}

// ttl is the effective TTL.
func (u *UnavailableOfferings) ttl() time.Duration {
	if u.TTL <= 0 {
		return DefaultUnavailableTTL
	}
	return u.TTL
}

// MarkUnavailable records that the offering (capacityType, instanceType,
// zone) returned an insufficient-capacity error at the given time; it stays
// unavailable for the TTL.
func (u *UnavailableOfferings) MarkUnavailable(capacityType, instanceType, zone string, at time.Time) {
	u.MarkUnavailableFor(capacityType, instanceType, zone, at, u.ttl())
}

// MarkUnavailableFor is MarkUnavailable with its own ttl, as upstream uses
// for a spot rebalance recommendation (ttl = the grace period). A negative
// ttl makes a mark that never holds.
func (u *UnavailableOfferings) MarkUnavailableFor(capacityType, instanceType, zone string, at time.Time, ttl time.Duration) {
	u.mark(unavailableKey{scope: ScopeOffering, capacityType: capacityType, instanceType: instanceType, zone: zone}, at.Add(ttl))
}

// MarkReservationUnavailable records that a launch into the capacity
// reservation (of instanceType in zone) returned an insufficient-capacity
// error at the given time, for the TTL: the AWS provider v1.15.0 keys such
// a mark by the reservation, so that another reservation of the same type
// and zone stays available, and leaves the reservation's count of
// instances it can still launch as it is (see IsReservationUnavailable).
// An empty reservationID marks the reserved offerings of the type and zone,
// as MarkUnavailable does.
func (u *UnavailableOfferings) MarkReservationUnavailable(instanceType, zone, reservationID string, at time.Time) {
	u.mark(unavailableKey{scope: ScopeOffering, capacityType: reservedCapacityType, instanceType: instanceType, zone: zone, reservationID: reservationID}, at.Add(u.ttl()))
}

// reservedCapacityType is karpenter.sh/capacity-type's value for capacity
// reservations (apis.CapacityTypeReserved; pricing does not import apis).
const reservedCapacityType = "reserved"

// IsReservationUnavailable reports whether the reserved offering of the
// reservation (of instanceType in zone) is unavailable at now: a mark of
// that reservation (MarkReservationUnavailable), or of the reserved
// capacity type, holds. Marks of other reservations, and of the type and
// zone without a reservation, do not count, as the AWS provider v1.15.0
// asks its cache only for the reservation's key.
func (u *UnavailableOfferings) IsReservationUnavailable(instanceType, zone, reservationID string, now time.Time) bool {
	if u == nil || len(u.expires) == 0 {
		return false
	}
	return u.holds(unavailableKey{scope: ScopeOffering, capacityType: reservedCapacityType, instanceType: instanceType, zone: zone, reservationID: reservationID}, now) ||
		u.holds(unavailableKey{scope: ScopeCapacityType, capacityType: reservedCapacityType}, now)
}

// IsOfferingUnavailable is IsReservationUnavailable for an offering of a
// capacity reservation (reservationID set) and IsUnavailable for any other.
func (u *UnavailableOfferings) IsOfferingUnavailable(capacityType, instanceType, zone, reservationID string, now time.Time) bool {
	if reservationID != "" {
		return u.IsReservationUnavailable(instanceType, zone, reservationID, now)
	}
	return u.IsUnavailable(capacityType, instanceType, zone, now)
}

// MarkCapacityTypeUnavailable makes every offering of capacityType
// unavailable for the TTL from the given time.
func (u *UnavailableOfferings) MarkCapacityTypeUnavailable(capacityType string, at time.Time) {
	u.mark(unavailableKey{scope: ScopeCapacityType, capacityType: capacityType}, at.Add(u.ttl()))
}

// MarkZoneUnavailable makes every offering in zone unavailable for the TTL
// from the given time.
func (u *UnavailableOfferings) MarkZoneUnavailable(zone string, at time.Time) {
	u.mark(unavailableKey{scope: ScopeZone, zone: zone}, at.Add(u.ttl()))
}

func (u *UnavailableOfferings) mark(key unavailableKey, expires time.Time) {
	if u.expires == nil {
		u.expires = make(map[unavailableKey]time.Time)
	}
	u.expires[key] = expires
	u.bump(key)
}

// bump advances the sequence numbers a change to key affects.
func (u *UnavailableOfferings) bump(key unavailableKey) {
	u.seq++
	if key.scope != ScopeOffering {
		u.wideSeq++
		return
	}
	if u.typeSeq == nil {
		u.typeSeq = make(map[string]uint64)
	}
	u.typeSeq[key.instanceType]++
}

// IsUnavailable reports whether the offering is unavailable at now: it, its
// capacity type or its zone has a mark that has not expired.
func (u *UnavailableOfferings) IsUnavailable(capacityType, instanceType, zone string, now time.Time) bool {
	if u == nil || len(u.expires) == 0 {
		return false
	}
	return u.holds(unavailableKey{scope: ScopeOffering, capacityType: capacityType, instanceType: instanceType, zone: zone}, now) ||
		u.holds(unavailableKey{scope: ScopeCapacityType, capacityType: capacityType}, now) ||
		u.holds(unavailableKey{scope: ScopeZone, zone: zone}, now)
}

func (u *UnavailableOfferings) holds(key unavailableKey, now time.Time) bool {
	expires, ok := u.expires[key]
	return ok && !now.After(expires)
}

// Entries returns the marks that hold at now, sorted by scope, capacity
// type, instance type, zone and reservation.
func (u *UnavailableOfferings) Entries(now time.Time) []UnavailableOffering {
	if u == nil {
		return []UnavailableOffering{}
	}
	entries := make([]UnavailableOffering, 0, len(u.expires))
	for _, key := range slices.SortedFunc(maps.Keys(u.expires), compareUnavailableKey) {
		if expires := u.expires[key]; !now.After(expires) {
			entries = append(entries, UnavailableOffering{
				Scope: key.scope, CapacityType: key.capacityType, InstanceType: key.instanceType,
				Zone: key.zone, ReservationID: key.reservationID, Expires: expires,
			})
		}
	}
	return entries
}

// Prune forgets the marks that have expired at now and returns how many.
// Each one forgotten advances the sequence numbers, as an eviction from
// upstream's cache does; call Prune before reading them so that expiries are
// seen.
func (u *UnavailableOfferings) Prune(now time.Time) int {
	if u == nil {
		return 0
	}
	pruned := 0
	for key, expires := range u.expires {
		if now.After(expires) {
			delete(u.expires, key)
			u.bump(key)
			pruned++
		}
	}
	return pruned
}

// compareUnavailableKey orders marks by scope, capacity type, instance
// type, zone and reservation.
func compareUnavailableKey(a, b unavailableKey) int {
	return cmp.Or(cmp.Compare(a.scope, b.scope), cmp.Compare(a.capacityType, b.capacityType),
		cmp.Compare(a.instanceType, b.instanceType), cmp.Compare(a.zone, b.zone), cmp.Compare(a.reservationID, b.reservationID))
}

// Seq returns a number that changes whenever a mark is made or pruned.
// Compare it with an earlier value to know whether anything derived from
// the marks must be recomputed.
func (u *UnavailableOfferings) Seq() uint64 {
	if u == nil {
		return 0
	}
	return u.seq
}

// SeqNum returns a number that changes whenever a mark that can affect
// instanceType is made or pruned: its own offerings, any capacity type, any
// zone. Upstream keys its instance-type cache on the same number.
func (u *UnavailableOfferings) SeqNum(instanceType string) uint64 {
	if u == nil {
		return 0
	}
	return u.typeSeq[instanceType] + u.wideSeq
}

// Clone returns an independent copy: marks on one do not show in the other.
func (u *UnavailableOfferings) Clone() *UnavailableOfferings {
	if u == nil {
		return &UnavailableOfferings{}
	}
	clone := *u
	clone.expires = maps.Clone(u.expires)
	clone.typeSeq = maps.Clone(u.typeSeq)
	return &clone
}
