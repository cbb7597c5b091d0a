package instancetypes

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// InstanceType is one machine type as Karpenter sees it. Build one with
// NewInstanceType (or get one from a Catalog) and treat it as read-only:
// Requirements and Allocatable are derived from the other fields when it is
// built and would not follow later changes.
type InstanceType struct {
	Name string
	// Requirements are the labels of a node of this type, as requirements:
	// one In value per label; zone, capacity type and the offerings' Label
	// In the values of all the type's offerings, available or not; the
	// capacity reservation ID In those of its reserved offerings, or
	// DoesNotExist (with the reservation type) when it has none;
	// DoesNotExist for Spec.AbsentLabels and for every well-known label of
	// its cloud (LabelRules) it lacks but the NodePool and zone-ID labels
	// and Spec.UndefinedLabels.
	Requirements requirements.Requirements
	// Capacity is what the machine has; NodePool limits count it.
	Capacity resources.Vector
	// Overhead is what the kubelet and the OS keep for themselves.
	Overhead Overhead
	// Offerings are the ways to buy the type, sorted by zone, then capacity
	// type, then reservation ID.
	Offerings []Offering
	// Overlay says what NodeOverlays changed of Capacity; nil when none
	// did (ApplyOverlays).
	Overlay *OverlayNote
	// LabelChoices are the labels a launch sets to one of several values
	// (Spec.LabelChoices); Requirements hold each as In its values.
	LabelChoices map[string][]string
	// VolumeAttachmentLimits is how many volumes of each CSI driver a node
	// of this type can attach, by driver name (Spec.VolumeAttachmentLimits);
	// nil when the catalog states none. Shared, never modified.
	VolumeAttachmentLimits map[string]int

	allocatable resources.Vector
	built       bool
	// labelRules are Spec.LabelRules, nil for a type not built.
	labelRules *apis.LabelRules
}

// LabelRules are the label rules of the type's cloud provider
// (Spec.LabelRules): apis.AWSLabels when the type was built without any.
func (it *InstanceType) LabelRules() *apis.LabelRules { return cmp.Or(it.labelRules, apis.AWSLabels) }

// Overhead is the part of a node's capacity pods may not use.
type Overhead struct {
	KubeReserved, SystemReserved, EvictionThreshold resources.Vector
}

// Total is the sum of the three reservations.
func (o Overhead) Total() resources.Vector {
	return o.KubeReserved.Add(o.SystemReserved).Add(o.EvictionThreshold)
}

// Offering is one way to buy an instance type: a zone and a capacity type
// (on-demand, spot, or reserved with a capacity reservation), at a price in
// USD per hour.
type Offering struct {
	Zone, CapacityType string
	Price              float64
	// Available is false when the offering cannot be launched now: it has no
	// price, or it recently failed with insufficient capacity. A reserved
	// offering whose reservation is full stays available (see Launchable).
	Available bool
	// ReservationID names the capacity reservation of a reserved offering,
	// and is empty for every other capacity type.
	ReservationID string
	// ReservationCapacity is how many more instances the reservation can
	// launch; only meaningful for reserved offerings.
	ReservationCapacity int
	// ReservationType is a reserved offering's capacity reservation type
	// (apis.CapacityReservationTypeDefault or ...CapacityBlock), the
	// karpenter.k8s.aws/capacity-reservation-type label of its nodes; empty
	// when not known, and for every other capacity type.
	ReservationType string
	// Interruptible says a reserved offering's reservation may be
	// reclaimed by EC2: the karpenter.k8s.aws/capacity-reservation-interruptible
	// label ("true" or "false") of its nodes (AWS provider v1.15.0). Only
	// reserved offerings have it.
	Interruptible bool
	// PriceOverlay names the NodeOverlay that set Price, and BasePrice is
	// the provider's price it replaced or adjusted; both are zero when no
	// overlay changed the price (ApplyOverlays).
	PriceOverlay string
	BasePrice    float64
	// Override, when set, makes a node bought through this offering
	// differ from the type's (Karpenter's offering overrides, core v1.14,
	// for providers whose offerings differ in what they carry); nil for
	// the type as it is. Variants groups offerings by it.
	Override *OfferingOverride
	// Label is a label a node bought through this offering carries, beyond
	// the zone, capacity type and reservation labels, for providers whose
	// offerings differ in a label (Azure's placement scope: zonal, or
	// regional in zone "0"). Every offering of a type has the same key (or
	// none), which is not also a label of the type; a NodeClaim's
	// requirement on it chooses offerings as its zone requirement does.
	// Zero for most.
	Label OfferingLabel
	// Preference breaks ties between offerings of equal price and capacity
	// type when a launch chooses one: the lower wins (Azure prefers zonal
	// offerings to regional ones); then the earlier zone. Zero for most.
	Preference int
}

