package instancetypes

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/pricing"
)

// AWSOptions configure NewAWS. The zero value models us-east-1 with zones
// a, b and c, an AL2023 EC2NodeClass with no kubelet settings and no block
// device mappings, the facts' on-demand prices with modelled spot prices,
// and no unavailable offerings.
type AWSOptions struct {
	// Region is the region label of every type; default us-east-1.
	Region string
	// Zones are the zones offerings are made in; default Region + a, b, c.
	// The zones of the NodeClass's status.subnets replace them when it
	// lists any.
	Zones []string
	// NodeClass supplies the AMI family, the kubelet settings, the block
	// device mappings and the instance store policy; nil is an EC2NodeClass
	// with the al2023@latest alias and nothing else.
	NodeClass *apis.EC2NodeClass
	// Prices prices the offerings; nil is a pricing.Table of the facts'
	// on-demand prices (us-east-1, whatever Region says) with
	// pricing.DefaultSpotModel for spot.
	Prices pricing.Source
	// Unavailable marks offerings out of capacity; nil marks none.
	Unavailable *pricing.UnavailableOfferings
	// Now is the time Unavailable is consulted at.
	Now time.Time
	// VMMemoryOverheadPercent is the fraction of memory the hypervisor is
	// assumed to take (Karpenter's VM_MEMORY_OVERHEAD_PERCENT): 0 means the
	// default 0.075, a negative value means none. It must be below 1.
	VMMemoryOverheadPercent float64
	// ReservedENIs are network interfaces kept from pods (Karpenter's
	// RESERVED_ENIS), lowering the ENI-limited pod count.
	ReservedENIs int
	// PlacementGroupStrategy is the strategy (apis.PlacementStrategies) of
	// the placement group the EC2NodeClass's placementGroupSelector names,
	// which karpsim cannot look up; empty for none. Types that cannot
	// launch into such a group have no available offering.
	PlacementGroupStrategy string
	// ZonalShifts are the zones an ARC zonal shift (or autoshift) moves
	// the cluster away from, each named as the zone (us-east-1a) or as its
	// zone ID (use1-az1) as ARC names it, which the EC2NodeClass's
	// status.subnets resolve: every offering in them, reserved ones
	// included, is unavailable until the shift ends. A zone the catalog
	// does not offer in changes nothing, as upstream.
	ZonalShifts []string
	// Reservations are the available instance counts of the capacity
	// reservations the EC2NodeClass's status.capacityReservations lists
	// (what DescribeCapacityReservations reports); a reservation it does
	// not count has an unavailable offering, as upstream's is until EC2
	// reports it. nil counts none.
	Reservations *ReservationAvailability
	// LearnedMemory replaces the estimated memory capacity of the types
	// registered nodes of the EC2NodeClass reported under its current
	// AMIs; the overhead stays computed from the estimate, as upstream.
	// nil learns nothing.
	LearnedMemory *LearnedMemory
	// NodeOverlays price the types the price list lacks (preview instance
	// types), as Karpenter's AWS provider does since v1.14.0 with the
	// NodeOverlay feature gate on (NodeOverlayGate): an overlay whose only
	// requirement is node.kubernetes.io/instance-type In some types, and
	// that sets price, gives those of them without a price that price, so
	// their offerings are available. Of several such overlays naming a
	// type, the last by name wins. Other overlays, and overlays on priced
	// types, change nothing here; ApplyOverlays applies them all.
	NodeOverlays []*apis.NodeOverlay
	// NodeOverlayGate is Karpenter's NodeOverlay feature gate; without it
	// NodeOverlays are not read.
	NodeOverlayGate bool
	// NodeClassCEL is the AWS provider's feature gate of that name
	// (--aws-feature-gates NodeClassCEL=true; off by default, after
	// v1.14.0): with it the EC2NodeClass's kubelet maxPods, kubeReserved
	// and systemReserved may be expressions over the instance type
	// (apis.ParseKubeletExpression), evaluated per type. A maxPods
	// expression that fails, or leaves 0 to MaxInt32, fails NewAWS; a
	// reserved-resource expression that fails or is negative is left out.
	// Without the gate expressions are ignored (the defaults stand).
	NodeClassCEL bool
}

