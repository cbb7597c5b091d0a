package scheduling

import (
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// offeringRequirementKeys are the requirement keys an offeringFilter
// reads besides the offerings' own labels.
var offeringRequirementKeys = [...]string{apis.LabelTopologyZone, apis.LabelCapacityType, apis.LabelCapacityReservationID, apis.LabelCapacityReservationType, apis.LabelCapacityReservationInterruptible}

// sameOfferingRequirements reports whether reqs state exactly what from's
// requirements state on every key an offering filter reads: the zone,
// capacity type and reservation keys and the keys of its options'
// offering labels. The offerings reqs allow of each option are then those
// from's allow, at the same prices.
func sameOfferingRequirements(reqs requirements.Requirements, from *template) bool {
	same := func(key string) bool {
		a, aok := reqs.Lookup(key)
		b, bok := from.requirements.Lookup(key)
		return aok == bok && (!aok || string(a.AppendKey(nil)) == string(b.AppendKey(nil)))
	}
	for _, key := range offeringRequirementKeys {
		if !same(key) {
			return false
		}
	}
	for _, key := range from.offeringLabelKeys() {
		if !same(key) {
			return false
		}
	}
	return true
}

// offeringLabelKeys are the distinct keys of the options' offering labels,
// sorted, read once.
func (t *template) offeringLabelKeys() []string {
	if t.labelKeys.read {
		return t.labelKeys.keys
	}
	var keys []string
	for _, o := range t.options {
		for i := range o.it.Offerings {
			if k := o.it.Offerings[i].Label.Key; k != "" && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	t.labelKeys.read, t.labelKeys.keys = true, keys
	return keys
}

// narrowOptions gives t, a pool narrowing from with the same offering
// requirements (sameOfferingRequirements), the options of from whose type
// meets filter, the requirements t changed: each keeps its available
// offerings, price, price order and exoticness, and only its DaemonSet
// overhead is worked out again, t's DaemonSets being those its own
// requirements admit. The options come out as compileTemplate makes them
// from the whole catalog.
func (t *template) narrowOptions(from *template, filter requirements.Requirements, daemons []*podInfo, catalogSize int) {
	pass := from.passing(filter)
	n := 0
	for _, ok := range pass {
		if ok {
			n++
		}
	}
	// The options kept are allocated together, and no more.
	slab := make([]typeOption, 0, n)
	fromIndex := make([]int, 0, n)
	t.options = make([]*typeOption, 0, n)
	var shared overheads
	for i, fo := range from.options {
		it := fo.it
		if !pass[i] {
			continue
		}
		overhead, ports := t.carries(it, daemons)
		room, carried := fo.room, fo.daemons
		if !overhead.Equal(*fo.daemons) {
			room, carried = it.Allocatable().Sub(overhead), shared.of(overhead)
		}
		slab = append(slab, typeOption{it: it, daemons: carried, room: room, daemonPorts: ports, exotic: fo.exotic, price: fo.price, index: len(slab)})
		t.options = append(t.options, &slab[len(slab)-1])
		fromIndex = append(fromIndex, fo.index)
		t.largest.Raise(&it.Capacity)
	}
	if from.noReservations.read && from.noReservations.none {
		t.noReservations.read, t.noReservations.none = true, true
	}
	t.shareWith(from, fromIndex)
	if len(t.options) == 0 {
		t.refuseEmpty(catalogSize)
	}
}

// narrowedFrom is the pool a template narrows with the same offerings,
// and where each of its options is among that pool's.
type narrowedFrom struct {
	from *template
	// fromIndex is, per option of the template, its index in from;
	// toIndex, per option of from, its index in the template or -1.
	fromIndex, toIndex []int
}

// sharedPrices are a pool's options priced under each offering
// signature (appendOfferingSignature), for the pools narrowing it: each
// option is priced once for all of them, not once per narrowing and
// solve. Only a pool whose offerings the signature tells apart whole
// shares them: no reserved offering and no offering label (which read
// requirements the signature leaves out).
type sharedPrices struct {
	byIndex map[string][]float64
	sorted  map[string][]pricedOption
}

// shareable reports whether the pool's options' prices may be shared by
// the pools narrowing it (see sharedPrices).
func (t *template) shareable() bool {
	if len(t.offeringLabelKeys()) > 0 {
		return false
	}
	for _, o := range t.options {
		for i := range o.it.Offerings {
			if o.it.Offerings[i].ReservationID != "" || o.it.Offerings[i].CapacityType == apis.CapacityTypeReserved {
				return false
			}
		}
	}
	return true
}

// shareWith makes t, a pool narrowing from with the same offering
// requirements, take its options' prices from from's, when from's are
// shareable; is, per option of t, its index in from.
func (t *template) shareWith(from *template, fromIndex []int) {
	if from.shared == nil {
		if !from.shareable() {
			return
		}
		from.shared = &sharedPrices{byIndex: map[string][]float64{}, sorted: map[string][]pricedOption{}}
	}
	n := &narrowedFrom{from: from, fromIndex: fromIndex, toIndex: make([]int, len(from.options))}
	for i := range n.toIndex {
		n.toIndex[i] = -1
	}
	for i, j := range fromIndex {
		n.toIndex[j] = i
	}
	t.narrowed = n
}

// optionPrices is, by option index, each option's cheapest offering the
// requirements allow (+Inf for none): the requirements' offering
// signature is key.
func (t *template) optionPrices(key string, reqs requirements.Requirements) []float64 {
	out := make([]float64, len(t.options))
	if n := t.narrowed; n != nil && n.from.shared != nil {
		from, ok := n.from.shared.byIndex[key]
		if !ok {
			from = n.from.optionPrices("", reqs)
			n.from.shared.byIndex[key] = from
		}
		// A solve may offer a prefix of the options (SolveBelow).
		for i := range out {
			out[i] = from[n.fromIndex[i]]
		}
		return out
	}
	for _, p := range priceOptions(t.options, reqs, true) {
		out[p.option.index] = p.cheapest
	}
	return out
}

// pricedOptions is priceOptions(t.options, reqs, false): the options
// priced and sorted by price, then name. A narrowing pool picks its
// options, in that order, from its pool's priced once.
func (t *template) pricedOptions(key string, reqs requirements.Requirements) []pricedOption {
	n := t.narrowed
	if n == nil || n.from.shared == nil {
		return priceOptions(t.options, reqs, false)
	}
	from, ok := n.from.shared.sorted[key]
	if !ok {
		from = priceOptions(n.from.options, reqs, false)
		n.from.shared.sorted[key] = from
	}
	out := make([]pricedOption, 0, len(t.options))
	for _, p := range from {
		if i := n.toIndex[p.option.index]; i >= 0 && i < len(t.options) {
			out = append(out, pricedOption{option: t.options[i], cheapest: p.cheapest, best: p.best})
		}
	}
	return out
}

// keyGroups are a template's options grouped by their instance type's
// requirement on one key: a pool's hundreds of types have a few dozen
// distinct vCPU counts, families or generations between them.
type keyGroups struct {
	// reqs are the distinct requirements; of is, per option, the index
	// of its type's, or -1 when its type does not constrain the key.
	reqs []requirements.Requirement
	of   []int32
}

// groupsOn returns the options' groups on the key, made on first use.
func (t *template) groupsOn(key string) *keyGroups {
	if g, ok := t.groups[key]; ok {
		return g
	}
	g := &keyGroups{of: make([]int32, len(t.options))}
	index := map[string]int32{}
	var buf []byte
	for i, o := range t.options {
		r, ok := o.it.Requirements.Lookup(key)
		if !ok {
			g.of[i] = -1
			continue
		}
		buf = r.AppendKey(buf[:0])
		k, ok := index[string(buf)]
		if !ok {
			k = int32(len(g.reqs))
			index[string(buf)] = k
			g.reqs = append(g.reqs, r)
		}
		g.of[i] = k
	}
	if t.groups == nil {
		t.groups = map[string]*keyGroups{}
	}
	t.groups[key] = g
	return g
}

// passing reports, per option, whether its type's requirements intersect
// the filter's (Requirements.IntersectsFast), weighing each of the
// filter's requirements once per group of types (groupsOn), not once per
// type: IntersectsFast is MeetsFast key by key.
func (t *template) passing(filter requirements.Requirements) []bool {
	pass := make([]bool, len(t.options))
	for i := range pass {
		pass[i] = true
	}
	for _, f := range filter.Items() {
		g := t.groupsOn(f.Key())
		meets := make([]bool, len(g.reqs))
		for k, r := range g.reqs {
			meets[k] = r.MeetsFast(f)
		}
		for i, k := range g.of {
			if k >= 0 && !meets[k] {
				pass[i] = false
			}
		}
	}
	return pass
}
