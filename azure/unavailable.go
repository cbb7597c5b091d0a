package azure

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// How long the provider keeps an offering unavailable, by what made it so.
const (
	// UnavailableTTL is the default: an offering marked without a reason.
	UnavailableTTL = 3 * time.Minute
	// LowQuotaTTL follows a family's vCPU quota running out.
	LowQuotaTTL = 10 * time.Minute
	// QuotaReachedTTL follows a quota of zero, or spot's regional quota.
	QuotaReachedTTL = time.Hour
	// AllocationFailureTTL follows Azure failing to allocate capacity.
	AllocationFailureTTL = time.Hour
	// SKUNotAvailableSpotTTL and SKUNotAvailableOnDemandTTL follow Azure
	// saying a size is not available to the subscription.
	SKUNotAvailableSpotTTL     = time.Hour
	SKUNotAvailableOnDemandTTL = 23 * time.Hour
)

// UnavailableOfferings is the Azure provider's cache of offerings a launch
// error made unavailable. Unlike Karpenter's AWS cache, marking an offering
// also marks its VM family in that zone and capacity type from the size's
// vCPU count up: every size of the family with as many vCPUs or more is
// unavailable there too. Spot can be marked unavailable everywhere.
//
// It holds no clock: every method takes the time, and a mark holds while
// now is not after its expiry. The zero value is empty and ready to use; a
// nil *UnavailableOfferings reads as empty. It is not safe for concurrent
// use.
type UnavailableOfferings struct {
	offerings map[offeringKey]time.Time
	families  map[offeringKey]familyMark
	spot      time.Time
}

// offeringKey is a size (or a family, lower-cased) in a zone with a
// capacity type.
type offeringKey struct{ name, zone, capacityType string }

// familyMark blocks a family's sizes of minVCPUs or more (all of them when
// minVCPUs is wholeFamily) until expires.
type familyMark struct {
	minVCPUs int64
	expires  time.Time
}

const wholeFamily = -1

// Mark makes the offering (size, zone, capacity type) unavailable for ttl
// from at, and with it the size's family in that zone and capacity type
// from its vCPU count up, as the provider does on every mark. A family
// mark keeps the lower vCPU bound of the one it replaces, if that still
// holds.
func (u *UnavailableOfferings) Mark(size, zone, capacityType string, at time.Time, ttl time.Duration) {
	if u.offerings == nil {
		u.offerings = map[offeringKey]time.Time{}
		u.families = map[offeringKey]familyMark{}
	}
	expires := at.Add(ttl)
	u.offerings[offeringKey{size, zone, capacityType}] = expires
	f, ok := sizeFamilies()[size]
	if !ok || f.family == "" {
		return
	}
	key := offeringKey{f.family, zone, capacityType}
	bound := f.vcpus
	if old, ok := u.families[key]; ok && !at.After(old.expires) && old.minVCPUs <= bound {
		bound = old.minVCPUs
	}
	u.families[key] = familyMark{minVCPUs: bound, expires: expires}
}

// MarkSpot makes every spot offering unavailable for ttl from at.
func (u *UnavailableOfferings) MarkSpot(at time.Time, ttl time.Duration) { u.spot = at.Add(ttl) }

// Flush forgets every mark, as the provider's cache does when flushed.
func (u *UnavailableOfferings) Flush() { *u = UnavailableOfferings{} }

// IsUnavailable reports whether the offering is unavailable at now: spot
// everywhere, its family from a vCPU count it reaches, or the offering
// itself.
func (u *UnavailableOfferings) IsUnavailable(size, zone, capacityType string, now time.Time) bool {
	if u == nil {
		return false
	}
	if capacityType == apis.CapacityTypeSpot && !u.spot.IsZero() && !now.After(u.spot) {
		return true
	}
	if f, ok := sizeFamilies()[size]; ok && f.family != "" {
		if m, ok := u.families[offeringKey{f.family, zone, capacityType}]; ok && !now.After(m.expires) &&
			(m.minVCPUs == wholeFamily || f.vcpus >= m.minVCPUs) {
			return true
		}
	}
	expires, ok := u.offerings[offeringKey{size, zone, capacityType}]
	return ok && !now.After(expires)
}