// Defaults of AWSOptions.
const (
	DefaultRegion                  = "us-east-1"
	DefaultVMMemoryOverheadPercent = 0.075
)

// ErrInvalidAWSOptions is wrapped by the errors NewAWS returns for options
// it cannot use.
var ErrInvalidAWSOptions = errors.New("invalid AWS options")

// NewAWS models the given EC2 types as Karpenter's AWS provider does for
// the options' EC2NodeClass; awsmodel.go holds the formulas, checked
// against the allocatable resources Karpenter publishes for every type.
//
// What the facts cannot say is assumed, as follows. Every type is sold
// on-demand and as spot in every zone: the zones of the EC2NodeClass's
// status.subnets when it lists any (local zones included), else
// opts.Zones. The facts say nothing of per-zone availability or of usage
// classes, so an offering is unavailable only when it has no price,
// opts.Unavailable marks it or a zonal shift moves away from its zone.
// Types without an on-demand price therefore have no available offering
// (they keep their zone and capacity-type requirements, as upstream's do),
// unless a NodeOverlay prices them (AWSOptions.NodeOverlays).
// Each of the EC2NodeClass's status.capacityReservations makes a reserved
// offering of its type, as the provider's reserved capacity resolver does:
// priced at the on-demand price / 10,000,000 (nearly free, yet ordered),
// with opts.Reservations' count (0 when it has no instance left: still
// available, as provider v1.15.0 reports a full reservation), and
// unavailable when the reservation is an expiring capacity block, its zone
// is shifted away from or not the type's, or opts.Unavailable marks the
// reservation (pricing.UnavailableOfferings.MarkReservationUnavailable: an
// insufficient-capacity error on it, which leaves its count as it is, AWS
// provider v1.15.0). Every type may launch with default or dedicated
// tenancy (the tenancy label is a LabelChoice, default preferred); both
// are priced alike, as upstream prices them. The subnets' zone IDs make no
// zone-id label. Types the EC2NodeClass's launch settings rule out
// (compatibility.go) keep their offerings, all unavailable, as upstream's
// do.
//
// The facts and the options are not modified.
func NewAWS(facts []EC2Facts, opts AWSOptions) (Catalog, error) {
	cfg, err := newAWSConfig(facts, opts)
	if err != nil {
		return nil, err
	}
	types := make([]*InstanceType, 0, len(facts))
	for _, f := range facts {
		it, err := cfg.instanceType(f)
		if err != nil {
			return nil, err
		}
		types = append(types, it)
	}
	return NewCatalog(types...)
}

var defaultCatalog = sync.OnceValues(func() (Catalog, error) {
	return NewAWS(EmbeddedFacts(), AWSOptions{})
})

// Default returns the embedded EC2 types modelled with the zero AWSOptions.
// It is built once; each call returns a new slice, but the instance types
// are shared by every caller and must not be modified.
func Default() Catalog {
	c, err := defaultCatalog()
	if err != nil {
		// Embedded facts and default options; the package's tests build it.
		panic(fmt.Sprintf("instancetypes: default catalog: %v", err))
	}
	return slices.Clone(c)
}

// onDemandTable is a price table of the facts' on-demand prices.
func onDemandTable(facts []EC2Facts) *pricing.Table {
	prices := make(map[string]float64, len(facts))
	for _, f := range facts {
		if f.OnDemandUSDPerHourUSEast1 > 0 {
			prices[f.InstanceType] = f.OnDemandUSDPerHourUSEast1
		}
	}
	return pricing.NewTable(prices).WithSpotModel(pricing.DefaultSpotModel())
}