// OfferingLabel is an offering's own label; the zero value is none.
type OfferingLabel struct{ Key, Value string }

// OfferingOverride is what an offering changes of its type: each resource
// Capacity names replaces the type's capacity of that resource, and each
// resource Overhead's total names replaces the type's total overhead of it;
// the rest stay. A zero amount names nothing.
type OfferingOverride struct {
	Capacity resources.Vector
	Overhead *Overhead
}

// overrides reports whether the offering changes the node it buys.
func (o Offering) overrides() bool {
	return o.Override != nil && (!o.Override.Capacity.IsZero() || o.Override.Overhead != nil)
}

// overrideKey tells offerings with the same overrides apart from others:
// "" for none.
func (o Offering) overrideKey() string {
	if !o.overrides() {
		return ""
	}
	key := "capacity " + o.Override.Capacity.String()
	if o.Override.Overhead != nil {
		key += " overhead " + o.Override.Overhead.Total().String()
	}
	return key
}

// Spec is what NewInstanceType builds an instance type from.
type Spec struct {
	Name string
	// Labels are the labels a node of this type carries, one value each.
	// They may not name the labels that come from offerings (zone, capacity
	// type, capacity reservation ID and type); the instance-type label is
	// set to Name.
	Labels map[string]string
	// AbsentLabels are label keys a node of this type never has, beyond the
	// well-known labels missing from Labels, which are absent anyway.
	AbsentLabels []string
	// UndefinedLabels are well-known labels the type neither sets nor
	// rules out: a NodeClaim may require any value of them, as Karpenter
	// allows an undefined well-known label (the Azure provider leaves
	// node.kubernetes.io/windows-build undefined, where the AWS provider
	// states every well-known label it lacks as absent).
	UndefinedLabels []string
	// LabelChoices are labels a node of this type carries with one of
	// several values, chosen at launch: the first value, in the order
	// given, that the NodeClaim's requirements allow (see
	// LaunchLabelChoice). The AWS model gives every type the tenancy label
	// with apis.TenancyDefault then apis.TenancyDedicated, as the provider
	// launches either and prefers shared hardware.
	LabelChoices map[string][]string
	// VolumeAttachmentLimits is how many volumes of each CSI driver a node
	// of this type is expected to attach, by driver name (Karpenter v1.15.0's
	// InstanceType.VolumeAttachmentLimits): a new NodeClaim leaves out the
	// types whose limit its pods' volumes exceed, and an existing node of
	// the type whose CSINode has not published the driver yet takes it as
	// its limit. A driver not named is not limited. The AWS provider
	// (v1.15.x) states none, so the AWS model leaves it nil.
	VolumeAttachmentLimits map[string]int
	Capacity               resources.Vector
	Overhead               Overhead
	Offerings              []Offering
	// LabelRules are the label rules of the cloud provider the type is
	// of: the type states each of their well-known labels it lacks as
	// DoesNotExist (a key outside them, such as another cloud's, it
	// leaves undefined), and a NodeClaim of the type may leave them
	// undefined. nil is the default cloud's, apis.AWSLabels.
	LabelRules *apis.LabelRules
}

// ErrInvalidInstanceType is wrapped by the errors NewInstanceType returns.
var ErrInvalidInstanceType = errors.New("invalid instance type")

// NewInstanceType validates spec and builds the instance type: its
// requirements (see buildRequirements), its offerings sorted, and its
// allocatable resources. spec is not modified and not retained.
func NewInstanceType(spec Spec) (*InstanceType, error) {
	it, err := newInstanceType(spec)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %w", ErrInvalidInstanceType, spec.Name, err)
	}
	return it, nil
}

