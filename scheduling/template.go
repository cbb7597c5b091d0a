package scheduling

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// template is a NodePool compiled for one solve: the requirements and taints
// every claim from it starts with, the instance types it may launch with the
// DaemonSet overhead each would carry, and what its limits leave.
type template struct {
	// groups are its options grouped by a key's requirement, for the
	// pools narrowing it (groupsOn).
	groups       map[string]*keyGroups
	name         string
	weight       int32
	requirements requirements.Requirements
	// daemonView is requirements with the labels Karpenter sets on a node
	// once it registers and initializes: a DaemonSet may select them, and
	// Karpenter counts such DaemonSets as running on a new node, without
	// the labels becoming the claim's requirements.
	daemonView requirements.Requirements
	// undefined are the label keys a claim may leave undefined: the
	// well-known ones and those the pool's instance types carry.
	undefined requirements.Undefined
	taints    []corev1.Taint
	// priced memoizes the options priced and sorted under each offering
	// filter claims of this pool have, keyed by appendOfferingSignature.
	priced map[string]*pricedList
	// prices memoizes, for PackCheapest, the options' prices under each
	// offering filter claims of this pool have.
	prices map[string]optionPrices
	// memo, when set, is what earlier solves of a Prepared worked out for
	// the template's options (solveMemo); priced and prices are its maps.
	memo *templateMemo
	// limitList is the NodePool's limits, which limits counts down.
	limitList corev1.ResourceList
	// reserved is set when some option has a reserved offering.
	reserved bool
	// noReservations says, once read, whether no option has an offering
	// of a capacity reservation (unreserved).
	noReservations struct{ read, none bool }
	// minValues is set when some requirement asks for minValues;
	// bestEffort when MinValuesPolicy BestEffort lets claims fall short.
	minValues, bestEffort bool
	options               []*typeOption
	// largest is, per resource, the largest capacity among the options
	// (an upper bound for any subset of them).
	largest resources.Vector
	// run is the last shared slice of options, by its first element's
	// address and length, whose largest capacity largestOf worked out:
	// claims of one workload keep the same.
	run struct {
		at      **typeOption
		n       int
		largest resources.Vector
	}
	limits limits
	// refused says why the pool can launch nothing at all, or "".
	refused string
	// variants is set when some instance type comes as several options
	// (its offerings override its capacity): a claim's option names are
	// then told apart from repeats.
	variants bool
	// narrowed, when set, is the pool t narrows with the same offerings
	// (narrowOptions), whose prices t's options take.
	narrowed *narrowedFrom
	// shared is what the pools narrowing t share of its prices.
	shared *sharedPrices
	// labelKeys are the options' offering label keys, once read
	// (offeringLabelKeys).
	labelKeys struct {
		read bool
		keys []string
	}
	// optionIndex is each option's index by its type, once asked for
	// (Compiler.LabelGroups).
	optionIndex map[*instancetypes.InstanceType]int32

	// daemonPorts is set when some type's DaemonSet pods use host ports.
	daemonPorts bool
	// volumeLimited is set when some option's type limits the volumes of
	// a CSI driver (InstanceType.VolumeAttachmentLimits): only then do
	// claims count their pods' volumes.
	volumeLimited bool
	// limitedCatalog is the NodePool's whole catalog when some type of it
	// limits volumes, nil otherwise: an existing node of the pool takes its
	// type's limits for the drivers its CSINode has not published, its type
	// looked up among all the NodePool's types, as Karpenter looks it up.
	limitedCatalog instancetypes.Catalog
	// claims counts the claims created from the pool, for naming.
	claims int
	// next is what nextClaim made for claim number next.claims+1.
	next struct {
		made         bool
		claims       int
		hostname     string
		requirements requirements.Requirements
	}
}