// Apply returns the catalog with the offerings unavailable at now marked
// not Available; types with none are the catalog's own, the others copies
// (requirements list every offering, available or not, so a copy with new
// offerings stays consistent). The catalog is not changed.
func (u *UnavailableOfferings) Apply(c instancetypes.Catalog, now time.Time) instancetypes.Catalog {
	out := make(instancetypes.Catalog, len(c))
	for i, it := range c {
		out[i] = it
		var offerings []instancetypes.Offering
		for j, o := range it.Offerings {
			if o.Available && u.IsUnavailable(it.Name, o.Zone, o.CapacityType, now) {
				if offerings == nil {
					offerings = slices.Clone(it.Offerings)
				}
				offerings[j].Available = false
			}
		}
		if offerings != nil {
			cp := *it
			cp.Offerings = offerings
			out[i] = &cp
		}
	}
	return out
}

// LaunchError is a kind of error Azure answers a VM create request with,
// as the provider tells them apart.
type LaunchError int

// The launch errors the provider handles.
const (
	// ErrLowPriorityQuota: the subscription's regional spot vCPU quota is
	// reached.
	ErrLowPriorityQuota LaunchError = iota + 1
	// ErrFamilyQuota and ErrFamilyQuotaZero: the size family's vCPU quota
	// is reached, or is zero.
	ErrFamilyQuota
	ErrFamilyQuotaZero
	// ErrSKUNotAvailable: the size is not available to the subscription
	// (in that placement, with that capacity type).
	ErrSKUNotAvailable
	// ErrZonalAllocationFailed: Azure could not allocate in the zone.
	ErrZonalAllocationFailed
	// ErrAllocationFailed: Azure could not allocate the size.
	ErrAllocationFailed
	// ErrOverconstrainedZonalAllocation: too constrained in the zone.
	ErrOverconstrainedZonalAllocation
	// ErrOverconstrainedAllocation: too constrained in every zone.
	ErrOverconstrainedAllocation
	// ErrRegionalQuota: the subscription's regional vCPU quota is reached.
	ErrRegionalQuota
)

var launchErrorNames = map[LaunchError]string{
	ErrLowPriorityQuota: "LowPriorityQuota", ErrFamilyQuota: "FamilyQuota", ErrFamilyQuotaZero: "FamilyQuotaZero",
	ErrSKUNotAvailable: "SKUNotAvailable", ErrZonalAllocationFailed: "ZonalAllocationFailed", ErrAllocationFailed: "AllocationFailed",
	ErrOverconstrainedZonalAllocation: "OverconstrainedZonalAllocation", ErrOverconstrainedAllocation: "OverconstrainedAllocation",
	ErrRegionalQuota: "RegionalQuota",
}

// String is the error's name, as in ErrAllocationFailed without "Err".
func (e LaunchError) String() string {
	if n, ok := launchErrorNames[e]; ok {
		return n
	}
	return fmt.Sprintf("LaunchError(%d)", int(e))
}

// ErrInsufficientCapacity is wrapped by the LaunchFailure of an error
// Karpenter treats as insufficient capacity (the regional quota): it
// deletes the NodeClaim and provisions again.
var ErrInsufficientCapacity = errors.New("insufficient capacity")

// LaunchFailure is a launch that failed: the error, the offering it was
// for, and the reason the provider gives.
type LaunchFailure struct {
	Err                        LaunchError
	Size, Zone, CapacityType   string
	Reason                     string
	insufficientCapacityReason bool
}

func (f *LaunchFailure) Error() string {
	return fmt.Sprintf("launching %s %s in zone %s: %s (%s)", f.CapacityType, f.Size, f.Zone, f.Err, f.Reason)
}

// Unwrap is ErrInsufficientCapacity for the regional quota, else nil.
func (f *LaunchFailure) Unwrap() error {
	if f.insufficientCapacityReason {
		return ErrInsufficientCapacity
	}
	return nil
}