// newInstanceType is NewInstanceType with errors that name only the field,
// for callers that name the type themselves.
func newInstanceType(spec Spec) (*InstanceType, error) {
	if spec.Name == "" {
		return nil, errors.New("name: missing")
	}
	if err := checkResources(spec.Capacity, spec.Overhead); err != nil {
		return nil, err
	}
	offerings, err := sortedOfferings(spec.Offerings)
	if err != nil {
		return nil, err
	}
	choices, err := labelChoices(spec.LabelChoices)
	if err != nil {
		return nil, err
	}
	rules := cmp.Or(spec.LabelRules, apis.AWSLabels)
	reqs, err := buildRequirements(rules, spec.Name, spec.Labels, spec.AbsentLabels, spec.UndefinedLabels, choices, offerings)
	if err != nil {
		return nil, err
	}
	volumeLimits, err := volumeAttachmentLimits(spec.VolumeAttachmentLimits)
	if err != nil {
		return nil, err
	}
	it := &InstanceType{
		Name:                   spec.Name,
		Requirements:           reqs,
		Capacity:               spec.Capacity,
		Overhead:               spec.Overhead,
		Offerings:              offerings,
		LabelChoices:           choices,
		VolumeAttachmentLimits: volumeLimits,
		labelRules:             rules,
	}
	it.allocatable = allocatable(it.Capacity, it.Overhead)
	it.built = true
	return it, nil
}

// volumeAttachmentLimits validates the limits and returns a copy of them,
// nil when there are none.
func volumeAttachmentLimits(in map[string]int) (map[string]int, error) {
	if len(in) == 0 {
		return nil, nil
	}
	for _, driver := range slices.Sorted(maps.Keys(in)) {
		switch n := in[driver]; {
		case driver == "":
			return nil, errors.New("volumeAttachmentLimits: a driver without a name")
		case n < 0:
			return nil, fmt.Errorf("volumeAttachmentLimits.%s: %d is negative", driver, n)
		}
	}
	return maps.Clone(in), nil
}

func checkResources(capacity resources.Vector, overhead Overhead) error {
	for _, v := range []struct {
		field string
		v     resources.Vector
	}{
		{"capacity", capacity},
		{"overhead.kubeReserved", overhead.KubeReserved},
		{"overhead.systemReserved", overhead.SystemReserved},
		{"overhead.evictionThreshold", overhead.EvictionThreshold},
	} {
		if v.v.HasNegative() {
			return fmt.Errorf("%s: %s has a negative amount", v.field, v.v)
		}
	}
	return nil
}

// allocatable is capacity less overhead, for the resources the capacity
// has: like Karpenter, an overhead on a resource the machine does not have
// is ignored rather than making allocatable negative.
func allocatable(capacity resources.Vector, overhead Overhead) resources.Vector {
	total := overhead.Total()
	out := capacity
	for _, name := range capacity.Names() {
		out = out.With(name, capacity.Get(name)-total.Get(name))
	}
	return out
}

// Allocatable is what pods may request on a node of this type: capacity
// less overhead, computed when the type was built.
func (it *InstanceType) Allocatable() resources.Vector {
	if !it.built {
		return allocatable(it.Capacity, it.Overhead)
	}
	return it.allocatable
}

// Labels returns the labels whose value is settled by the type alone: every
// requirement that allows exactly one value. A type sold in one zone has a
// zone label too. The caller may keep the map; fmt prints it sorted.
func (it *InstanceType) Labels() map[string]string {
	labels := map[string]string{}
	for _, req := range it.Requirements.Items() {
		if values := req.Values(); req.Operator() == corev1.NodeSelectorOpIn && len(values) == 1 {
			labels[req.Key()] = values[0]
		}
	}
	return labels
}

// String names the type and its allocatable resources.
func (it *InstanceType) String() string {
	return it.Name + " " + it.Allocatable().String()
}