// typeOption is an instance type as a pool would launch it.
type typeOption struct {
	it *instancetypes.InstanceType
	// daemons is the DaemonSet overhead the type would carry in this pool,
	// shared by the options that carry the same (overheads).
	daemons *resources.Vector
	// room is what pods may use: allocatable less daemons.
	room resources.Vector
	// daemonPorts are the host ports of the DaemonSet pods the type would
	// carry: a pod asking for one of them cannot use the type.
	daemonPorts []hostPort
	// index is the option's place in its template's options, which are in
	// order of price: the cheapest offering the pool allows.
	index int
	price float64
	// exotic is it.Exotic(), which the launch sets aside.
	exotic bool
}

// compileTemplates turns NodePools into templates, ordered by weight
// (highest first) and then by name descending, as Karpenter orders them.
func compileTemplates(pools []Pool, daemons []*podInfo, minValuesBestEffort bool) []*template {
	return compileTemplatesWith(pools, func(p Pool) *template { return compileTemplate(p, daemons, nil, nil) }, minValuesBestEffort)
}

// compileTemplatesWith is compileTemplates compiling each pool with
// compile (see Compiler).
func compileTemplatesWith(pools []Pool, compile func(Pool) *template, minValuesBestEffort bool) []*template {
	templates := make([]*template, 0, len(pools))
	for _, p := range pools {
		t := compile(p)
		t.bestEffort = minValuesBestEffort
		templates = append(templates, t)
	}
	slices.SortStableFunc(templates, func(a, b *template) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		return cmp.Compare(b.name, a.name)
	})
	return templates
}

// compileTemplate compiles the pool; undefined, when not nil, is what
// the pool's catalog lets a claim leave undefined (its label keys), which
// is read from the catalog otherwise. from, when not nil, is the compiled
// pool this one narrows, of the same catalog with no type of several
// variants (see Compiler.PrepareNarrowing): only its options can be this
// one's, and only on the requirements that differ from its
// (Requirements.ChangedFrom).
func compileTemplate(p Pool, daemons []*podInfo, undefined requirements.Undefined, from *template) *template {
	np := p.NodePool
	t := &template{name: np.Name, weight: ptrValue(np.Spec.Weight), taints: np.Spec.Template.Spec.Taints, limitList: np.Spec.Limits, limits: newLimits(np.Spec.Limits)}
	// Karpenter provisions from neither a NodePool being deleted nor a
	// static one (spec.replicas), whose nodes its own controller makes.
	switch {
	case np.DeletionTimestamp != nil:
		t.refused = "the NodePool is being deleted"
		return t
	case np.Spec.Replicas != nil:
		t.refused = "the NodePool is static (spec.replicas): Karpenter does not provision from it for pending pods"
		return t
	}
	reqs, err := requirements.FromNodePool(np.Spec.Template)
	if err != nil {
		t.refused = fmt.Sprintf("invalid requirements: %v", err)
		return t
	}
	t.requirements = reqs.Add(requirements.In(apis.LabelNodePool, np.Name))
	t.daemonView = t.requirements.Add(requirements.In(apis.LabelNodeRegistered, "true"), requirements.In(apis.LabelNodeInitialized, "true"))
	if undefined == nil {
		undefined = catalogUndefined(p.InstanceTypes)
	}
	t.undefined = undefined
	t.minValues = t.requirements.HasMinValues()
	if slices.ContainsFunc(p.InstanceTypes, func(it *instancetypes.InstanceType) bool { return len(it.VolumeAttachmentLimits) > 0 }) {
		t.limitedCatalog = p.InstanceTypes
	}
	compatibleDaemons := t.compatibleDaemons(daemons)
	offerings := newOfferingFilter(t.requirements)
	var types []*instancetypes.InstanceType
	filter := t.requirements
	// samePrices is set when the pool narrows from and leaves every
	// requirement an offering's price reads as it was: each option of
	// from kept is then priced as from priced it, in the same order.
	samePrices := false
	if from != nil {
		types, filter = make([]*instancetypes.InstanceType, len(from.options)), t.requirements.ChangedFrom(from.requirements)
		for i, o := range from.options {
			types[i] = o.it
		}
		samePrices = sameOfferingRequirements(t.requirements, from)
	} else {
		types = withVariants(p.InstanceTypes)
		t.variants = len(types) != len(p.InstanceTypes)
	}
	if samePrices {
		t.narrowOptions(from, filter, compatibleDaemons, len(p.InstanceTypes))
		return t
	}
	// The options are allocated together: most types make one.
	slab := make([]typeOption, 0, len(types))
	var shared overheads
	for _, it := range types {
		if !it.Requirements.IntersectsFast(filter) || !offerings.hasOffering(it) {
			continue
		}
		overhead, ports := t.carries(it, compatibleDaemons)
		slab = append(slab, typeOption{it: it, daemons: shared.of(overhead), room: it.Allocatable().Sub(overhead), daemonPorts: ports, exotic: it.Exotic()})
		t.options = append(t.options, &slab[len(slab)-1])
	}
	if len(t.options) == 0 {
		t.refuseEmpty(len(p.InstanceTypes))
	}
	// In price order, claims that keep the pool's offering requirements
	// inherit their options already sorted (filtering keeps the order).
	t.options = sortByPrice(t.options, t.requirements)
	for i, o := range t.options {
		o.index = i
		t.largest.Raise(&o.it.Capacity)
	}
	return t
}

