package scheduling

import (
	"cmp"
	"math"
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// launchFilterKey is what launchFilter decided for a claim besides which
// options it has: the rule, whether it kept only reserved options, and
// whether it set the exotic ones aside.
type launchFilterKey struct {
	rule                    launchRule
	hasReserved, dropExotic bool
}

// launchOrder is a priced list's options that a launch filter leaves, in
// launch order: by launch price, then name, then place in the list.
type launchOrder struct {
	key     launchFilterKey
	options []*pricedOption
}

// launchOrdered returns kept, the options launchFilter left of a claim
// under the filter key, in launch order (byLaunch, ties in their order in
// the list, as a stable sort leaves them). Claims of one pool mostly
// share a priced list and a filter: the list's options the filter leaves
// are sorted once, and each claim's are picked from them in that order,
// in one pass, instead of being sorted again. Options of several lists,
// which priceClaim never gives, are sorted.
func (s *solver) launchOrdered(kept []*pricedOption, key launchFilterKey, byLaunch func(a, b *pricedOption) int) []*pricedOption {
	byPlace := func(a, b *pricedOption) int { return cmp.Or(byLaunch(a, b), cmp.Compare(a.pos, b.pos)) }
	list := kept[0].list
	if list == nil || slices.ContainsFunc(kept, func(p *pricedOption) bool { return p.list != list }) {
		slices.SortStableFunc(kept, byLaunch)
		return kept
	}
	var order []*pricedOption
	for _, o := range list.orders {
		if o.key == key {
			order = o.options
			break
		}
	}
	if order == nil {
		order = list.launchOrder(key, byPlace)
	}
	member := slices.Grow(s.scratch.member[:0], len(list.options))[:len(list.options)]
	clear(member)
	for _, p := range kept {
		member[p.pos] = true
	}
	s.scratch.member = member
	out := kept[:0]
	for _, p := range order {
		if member[p.pos] {
			out = append(out, p)
		}
	}
	return out
}

// launchOrder sorts the list's options the filter key leaves, as
// launchFilter filters a claim's: an available offering allowed, a
// reserved one when the claim keeps only those, not exotic when it sets
// those aside, and, under a spot price cap, an offering the rule leaves.
func (l *pricedList) launchOrder(key launchFilterKey, byPlace func(a, b *pricedOption) int) []*pricedOption {
	reserved := instancetypes.LaunchRank(apis.CapacityTypeReserved)
	var order []*pricedOption
	for i := range l.options {
		p := &l.options[i]
		switch {
		case math.IsInf(p.cheapest, 1),
			key.hasReserved && p.best[reserved] < 0,
			key.dropExotic && p.option.exotic:
			continue
		}
		p.launch = key.rule.price(p)
		if !math.IsInf(key.rule.spotCap, 1) && math.IsInf(p.launch, 1) {
			continue
		}
		order = append(order, p)
	}
	slices.SortFunc(order, byPlace)
	l.orders = append(l.orders, launchOrder{key: key, options: order})
	return order
}