// offerings makes one offering per zone and capacity type, on-demand and
// spot, sorted by zone then capacity type, then one per capacity
// reservation of the type; none is available when the type cannot launch
// under the EC2NodeClass's launch settings.
func (c *awsConfig) offerings(f EC2Facts) []Offering {
	compatible := c.incompatibility(f) == ""
	out := make([]Offering, 0, 2*len(c.zones))
	for _, zone := range c.zones {
		for _, capacityType := range []string{apis.CapacityTypeOnDemand, apis.CapacityTypeSpot} {
			var price float64
			var ok bool
			if capacityType == apis.CapacityTypeOnDemand {
				price, ok = c.prices.OnDemandPrice(f.InstanceType)
			} else {
				price, ok = c.prices.SpotPrice(f.InstanceType, zone)
			}
			if !ok {
				price, ok = c.previewPrices[f.InstanceType]
			}
			unavailable := c.shifted[zone] || c.unavailable != nil && c.unavailable.IsUnavailable(capacityType, f.InstanceType, zone, c.now)
			out = append(out, Offering{Zone: zone, CapacityType: capacityType, Price: price, Available: ok && !unavailable && compatible})
		}
	}
	return append(out, c.reservedOfferings(f, compatible)...)
}

// reservationPriceDivisor makes a reservation's instances nearly free
// while keeping them in the order of their on-demand prices, so that
// consolidation still compares them (the provider divides by the same).
const reservationPriceDivisor = 10_000_000

// reservedOfferings are the type's offerings in the EC2NodeClass's
// capacity reservations; none is available when the type is not
// compatible with the class's launch settings. Availability is health
// only: a reservation with no instance left (or never counted) stays
// available with ReservationCapacity 0, as the AWS provider v1.15.0
// reports it (offering/reserved_capacity_resolver.go), so that the
// scheduler tells a full reservation from a missing one (provisioning
// waits for a reserved-only NodePool's full reservation instead of
// falling through to a lighter NodePool).
func (c *awsConfig) reservedOfferings(f EC2Facts, compatible bool) []Offering {
	var out []Offering
	for _, r := range c.reservations {
		if r.InstanceType != f.InstanceType {
			continue
		}
		price, _ := c.prices.OnDemandPrice(f.InstanceType)
		reservationType := r.ReservationType
		if reservationType == "" {
			reservationType = apis.CapacityReservationTypeDefault
		}
		available := c.reservationCounts.Available(r.ID)
		out = append(out, Offering{
			Zone: r.AvailabilityZone, CapacityType: apis.CapacityTypeReserved,
			Price:         price / reservationPriceDivisor,
			ReservationID: r.ID, ReservationType: reservationType, ReservationCapacity: available,
			Interruptible: r.Interruptible,
			Available: compatible && slices.Contains(c.zones, r.AvailabilityZone) &&
				r.State != apis.CapacityReservationStateExpiring && !c.shifted[r.AvailabilityZone] &&
				!c.unavailable.IsReservationUnavailable(f.InstanceType, r.AvailabilityZone, r.ID, c.now),
		})
	}
	return out
}

// previewPrices are the prices NodeOverlays give types, by type name, as
// AWSOptions.NodeOverlays says; nil when the gate is off.
func previewPrices(opts AWSOptions) map[string]float64 {
	if !opts.NodeOverlayGate || len(opts.NodeOverlays) == 0 {
		return nil
	}
	overlays := slices.Clone(opts.NodeOverlays)
	slices.SortStableFunc(overlays, func(a, b *apis.NodeOverlay) int { return strings.Compare(a.Name, b.Name) })
	out := map[string]float64{}
	for _, o := range overlays {
		reqs := o.Spec.Requirements
		if o.Spec.Price == nil || len(reqs) != 1 || reqs[0].Key != apis.LabelInstanceType || reqs[0].Operator != corev1.NodeSelectorOpIn {
			continue
		}
		price, err := strconv.ParseFloat(*o.Spec.Price, 64)
		if err != nil || !(price >= 0) || math.IsInf(price, 1) {
			continue
		}
		for _, name := range reqs[0].Values {
			out[name] = price
		}
	}
	return out
}