// withVariants is the catalog with each type whose offerings override its
// capacity split into its variants (InstanceType.Variants), each an option
// of its own; the catalog itself when none does, as is usual.
func withVariants(cat instancetypes.Catalog) []*instancetypes.InstanceType {
	var out []*instancetypes.InstanceType
	for i, it := range cat {
		if out == nil && !slices.ContainsFunc(it.Offerings, func(o instancetypes.Offering) bool { return o.Override != nil }) {
			// No offering overrides anything: the type is its only
			// variant, and asking would allocate the list saying so.
			continue
		}
		variants := it.Variants()
		if len(variants) == 1 && out == nil {
			continue
		}
		if out == nil {
			out = slices.Clone(cat[:i])
		}
		out = append(out, variants...)
	}
	if out == nil {
		return cat
	}
	return out
}

// sortByPrice orders options by their cheapest offering the requirements
// allow, then by name.
func sortByPrice(options []*typeOption, reqs requirements.Requirements) []*typeOption {
	priced := priceOptions(options, reqs, false)
	out := make([]*typeOption, len(priced))
	for i := range priced {
		out[i] = priced[i].option
		out[i].price = priced[i].cheapest
	}
	return out
}

// compatibleDaemons are the DaemonSet pods that would run on the pool's
// nodes: they tolerate its taints (PreferNoSchedule ones need no
// toleration) and their node requirements are compatible with the pool's,
// as a node of the pool is labelled once registered and initialized.
func (t *template) compatibleDaemons(daemons []*podInfo) []*podInfo {
	var out []*podInfo
	for _, d := range daemons {
		if d.invalid() != nil {
			continue
		}
		taints := slices.DeleteFunc(slices.Clone(t.taints), func(taint corev1.Taint) bool {
			return taint.Effect == corev1.TaintEffectPreferNoSchedule
		})
		if tolerates(taints, d.pod.Spec.Tolerations) != nil {
			continue
		}
		if !t.daemonRuns(d, nil) {
			continue
		}
		out = append(out, d)
	}
	return out
}

// daemonRuns reports whether the DaemonSet pod d would run on the pool's
// nodes of type it (nil: of some type): one of its alternative
// requirements must be compatible with the pool's and, given a type,
// intersect the type's.
func (t *template) daemonRuns(d *podInfo, it *instancetypes.InstanceType) bool {
	for _, reqs := range d.daemonReqs() {
		if t.daemonView.CompatibleFast(reqs, t.undefined) && (it == nil || it.Requirements.IntersectsFast(reqs)) {
			return true
		}
	}
	return false
}

