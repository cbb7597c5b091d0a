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

// launchSorted is the last of launchFilter for a claim whose options it
// reorders (its key): each option priced under the rule, those the rule
// leaves nothing of dropped under a spot cap, and the rest in launch
// order, by launch price, then name, ties in their order (a stable
// sort). Claims of one pool mostly share a priced list and a filter: the
// list's options the filter leaves are ordered once, and each claim's
// are picked from them in that order, in one pass, instead of being
// priced and sorted again. Options of several lists, which priceClaim
// never gives, are sorted.
func (s *solver) launchSorted(kept []*pricedOption, key launchFilterKey) []*pricedOption {
	if len(kept) == 0 {
		return kept
	}
	list := kept[0].list
	if list == nil || slices.ContainsFunc(kept, func(p *pricedOption) bool { return p.list != list }) {
		for _, p := range kept {
			p.launch = key.rule.price(p)
		}
		if !math.IsInf(key.rule.spotCap, 1) {
			kept = slices.DeleteFunc(kept, func(p *pricedOption) bool { return math.IsInf(p.launch, 1) })
		}
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
		order = list.launchOrder(key)
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

// byLaunch orders options by their launch price, then name.
func byLaunch(a, b *pricedOption) int {
	// The names, dearer to compare, are compared only on a tie.
	if c := cmp.Compare(a.launch, b.launch); c != 0 {
		return c
	}
	return cmp.Compare(a.option.it.Name, b.option.it.Name)
}

// launchOrder sorts the list's options the filter key leaves by launch
// price, name and place in the list, as launchFilter filters a claim's: an available offering allowed, a
// reserved one when the claim keeps only those, not exotic when it sets
// those aside, and, under a spot price cap, an offering the rule leaves.
func (l *pricedList) launchOrder(key launchFilterKey) []*pricedOption {
	reserved := instancetypes.LaunchRank(apis.CapacityTypeReserved)
	// The options are counted first, so that the order is allocated once,
	// at its length.
	offered := func(p *pricedOption) bool {
		switch {
		case math.IsInf(p.cheapest, 1),
			key.hasReserved && p.best[reserved] < 0,
			key.dropExotic && p.option.exotic:
			return false
		}
		return true
	}
	capped := !math.IsInf(key.rule.spotCap, 1)
	n := 0
	for i := range l.options {
		if p := &l.options[i]; offered(p) {
			p.launch = key.rule.price(p)
			if !capped || !math.IsInf(p.launch, 1) {
				n++
			}
		}
	}
	order := make([]*pricedOption, 0, n)
	for i := range l.options {
		if p := &l.options[i]; offered(p) && (!capped || !math.IsInf(p.launch, 1)) {
			order = append(order, p)
		}
	}
	order = sortLaunch(order)
	l.orders = append(l.orders, launchOrder{key: key, options: order})
	return order
}

// byLaunchPos is byLaunch, ties by place in the list: a total order, so
// any sort that uses it gives the same order.
func byLaunchPos(a, b *pricedOption) int {
	if c := byLaunch(a, b); c != 0 {
		return c
	}
	return cmp.Compare(a.pos, b.pos)
}

// sortLaunch sorts a list's options, in the list's order, by byLaunchPos.
// A list is sorted by its options' cheapest prices, and an option's launch
// price is mostly its cheapest: those options are mostly in launch order
// already, and only the others (whose cheapest offering the rule leaves
// out) are sorted and merged in. When the first are not in order after
// all, all are sorted.
func sortLaunch(order []*pricedOption) []*pricedOption {
	var moved []*pricedOption
	kept := 0
	for _, p := range order {
		if p.launch == p.cheapest {
			order[kept] = p
			kept++
		} else {
			moved = append(moved, p)
		}
	}
	copy(order[kept:], moved)
	if !slices.IsSortedFunc(order[:kept], byLaunchPos) {
		slices.SortFunc(order, byLaunchPos)
		return order
	}
	if len(moved) == 0 {
		return order
	}
	slices.SortFunc(moved, byLaunchPos)
	// Merged from the back, into the list's own space.
	i, j := kept-1, len(moved)-1
	for k := len(order) - 1; j >= 0; k-- {
		if i >= 0 && byLaunchPos(order[i], moved[j]) > 0 {
			order[k] = order[i]
			i--
		} else {
			order[k] = moved[j]
			j--
		}
	}
	return order
}
