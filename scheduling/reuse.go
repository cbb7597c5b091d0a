package scheduling

import (
	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// solveMemo keeps, across the solves of one Prepared (of every Prepared
// of one Compiler, which hands the same compiled NodePool to each), what a
// solve works out from the compiled NodePools alone: the options priced and sorted
// under each offering filter (template.priced and template.prices), and
// which reservations the options can launch into. Each is a function of a
// template's options, which SolveBelow may narrow to a prefix of them, so
// it is kept per template and length of that prefix. Nothing kept is
// changed once made (a pricedOption's launch field is scratch, written
// before every read), so a solve that finds an entry sees what it would
// have computed.
type solveMemo struct {
	views map[templateView]*templateMemo
}

// templateView is a compiled template, with the number of its options a
// solve offers.
type templateView struct {
	template *template
	options  int
}

type templateMemo struct {
	// meeting are, by requirementsKey, the options that meet requirements
	// on some keys (claim.meeting).
	meeting map[string][]*typeOption
	key     []byte
	priced  map[string]*pricedList
	prices  map[string]optionPrices
	// fresh are, by meeting's key and the requests, the options that hold
	// a new claim's first pod, with their most room and the roomiest
	// (claim.evaluateOptions): they depend on nothing else.
	fresh map[string]freshOptions
	// reserved are the reservations the options can launch into, with
	// their capacity, as newReservations reads them; nil when none.
	reserved map[string]int
}

// freshOptions are the options a new claim keeps for its first pod.
type freshOptions struct {
	options []*typeOption
	room    resources.Vector
	witness *typeOption
}

// view returns what the solves remember of the template offered its first
// n options, made on first use.
func (m *solveMemo) view(t *template, n int) *templateMemo {
	if m.views == nil {
		m.views = map[templateView]*templateMemo{}
	}
	key := templateView{t, n}
	tm, ok := m.views[key]
	if !ok {
		tm = &templateMemo{priced: map[string]*pricedList{}, prices: map[string]optionPrices{}, meeting: map[string][]*typeOption{}, fresh: map[string]freshOptions{}}
		for _, o := range t.options[:n] {
			if t.unreserved() {
				// No option's offering reserves anything.
				break
			}
			for _, of := range o.it.Offerings {
				if of.CapacityType != apis.CapacityTypeReserved || of.ReservationID == "" {
					continue
				}
				if tm.reserved == nil {
					tm.reserved = map[string]int{}
				}
				if c, ok := tm.reserved[of.ReservationID]; !ok || of.ReservationCapacity < c {
					tm.reserved[of.ReservationID] = of.ReservationCapacity
				}
			}
		}
		m.views[key] = tm
	}
	return tm
}

// addReserved is newReservations for a template whose memo holds its
// reservations.
func (r *reservations) addReserved(t *template) {
	for id, n := range t.memo.reserved {
		t.reserved = true
		if c, ok := r.capacity[id]; !ok || n < c {
			r.capacity[id] = n
		}
	}
}

// meeting returns the claim's options to weigh for evaluateOptions, and
// whether they are known to meet reqs on the keys and, with offerings set,
// to have an offering the filter allows. A claim that still has all its
// template's options takes them from the memo, where the first claim to
// ask for those requirements left them: which options meet requirements
// does not depend on the pod's requests or on the solve.
func (c *claim) meeting(reqs requirements.Requirements, keys []string, offerings bool, filter *offeringFilter) ([]*typeOption, bool) {
	m := c.tmpl.memo
	if m == nil || len(c.options) != len(c.tmpl.options) || (len(keys) == 0 && !offerings) {
		return c.options, false
	}
	key := m.key[:0]
	for _, k := range keys {
		if r, ok := reqs.Lookup(k); ok {
			key = r.AppendKey(key)
		} else {
			key = append(append(key, k...), 0, '-')
		}
		key = append(key, '|')
	}
	if offerings {
		key = append(key, '*')
		for _, k := range [...]string{apis.LabelTopologyZone, apis.LabelCapacityType, apis.LabelCapacityReservationID, apis.LabelCapacityReservationType, apis.LabelCapacityReservationInterruptible} {
			if r, ok := reqs.Lookup(k); ok {
				key = r.AppendKey(key)
			}
			key = append(key, '|')
		}
	}
	m.key = key
	if met, ok := m.meeting[string(key)]; ok {
		return met, true
	}
	met := []*typeOption{}
	for _, o := range c.options {
		if (len(keys) == 0 || o.it.Requirements.IntersectsOn(reqs, keys)) && (!offerings || filter.hasOffering(o.it)) {
			met = append(met, o)
		}
	}
	m.meeting[string(key)] = met
	return met, true
}

// LeftOut calls visit with the NodePool and instance type of every option
// SolveBelow(in, maxPrice) leaves out, in template order, until visit
// returns false; it reports whether visit never did. A caller that knows
// none of the options left out could take any of its pods (a claim's
// options are filtered by each pod it takes) knows the narrowed solve
// places them as a solve over every type does.
func (p *Prepared) LeftOut(maxPrice float64, visit func(pool string, it *instancetypes.InstanceType) bool) bool {
	if maxPrice <= 0 {
		return true
	}
	for _, t := range p.templates {
		n := cheaperCount(t.options, maxPrice)
		if n == 0 || n >= len(t.options) || n >= p.opts.maxInstanceTypes() {
			continue
		}
		for _, o := range t.options[n:] {
			if !visit(t.name, o.it) {
				return false
			}
		}
	}
	return true
}

// unreserved reports whether no option of the template has an offering
// of a capacity reservation, worked out once; a pool narrowing one
// without any has none either (narrowOptions).
func (t *template) unreserved() bool {
	if !t.noReservations.read {
		t.noReservations.read, t.noReservations.none = true, true
		for _, o := range t.options {
			for i := range o.it.Offerings {
				if of := &o.it.Offerings[i]; of.CapacityType == apis.CapacityTypeReserved && of.ReservationID != "" {
					t.noReservations.none = false
				}
			}
		}
	}
	return t.noReservations.none
}