// HandleLaunchError marks what the provider marks unavailable when Azure
// answers a launch of the offering (its zone and capacity type) with
// kind at the given time, and returns the failure:
//
//   - LowPriorityQuota: spot everywhere, for QuotaReachedTTL.
//   - FamilyQuota (FamilyQuotaZero): every offering of the size with the
//     capacity type, for LowQuotaTTL (QuotaReachedTTL).
//   - SKUNotAvailable: the size's offerings of the capacity type in the
//     launch's placement scope (its zones, or zone "0"), for a day on
//     demand, an hour spot.
//   - ZonalAllocationFailed: the size in the zone, both capacity types.
//   - AllocationFailed: the size's offerings of both capacity types in the
//     launch's placement scope.
//   - OverconstrainedZonalAllocation: the offering launched.
//   - OverconstrainedAllocation: the size's offerings of the capacity type
//     in the launch's placement scope.
//   - RegionalQuota: nothing; the failure wraps ErrInsufficientCapacity.
//
// The allocation failures last AllocationFailureTTL. Each mark also
// marks the size's family from its vCPU count up (Mark).
func (u *UnavailableOfferings) HandleLaunchError(kind LaunchError, it *instancetypes.InstanceType, zone, capacityType string, at time.Time) (*LaunchFailure, error) {
	if it == nil {
		return nil, errors.New("azure: a launch error needs the instance type launched")
	}
	if !slices.ContainsFunc(it.Offerings, func(o instancetypes.Offering) bool { return o.Zone == zone && o.CapacityType == capacityType }) {
		return nil, fmt.Errorf("azure: %s has no %s offering in zone %q", it.Name, capacityType, zone)
	}
	f := &LaunchFailure{Err: kind, Size: it.Name, Zone: zone, CapacityType: capacityType}
	inScope := func(o instancetypes.Offering) bool { return (o.Zone == RegionalZone) == (zone == RegionalZone) }
	markEach := func(keep func(o instancetypes.Offering) bool, capacityTypes []string, ttl time.Duration) {
		for _, o := range it.Offerings {
			if keep(o) && slices.Contains(capacityTypes, o.CapacityType) {
				u.Mark(it.Name, o.Zone, o.CapacityType, at, ttl)
			}
		}
	}
	both := []string{apis.CapacityTypeOnDemand, apis.CapacityTypeSpot}
	switch kind {
	case ErrLowPriorityQuota:
		u.MarkSpot(at, QuotaReachedTTL)
		f.Reason = "SubscriptionQuotaReached"
	case ErrFamilyQuota, ErrFamilyQuotaZero:
		ttl := LowQuotaTTL
		if kind == ErrFamilyQuotaZero {
			ttl = QuotaReachedTTL
		}
		markEach(func(instancetypes.Offering) bool { return true }, []string{capacityType}, ttl)
		f.Reason = "SubscriptionQuotaReached"
	case ErrSKUNotAvailable:
		ttl := SKUNotAvailableSpotTTL
		if capacityType == apis.CapacityTypeOnDemand {
			ttl = SKUNotAvailableOnDemandTTL
		}
		markEach(inScope, []string{capacityType}, ttl)
		f.Reason = "SKUNotAvailable"
	case ErrZonalAllocationFailed:
		for _, ct := range both {
			u.Mark(it.Name, zone, ct, at, AllocationFailureTTL)
		}
		f.Reason = "ZonalAllocationFailure"
	case ErrAllocationFailed:
		markEach(inScope, both, AllocationFailureTTL)
		f.Reason = "AllocationFailure"
	case ErrOverconstrainedZonalAllocation:
		u.Mark(it.Name, zone, capacityType, at, AllocationFailureTTL)
		f.Reason = "OverconstrainedZonalAllocationFailure"
	case ErrOverconstrainedAllocation:
		markEach(inScope, []string{capacityType}, AllocationFailureTTL)
		f.Reason = "OverconstrainedAllocationFailure"
	case ErrRegionalQuota:
		f.Reason, f.insufficientCapacityReason = "InsufficientCapacity", true
	default:
		return nil, fmt.Errorf("azure: unknown launch error %s", kind)
	}
	return f, nil
}

// sizeFamily is what the family marks read of a size: its resource SKU
// family, lower-cased, and vCPUs.
type sizeFamily struct {
	family string
	vcpus  int64
}

// sizeFamilies are every embedded size's family and vCPUs, from the
// reference region's table first, then the other tables, then the wider
// size table.
var sizeFamilies = sync.OnceValue(func() map[string]sizeFamily {
	d := mustData()
	out := map[string]sizeFamily{}
	add := func(records []skuRecord) {
		for _, r := range records {
			if _, ok := out[r.Name]; !ok {
				out[r.Name] = sizeFamily{family: strings.ToLower(r.Family), vcpus: r.VCPUs}
			}
		}
	}
	add(d.tables[referenceRegion])
	regions := make([]string, 0, len(d.tables))
	for region := range d.tables {
		regions = append(regions, region)
	}
	slices.Sort(regions)
	for _, region := range regions {
		add(d.tables[region])
	}
	add(d.wide)
	return out
})