// Requirements expresses the offering as requirements: its capacity type,
// its zone, its reservation ID and type (DoesNotExist when it is not
// reserved; the type is left out when a reserved offering does not say
// it), and its Label, as Karpenter's offerings carry them.
func (o Offering) Requirements() requirements.Requirements {
	reservation := requirements.DoesNotExist(apis.LabelCapacityReservationID)
	reservationType := requirements.DoesNotExist(apis.LabelCapacityReservationType)
	interruptible := requirements.DoesNotExist(apis.LabelCapacityReservationInterruptible)
	if o.ReservationID != "" {
		reservation = requirements.In(apis.LabelCapacityReservationID, o.ReservationID)
		reservationType = in(apis.LabelCapacityReservationType, o.ReservationType)
		interruptible = in(apis.LabelCapacityReservationInterruptible, strconv.FormatBool(o.Interruptible))
	}
	reqs := requirements.NewRequirements(
		requirements.In(apis.LabelCapacityType, o.CapacityType),
		requirements.In(apis.LabelTopologyZone, o.Zone),
		reservation,
		interruptible,
	)
	if o.ReservationID == "" || o.ReservationType != "" {
		reqs = reqs.Add(reservationType)
	}
	if o.Label.Key != "" {
		reqs = reqs.Add(requirements.In(o.Label.Key, o.Label.Value))
	}
	return reqs
}

// Launchable reports whether an instance can be launched into the
// offering now: it is available and, for a reserved offering, its
// reservation has an instance left. A full reservation stays available (its
// health is fine) but is not launchable, as in Karpenter v1.15.0
// (cloudprovider/types.go Offering.Launchable).
func (o Offering) Launchable() bool {
	return o.Available && (o.CapacityType != apis.CapacityTypeReserved || o.ReservationCapacity > 0)
}

// Compatible reports whether reqs allow the offering, as
// reqs.Compatible(o.Requirements(), AllowUndefinedWellKnown) does, without
// building requirements: a NodeClaim may launch into the offering only if
// its zone and capacity type are allowed, and a reservation ID, type or
// interruptibility is required (by a positive requirement) only of
// reserved offerings. The reservation labels are the AWS provider's: for
// an offering of a type of another cloud use CompatibleUnder.
func (o Offering) Compatible(reqs requirements.Requirements) bool {
	return o.CompatibleUnder(apis.AWSLabels, reqs)
}

// CompatibleUnder is Compatible under the label rules of the offering's
// cloud (its type's LabelRules): the reservation labels are offering
// labels only where rules make them well known; elsewhere (Azure) they are
// custom labels, which the NodePool's labels satisfy, so they choose no
// offering.
func (o Offering) CompatibleUnder(rules *apis.LabelRules, reqs requirements.Requirements) bool {
	filter := newOfferingFilter(rules, reqs)
	return filter.allows(o)
}

// offeringFilter holds the requirements offerings are checked against,
// looked up once for all the offerings of a type; reqs for the offerings'
// Label.
type offeringFilter struct {
	zone, capacityType, reservation, reservationType, interruptible                requirements.Requirement
	hasZone, hasCapacityType, hasReservation, hasReservationType, hasInterruptible bool
	reqs                                                                           requirements.Requirements
}

// AllowedBy reports whether reqs allow the offering label: it has none,
// or reqs do not constrain its key, or they allow its value.
func (l OfferingLabel) AllowedBy(reqs requirements.Requirements) bool {
	if l.Key == "" {
		return true
	}
	r, ok := reqs.Lookup(l.Key)
	return !ok || r.Has(l.Value)
}

// newOfferingFilter reads reqs for offerings of a type of the cloud of
// rules: the reservation labels only where rules make them well known.
func newOfferingFilter(rules *apis.LabelRules, reqs requirements.Requirements) offeringFilter {
	f := offeringFilter{reqs: reqs}
	f.zone, f.hasZone = reqs.Lookup(apis.LabelTopologyZone)
	f.capacityType, f.hasCapacityType = reqs.Lookup(apis.LabelCapacityType)
	lookup := func(key string) (requirements.Requirement, bool) {
		if !rules.IsWellKnown(key) {
			return requirements.Requirement{}, false
		}
		return reqs.Lookup(key)
	}
	f.reservation, f.hasReservation = lookup(apis.LabelCapacityReservationID)
	f.reservationType, f.hasReservationType = lookup(apis.LabelCapacityReservationType)
	f.interruptible, f.hasInterruptible = lookup(apis.LabelCapacityReservationInterruptible)
	return f
}

