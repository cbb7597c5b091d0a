package scheduling

import (
	"cmp"
	"fmt"

	"math"
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// result turns the solver's state into the Result.
func (s *solver) result() Result {
	r := Result{Bindings: []Binding{}, Unschedulable: []Unschedulable{}, NodeClaims: make([]NodeClaim, 0, len(s.claims))}
	for _, e := range s.existing {
		for _, p := range e.placed {
			r.Bindings = append(r.Bindings, Binding{Pod: p.key, Node: e.node.Name, Buffer: apis.IsBufferPod(p.pod)})
		}
	}
	slices.SortFunc(r.Bindings, func(a, b Binding) int { return cmp.Compare(a.Pod, b.Pod) })
	// Claims are reported in creation order, which sorting by pod count
	// during the solve shuffled.
	claims := slices.Clone(s.claims)
	slices.SortFunc(claims, func(a, b *claim) int {
		if c := cmp.Compare(a.tmpl.name, b.tmpl.name); c != 0 {
			return c
		}
		return cmp.Compare(claimNumber(a), claimNumber(b))
	})
	for _, c := range claims {
		nc := s.finalize(c)
		// Truncation may leave too few distinct values for a minValues
		// requirement; Karpenter then drops the claim and reports its pods.
		if !c.tmpl.bestEffort && len(nc.InstanceTypeOptions) < len(c.options) {
			if short := minValuesShortfall(c.requirements, s.scratch.options, nil); short != "" {
				for _, p := range c.pods {
					s.failed[p] = fmt.Errorf("NodePool %q: %s after truncating to %d instance types", c.tmpl.name, short, len(nc.InstanceTypeOptions))
				}
				continue
			}
		}
		if c.bestEffort {
			nc.MinValuesRelaxed = relaxedMinValues(c.requirements, c.options)
		}
		r.NodeClaims = append(r.NodeClaims, nc)
		if c.bestEffort {
			s.warnings = append(s.warnings, fmt.Sprintf("NodeClaim %s launches with fewer distinct values than minValues asks (MinValuesPolicy BestEffort): %s", c.name, minValuesShortfall(c.requirements, c.options, nil)))
		}
	}
	for p, err := range s.failed {
		r.Unschedulable = append(r.Unschedulable, Unschedulable{Pod: p.key, Reason: err.Error(), Buffer: apis.IsBufferPod(p.pod)})
	}
	slices.SortFunc(r.Unschedulable, func(a, b Unschedulable) int { return cmp.Compare(a.Pod, b.Pod) })
	r.Summary = Summary{
		Pods:              len(s.pods),
		UnschedulablePods: len(r.Unschedulable),
		ScheduledPods:     len(s.pods) - len(r.Unschedulable),
		NodeClaims:        len(r.NodeClaims),
	}
	for _, c := range r.NodeClaims {
		r.Summary.PricePerHour += c.PricePerHour
	}
	for _, p := range s.pods {
		if apis.IsBufferPod(p.pod) {
			r.Summary.BufferPods++
		}
	}
	r.Summary.ScheduledBufferPods = r.Summary.BufferPods
	for _, u := range r.Unschedulable {
		if u.Buffer {
			r.Summary.ScheduledBufferPods--
		}
	}
	r.Summary.PricePerHour = math.Round(r.Summary.PricePerHour*1e6) / 1e6
	r.Warnings = slices.Clone(s.warnings)
	return r
}

// claimNumber is the n of a claim named "<pool>-<n>".
func claimNumber(c *claim) int {
	n := 0
	for _, ch := range c.name[len(c.tmpl.name)+1:] {
		n = n*10 + int(ch-'0')
	}
	return n
}

// finalize orders a claim's instance types by price, truncates them, and
// picks the launch offering.
func (s *solver) finalize(c *claim) NodeClaim {
	s.final.settle(c)
	// Claims that ended alike launch alike (finalMemo).
	key, memo := s.final.key(c)
	if memo {
		if out, ok := s.final.lookup(key, c); ok {
			out.Name, out.Pods, out.BufferPods = c.name, podKeys(c.pods), bufferPods(c.pods)
			return out
		}
	}
	out := s.finalizeClaim(c, c.requirements.Without(apis.LabelHostname))
	if memo {
		s.final.remember(key, c, out)
	}
	return out
}

// podKeys are the pods' namespace/name keys.
func podKeys(pods []*podInfo) []string {
	keys := make([]string, len(pods))
	for i, p := range pods {
		keys[i] = p.key
	}
	return keys
}

// bufferPods counts the buffer pods among the pods.
func bufferPods(pods []*podInfo) int {
	n := 0
	for _, p := range pods {
		if apis.IsBufferPod(p.pod) {
			n++
		}
	}
	return n
}

// finalizeClaim is finalize worked out, for the settled claim and its
// requirements less the hostname.
func (s *solver) finalizeClaim(c *claim, reqs requirements.Requirements) NodeClaim {
	// A claim holding reservations launches into one of them, and not into
	// another claim's.
	if ids := s.reservations.heldIDs(c.hostname); len(ids) > 0 {
		reqs = reqs.Add(requirements.In(apis.LabelCapacityReservationID, ids...))
	} else if c.tmpl.reserved {
		// Holding none, it cannot launch into any (ReservedFallback).
		reqs = reqs.Add(requirements.NotIn(apis.LabelCapacityType, apis.CapacityTypeReserved))
	}
	priced := c.tmpl.priceClaim(c.options, reqs, s.opts.maxInstanceTypes(), &s.scratch)
	out := NodeClaim{
		Name:                c.name,
		NodePool:            c.tmpl.name,
		Requirements:        reqs.NodeSelectorRequirements(),
		Pods:                podKeys(c.pods),
		BufferPods:          bufferPods(c.pods),
		InstanceTypeOptions: s.optionNames(priced, c.tmpl.variants),
	}
	options := s.scratch.options[:0]
	for _, p := range priced {
		options = append(options, p.option)
	}
	s.scratch.options = options
	out.Requests = c.requests.Add(minDaemons(options)).Strings()
	fleet, rule := s.launchFilter(priced, reqs)
	if launch, ok := launchChoice(fleet, rule); ok {
		out.InstanceType, out.Zone, out.CapacityType, out.PricePerHour = launch.it.Name, launch.offering.Zone, launch.offering.CapacityType, launch.offering.Price
		// EC2 is offered the options' offerings of the capacity type launched.
		k := instancetypes.LaunchRank(launch.offering.CapacityType)
		n := 0
		for _, p := range fleet {
			if rule.allows(p, k) {
				n++
			}
		}
		out.LaunchOptions = make([]string, 0, n)
		for _, p := range fleet {
			if rule.allows(p, k) {
				out.LaunchOptions = append(out.LaunchOptions, p.option.it.Name)
			}
		}
	}
	return out
}

// namesKey identifies a list of instance type names well enough to find
// the lists worth comparing with: by length and first and last type.
type namesKey struct {
	n           int
	first, last *instancetypes.InstanceType
}

// optionNames returns the names of the priced options. Claims often end
// with the same options, and then share one list: the last made with the
// same length, first and last type. With variants, a type that comes as
// several options is named once, where its cheapest is.
func (s *solver) optionNames(priced []*pricedOption, variants bool) []string {
	if len(priced) == 0 {
		return []string{}
	}
	if variants {
		names := make([]string, 0, len(priced))
		seen := map[string]bool{}
		for _, p := range priced {
			if name := p.option.it.Name; !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
		return names
	}
	if names, ok := runNames(priced); ok {
		return names
	}
	key := namesKey{len(priced), priced[0].option.it, priced[len(priced)-1].option.it}
	if names, ok := s.names[key]; ok && sameNames(names, priced) {
		return names
	}
	names := make([]string, len(priced))
	for i, p := range priced {
		names[i] = p.option.it.Name
	}
	if s.names == nil {
		s.names = map[namesKey][]string{}
	}
	s.names[key] = names
	return names
}

// runNames returns, when the priced options are a run of one offering
// filter's list (most claims keep the types their pods fit, the dearer
// ones, whole), that run of the list's names: every claim's list is then
// part of one.
func runNames(priced []*pricedOption) ([]string, bool) {
	list, first := priced[0].list, priced[0].pos
	if list == nil {
		return nil, false
	}
	for k, p := range priced {
		if p.list != list || p.pos != first+k {
			return nil, false
		}
	}
	if list.names == nil {
		list.names = make([]string, len(list.options))
		for i := range list.options {
			list.names[i] = list.options[i].option.it.Name
		}
	}
	end := first + len(priced)
	return list.names[first:end:end], true
}

// sameNames reports whether names are the names of the priced options.
func sameNames(names []string, priced []*pricedOption) bool {
	for i, p := range priced {
		if names[i] != p.option.it.Name {
			return false
		}
	}
	return true
}

// pricedOption is an option with its cheapest allowed offerings: overall,
// which orders the options, and per capacity type, which picks the launch.
type pricedOption struct {
	option   *typeOption
	cheapest float64
	// list and pos, for an option of a template's priced list (priceClaim),
	// are that list and the option's place in it.
	list *pricedList
	pos  int
	// best holds, per launch capacity type (instancetypes.LaunchOrder), the index of
	// the cheapest allowed available offering, or -1.
	best [instancetypes.LaunchCapacityTypes]int
	// launch is the option's price under the launch filters (launchRule.price),
	// set by launchFilter before it sorts by it.
	launch float64
}

// priceOptions prices each option by its available offerings the
// requirements allow, in one pass, and sorts them cheapest first, then by
// name, unless they are known to be in that order already.
func priceOptions(options []*typeOption, reqs requirements.Requirements, sorted bool) []pricedOption {
	f := newOfferingFilter(reqs)
	out := make([]pricedOption, len(options))
	for i, o := range options {
		p := pricedOption{option: o, cheapest: math.Inf(1), best: [3]int{-1, -1, -1}}
		for j := range o.it.Offerings {
			offering := &o.it.Offerings[j]
			if !offering.Available || !f.allows(offering) {
				continue
			}
			p.cheapest = min(p.cheapest, offering.Price)
			if k := instancetypes.LaunchRank(offering.CapacityType); k >= 0 && (p.best[k] < 0 || preferred(offering, &o.it.Offerings[p.best[k]])) {
				p.best[k] = j
			}
		}
		out[i] = p
	}
	if sorted {
		return out
	}
	slices.SortFunc(out, func(a, b pricedOption) int {
		if c := cmp.Compare(a.cheapest, b.cheapest); c != 0 {
			return c
		}
		return cmp.Compare(a.option.it.Name, b.option.it.Name)
	})
	return out
}

// priceClaim prices a claim's options under its requirements, and returns
// the cheapest, at most limit of them. Prices depend only on the
// requirements' offering keys, so the pool's whole option list is priced
// and sorted once per distinct offering filter, and a claim keeps, in that
// order, the options it still has: pointers into the shared list, which
// nothing changes. The returned slice is scratch space, good until the
// next call.
func (t *template) priceClaim(options []*typeOption, reqs requirements.Requirements, limit int, scratch *scratchSpace) []*pricedOption {
	key := appendOfferingSignature(scratch.signature[:0], reqs)
	scratch.signature = key
	list, ok := t.priced[string(key)]
	if !ok {
		list = &pricedList{options: t.pricedOptions(string(key), reqs)}
		for i := range list.options {
			list.options[i].list, list.options[i].pos = list, i
		}
		if t.priced == nil {
			t.priced = map[string]*pricedList{}
		}
		t.priced[string(key)] = list
	}
	priced := list.options
	// A claim with as many options as the pool has them all.
	every := len(options) == len(t.options)
	keep := scratch.keep
	if !every {
		keep = slices.Grow(keep[:0], len(t.options))[:len(t.options)]
		clear(keep)
		for _, o := range options {
			keep[o.index] = true
		}
	}
	out := scratch.priced[:0]
	for i := range priced {
		if len(out) == limit {
			break
		}
		if every || keep[priced[i].option.index] {
			out = append(out, &priced[i])
		}
	}
	scratch.keep, scratch.priced = keep, out
	return out
}

// pricedList is a template's options priced and sorted under one offering
// filter, with their names once a claim's options were a run of them
// (runNames).
type pricedList struct {
	options []pricedOption
	names   []string
	// orders are the list's options in launch order under each launch
	// filter claims had (launchOrdered).
	orders []launchOrder
}

// appendOfferingSignature appends to b what identifies what requirements
// allow of offerings: their zone, capacity type and capacity reservation
// requirements, exactly.
func appendOfferingSignature(b []byte, reqs requirements.Requirements) []byte {
	for _, key := range [...]string{apis.LabelTopologyZone, apis.LabelCapacityType, apis.LabelCapacityReservationID} {
		if r, ok := reqs.Lookup(key); ok {
			b = r.AppendKey(b)
		}
		b = append(b, '|')
	}
	return b
}

// launchFilter returns the options Karpenter's AWS provider offers EC2 for
// a claim (its CreateFleet overrides), and which offerings of them a launch
// may take. In the provider's order:
//
//   - options without an available offering the requirements allow go;
//   - when any option has a reserved offering, only those options remain,
//     with only their reserved offerings;
//   - unless a requirement has minValues, exotic options (bare metal,
//     accelerators) go when any other option remains;
//   - unless a requirement has minValues, when both spot and on-demand are
//     allowed and offered, spot offerings dearer than the cheapest
//     on-demand offering go, and options left with none go;
//   - the cheapest MaxLaunchOptions remain, by their cheapest offering left,
//     then by name.
//
// The returned slice is scratch space, good until the next call.
func (s *solver) launchFilter(priced []*pricedOption, reqs requirements.Requirements) ([]*pricedOption, launchRule) {
	rule := launchRule{spotCap: math.Inf(1), capacityTypes: [instancetypes.LaunchCapacityTypes]bool{true, true, true}}
	reserved := instancetypes.LaunchRank(apis.CapacityTypeReserved)
	kept := s.scratch.fleet[:0]
	hasReserved := false
	for _, p := range priced {
		if !math.IsInf(p.cheapest, 1) {
			kept = append(kept, p)
			hasReserved = hasReserved || p.best[reserved] >= 0
		}
	}
	reorder, dropExotic := false, false
	if hasReserved {
		rule.capacityTypes = [instancetypes.LaunchCapacityTypes]bool{}
		rule.capacityTypes[reserved] = true
		kept = slices.DeleteFunc(kept, func(p *pricedOption) bool { return p.best[reserved] < 0 })
		reorder = true
	}
	if !reqs.HasMinValues() {
		generic := 0
		for _, p := range kept {
			if !p.option.exotic {
				generic++
			}
		}
		if generic > 0 && generic < len(kept) {
			kept = slices.DeleteFunc(kept, func(p *pricedOption) bool { return p.option.exotic })
			dropExotic = true
		}
		if !hasReserved {
			rule.spotCap = cheapestOnDemandOverSpot(kept, reqs)
		}
	}
	s.scratch.fleet = kept
	if reorder || !math.IsInf(rule.spotCap, 1) {
		kept = s.launchSorted(kept, launchFilterKey{rule: rule, hasReserved: hasReserved, dropExotic: dropExotic})
	}
	if len(kept) > instancetypes.MaxLaunchOptions {
		kept = kept[:instancetypes.MaxLaunchOptions]
	}
	return kept, rule
}

// launchRule is which offerings the AWS provider's launch filters leave:
// those of the capacity types (by launch rank) it keeps, spot ones only up
// to spotCap.
type launchRule struct {
	capacityTypes [instancetypes.LaunchCapacityTypes]bool
	spotCap       float64
}

// allows reports whether the option's cheapest offering of launch rank k
// is left.
func (r launchRule) allows(p *pricedOption, k int) bool {
	j := p.best[k]
	if j < 0 || !r.capacityTypes[k] {
		return false
	}
	return k != instancetypes.LaunchRank(apis.CapacityTypeSpot) || p.option.it.Offerings[j].Price <= r.spotCap
}

// price is the option's cheapest offering left, +Inf when none is.
func (r launchRule) price(p *pricedOption) float64 {
	price := math.Inf(1)
	for k, j := range p.best {
		if r.allows(p, k) {
			price = min(price, p.option.it.Offerings[j].Price)
		}
	}
	return price
}

// cheapestOnDemandOverSpot is the AWS provider's cap on spot prices for a
// launch that allows both spot and on-demand and has offerings of both: the
// cheapest on-demand offering's price; +Inf otherwise.
func cheapestOnDemandOverSpot(options []*pricedOption, reqs requirements.Requirements) float64 {
	capacityType := reqs.Get(apis.LabelCapacityType)
	if !capacityType.Has(apis.CapacityTypeSpot) || !capacityType.Has(apis.CapacityTypeOnDemand) {
		return math.Inf(1)
	}
	spot, onDemand := instancetypes.LaunchRank(apis.CapacityTypeSpot), instancetypes.LaunchRank(apis.CapacityTypeOnDemand)
	hasSpot, cheapest := false, math.Inf(1)
	for _, p := range options {
		hasSpot = hasSpot || p.best[spot] >= 0
		if j := p.best[onDemand]; j >= 0 {
			cheapest = min(cheapest, p.option.it.Offerings[j].Price)
		}
	}
	if !hasSpot {
		return math.Inf(1)
	}
	return cheapest
}

// launch is the offering the cloud provider would launch.
type launch struct {
	it       *instancetypes.InstanceType
	offering instancetypes.Offering
}

// preferred reports whether a launch takes offering a over b: cheaper, or
// as cheap with a lower Preference.
func preferred(a, b *instancetypes.Offering) bool {
	return a.Price < b.Price || a.Price == b.Price && a.Preference < b.Preference
}

// launchChoice takes the first capacity type in launch order any option
// offers, and the cheapest offering of that type, ties going to the lower
// Preference, then to the cheaper option and then to the earlier zone. Only the offerings the
// rule leaves are taken.
func launchChoice(priced []*pricedOption, rule launchRule) (launch, bool) {
	for k := range instancetypes.LaunchCapacityTypes {
		var best launch
		found := false
		for _, p := range priced {
			if !rule.allows(p, k) {
				continue
			}
			offering := p.option.it.Offerings[p.best[k]]
			if !found || preferred(&offering, &best.offering) {
				best, found = launch{p.option.it, offering}, true
			}
		}
		if found {
			return best, true
		}
	}
	return launch{}, false
}