// offeringFilter is what a set of requirements says of offerings: the
// zones, capacity types and capacity reservations it allows, looked up once.
type offeringFilter struct {
	zone, capacityType, reservation, reservationType, interruptible requirements.Requirement
	hasReservation, hasReservationType, hasInterruptible            bool
	// reqs are for the offerings' own labels (instancetypes.OfferingLabel).
	reqs requirements.Requirements
}

func newOfferingFilter(reqs requirements.Requirements) offeringFilter {
	f := offeringFilter{zone: reqs.Get(apis.LabelTopologyZone), capacityType: reqs.Get(apis.LabelCapacityType), reqs: reqs}
	f.reservation, f.hasReservation = reqs.Lookup(apis.LabelCapacityReservationID)
	f.reservationType, f.hasReservationType = reqs.Lookup(apis.LabelCapacityReservationType)
	f.interruptible, f.hasInterruptible = reqs.Lookup(apis.LabelCapacityReservationInterruptible)
	return f
}

// allows reports whether the offering's zone, capacity type, label and
// reservation (its ID, and its type when known) are allowed; availability is the
// caller's to check.
func (f *offeringFilter) allows(o *instancetypes.Offering) bool {
	if !f.zone.Has(o.Zone) || !f.capacityType.Has(o.CapacityType) || !o.Label.AllowedBy(f.reqs) {
		return false
	}
	if f.hasReservationType && o.ReservationType != "" && !f.reservationType.Has(o.ReservationType) {
		return false
	}
	if f.hasInterruptible && o.ReservationID != "" && !f.interruptible.Has(strconv.FormatBool(o.Interruptible)) {
		return false
	}
	if f.hasReservation && o.ReservationID != "" {
		return f.reservation.Has(o.ReservationID)
	}
	return true
}

// hasOffering reports whether the type has an available offering the
// filter allows.
func (f *offeringFilter) hasOffering(it *instancetypes.InstanceType) bool {
	for i := range it.Offerings {
		if it.Offerings[i].Available && f.allows(&it.Offerings[i]) {
			return true
		}
	}
	return false
}

func ptrValue[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// largestOf is, per resource, the largest capacity among the options, a
// new claim's; shared says they are a slice claims share, read-only (a run
// of the template's options, or a new claim's options kept by the memo),
// whose answer is kept for the next claim keeping the same.
func (t *template) largestOf(options []*typeOption, shared bool) resources.Vector {
	if shared && len(options) > 0 && t.run.n == len(options) && t.run.at == &options[0] {
		return t.run.largest
	}
	var largest resources.Vector
	for _, o := range options {
		largest.Raise(&o.it.Capacity)
	}
	if shared && len(options) > 0 {
		t.run.at, t.run.n, t.run.largest = &options[0], len(options), largest
	}
	return largest
}

// carries is the DaemonSet overhead and host ports the type would carry
// in the pool, of the daemons that may run there; it notes on the template
// whether any option carries ports or limits volumes.
func (t *template) carries(it *instancetypes.InstanceType, daemons []*podInfo) (resources.Vector, []hostPort) {
	var overhead resources.Vector
	var ports []hostPort
	for _, d := range daemons {
		if t.daemonRuns(d, it) {
			overhead = overhead.Add(*d.requests)
			ports = append(ports, d.hostPorts()...)
		}
	}
	t.daemonPorts = t.daemonPorts || len(ports) > 0
	t.volumeLimited = t.volumeLimited || len(it.VolumeAttachmentLimits) > 0
	return overhead, ports
}

// refuseEmpty says why a pool left with no option launches nothing.
func (t *template) refuseEmpty(catalogSize int) {
	t.refused = fmt.Sprintf("no instance type of %d matches the NodePool's requirements (%s) with an available offering", catalogSize, t.requirements)
}

// overheads are the DaemonSet overheads of a template's options, each
// kept once: most types carry the same, and an option is read often.
type overheads []*resources.Vector

// of returns the overhead equal to v, kept on first use.
func (o *overheads) of(v resources.Vector) *resources.Vector {
	for _, known := range *o {
		if known.Equal(v) {
			return known
		}
	}
	*o = append(*o, &v)
	return &v
}