func (f *offeringFilter) allows(o Offering) bool {
	switch {
	case !o.Label.AllowedBy(f.reqs):
		return false
	case f.hasZone && !f.zone.Has(o.Zone):
		return false
	case f.hasCapacityType && !f.capacityType.Has(o.CapacityType):
		return false
	case f.hasReservationType && !allowsReservationLabel(f.reservationType, o.ReservationID, o.ReservationType):
		return false
	case f.hasInterruptible && !allowsReservationLabel(f.interruptible, o.ReservationID, strconv.FormatBool(o.Interruptible)):
		return false
	case !f.hasReservation:
		return true
	}
	return allowsReservationLabel(f.reservation, o.ReservationID, o.ReservationID)
}

// allowsReservationLabel reports whether r allows an offering's
// reservation label (ID or type) of the given value: an offering that is
// not reserved lacks the label, so only NotIn and DoesNotExist allow it;
// a reserved offering that does not know the value leaves it open.
func allowsReservationLabel(r requirements.Requirement, reservationID, value string) bool {
	switch {
	case reservationID == "":
		op := r.Operator()
		return op == corev1.NodeSelectorOpNotIn || op == corev1.NodeSelectorOpDoesNotExist
	case value == "":
		return true
	}
	return r.Has(value)
}

// CheapestOffering returns the cheapest launchable offering that reqs
// allow (a full reservation is not one), and false if there is none. Among
// equal prices the lower Preference, then the first in offering order (zone,
// capacity type, reservation ID) wins, so the choice is deterministic.
func (it *InstanceType) CheapestOffering(reqs requirements.Requirements) (Offering, bool) {
	filter := newOfferingFilter(it.LabelRules(), reqs)
	best, found := Offering{}, false
	for _, o := range it.Offerings {
		if !o.Launchable() || !filter.allows(o) {
			continue
		}
		if !found || o.Price < best.Price || o.Price == best.Price && o.Preference < best.Preference {
			best, found = o, true
		}
	}
	return best, found
}

// capacityTypes are the capacity types an offering may have, and
// reservationTypes the types of capacity reservation.
var (
	capacityTypes    = []string{apis.CapacityTypeOnDemand, apis.CapacityTypeReserved, apis.CapacityTypeSpot}
	reservationTypes = []string{apis.CapacityReservationTypeCapacityBlock, apis.CapacityReservationTypeDefault}
)

// LaunchCapacityTypes is how many capacity types a launch chooses among.
const LaunchCapacityTypes = 3

// LaunchOrder is the order a launch prefers capacity types in, as
// Karpenter's AWS provider launches: reserved capacity first when allowed
// and offered, then spot when allowed and offered, else on-demand. Among
// the offerings of the first capacity type any allowed type offers, the
// cheapest is launched.
func LaunchOrder() [LaunchCapacityTypes]string {
	return [LaunchCapacityTypes]string{apis.CapacityTypeReserved, apis.CapacityTypeSpot, apis.CapacityTypeOnDemand}
}

// LaunchRank is the capacity type's place in LaunchOrder, 0 first; -1 for
// a capacity type that is never launched.
func LaunchRank(capacityType string) int {
	switch capacityType {
	case apis.CapacityTypeReserved:
		return 0
	case apis.CapacityTypeSpot:
		return 1
	case apis.CapacityTypeOnDemand:
		return 2
	}
	return -1
}

// sortedOfferings validates offerings and returns them sorted, in a new
// slice.
func sortedOfferings(in []Offering) ([]Offering, error) {
	if len(in) == 0 {
		return nil, nil
	}
	out := slices.Clone(in)
	for i, o := range out {
		if err := checkOffering(o); err != nil {
			return nil, fmt.Errorf("offerings[%d]: %w", i, err)
		}
		if err := checkOfferingLabel(o.Label, out[0].Label); err != nil {
			return nil, fmt.Errorf("offerings[%d].label: %w", i, err)
		}
	}
	slices.SortFunc(out, compareOfferings)
	for i := 1; i < len(out); i++ {
		if compareOfferings(out[i-1], out[i]) == 0 {
			o := out[i]
			return nil, fmt.Errorf("offerings: two for zone %q, capacity type %q, reservation %q with the same overrides", o.Zone, o.CapacityType, o.ReservationID)
		}
	}
	return out, nil
}

// checkOfferingLabel checks an offering's label: a valid key and value,
// not one of the offering's own fields or the instance-type label, and the
// first offering's key.
func checkOfferingLabel(l, first OfferingLabel) error {
	switch {
	case l.Key != first.Key:
		return fmt.Errorf("key %q where the first offering has %q: every offering has the same key", l.Key, first.Key)
	case l.Key == "":
		if l.Value != "" {
			return fmt.Errorf("value %q without a key", l.Value)
		}
		return nil
	case l.Key == apis.LabelInstanceType:
		return fmt.Errorf("%s is the type's name", l.Key)
	}
	if err := checkLabelKey(l.Key); err != nil {
		return err
	}
	if errs := validation.IsValidLabelValue(l.Value); len(errs) > 0 {
		return fmt.Errorf("%s: %q is not a valid label value: %s", l.Key, l.Value, strings.Join(errs, "; "))
	}
	return nil
}

func checkOffering(o Offering) error {
	switch {
	case o.Zone == "":
		return errors.New("zone: missing")
	case !slices.Contains(capacityTypes, o.CapacityType):
		return fmt.Errorf("capacityType: %q is not one of %v", o.CapacityType, capacityTypes)
	case math.IsNaN(o.Price) || math.IsInf(o.Price, 0) || o.Price < 0:
		return fmt.Errorf("price: %v is not a non-negative number", o.Price)
	case o.Price > apis.MaxPricePerHour:
		// Bounded so that costs summed over nodes and hours stay finite.
		return fmt.Errorf("price: %v is more than karpsim reads ($%g an hour)", o.Price, float64(apis.MaxPricePerHour))
	case (o.CapacityType == apis.CapacityTypeReserved) != (o.ReservationID != ""):
		return fmt.Errorf("reservationID: %q with capacity type %q: reserved offerings, and only they, have one", o.ReservationID, o.CapacityType)
	case o.ReservationCapacity < 0:
		return fmt.Errorf("reservationCapacity: %d is negative", o.ReservationCapacity)
	case o.ReservationType != "" && o.ReservationID == "":
		return fmt.Errorf("reservationType: %q on a %s offering: only reserved offerings have one", o.ReservationType, o.CapacityType)
	case o.Interruptible && o.ReservationID == "":
		return fmt.Errorf("interruptible: on a %s offering: only reserved offerings have one", o.CapacityType)
	case o.ReservationType != "" && !slices.Contains(reservationTypes, o.ReservationType):
		return fmt.Errorf("reservationType: %q is not one of %v", o.ReservationType, reservationTypes)
	case o.Override != nil && o.Override.Capacity.HasNegative():
		return fmt.Errorf("override.capacity: %s has a negative amount", o.Override.Capacity)
	case o.Override != nil && o.Override.Overhead != nil && o.Override.Overhead.Total().HasNegative():
		return fmt.Errorf("override.overhead: %s has a negative amount", o.Override.Overhead.Total())
	}
	return nil
}

func compareOfferings(a, b Offering) int {
	return cmp.Or(
		cmp.Compare(a.Zone, b.Zone),
		cmp.Compare(a.CapacityType, b.CapacityType),
		cmp.Compare(a.ReservationID, b.ReservationID),
		cmp.Compare(a.overrideKey(), b.overrideKey()),
	)
}

// WithCapacity returns a copy of the type with the given capacity and its
// allocatable recomputed (capacity less the type's overhead); the type
// itself is not changed. Package dra gives GPU types their devices this
// way.
func (it *InstanceType) WithCapacity(capacity resources.Vector) *InstanceType {
	out := *it
	out.Capacity = capacity
	out.allocatable = allocatable(capacity, it.Overhead)
	out.built = true
	return &out
}

// NodePrice is the price of the offering a running node of this type is on:
// its zone and capacity type (and, for reserved capacity, its reservation)
// from the node's labels, looked up among the offerings whether available
// or not, as Karpenter prices a running node. False when none matches or
// it is nil.
func (it *InstanceType) NodePrice(labels map[string]string) (float64, bool) {
	if it == nil {
		return 0, false
	}
	zone, capacityType := labels[apis.LabelTopologyZone], labels[apis.LabelCapacityType]
	for _, o := range it.Offerings {
		if o.Zone != zone || o.CapacityType != capacityType {
			continue
		}
		if id := labels[apis.LabelCapacityReservationID]; o.ReservationID != "" && id != "" && o.ReservationID != id {
			continue
		}
		return o.Price, true
	}
	return 0, false
}
