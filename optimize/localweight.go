package optimize

import (
	"cmp"
	"math"
	"slices"
)

// A neighbourhood whose pods ask for different things has no exact cover
// to weigh (see cannotImprove), but a weighted one still bounds it. Give
// each pod a weight, its request of one resource; a node of a column
// holds pods weighing at most some amount, its hold; so any set of new
// nodes holding all the pods costs at least their total weight times the
// least price per unit of hold over the columns. The bound holds for
// every placement, of whole pods or not, so it holds for the solve's.

// weightBound is, over the resources as weights, the largest such bound
// on placing the pods of groups (indices into m.groups), counts[k] of
// groups[k], on new nodes of m's columns; 0 when no column holds them.
func weightBound(m *model, groups, counts []int) float64 {
	best := 0.0
	// orders[e] are the groups that weigh something, by weight per unit
	// of resource e, most first; free what weighs and uses none of e.
	orders := make([][]weighed, len(m.dims))
	free := make([][]weighed, len(m.dims))
	for d := range m.dims {
		total := 0.0
		for k, gi := range groups {
			total += m.groups[gi].req[d] * float64(counts[k])
		}
		if total <= 0 {
			continue
		}
		for e := range m.dims {
			orders[e], free[e] = orders[e][:0], free[e][:0]
			for k, gi := range groups {
				g := &m.groups[gi]
				w := g.req[d]
				if w <= 0 {
					continue
				}
				it := weighed{shape: g.shape, weight: w, use: g.req[e], count: float64(counts[k])}
				if it.use <= 0 {
					free[e] = append(free[e], it)
				} else {
					orders[e] = append(orders[e], it)
				}
			}
			slices.SortStableFunc(orders[e], func(a, b weighed) int { return cmp.Compare(b.weight/b.use, a.weight/a.use) })
		}
		rate := math.Inf(1)
		for j := range m.columns {
			c := &m.columns[j]
			if hold := columnHold(c, orders, free); hold > 0 {
				rate = min(rate, c.price/hold)
			}
		}
		if math.IsInf(rate, 1) {
			return 0
		}
		best = max(best, total*rate)
	}
	return best
}

// weighed is a group as weightBound reads it for one weight and one
// resource: its shape, one pod's weight and use of the resource, and how
// many pods it has.
type weighed struct {
	shape              int
	weight, use, count float64
}

// columnHold is at least the most weight of the pods one node of the
// column holds: of the groups whose shape may go on it, at most their
// counts, within its room in each resource e alone, filled by orders[e]
// (a pod taken in part: a relaxation, never below the true most).
func columnHold(c *column, orders, free [][]weighed) float64 {
	hold := math.Inf(1)
	for e := range orders {
		got, room := 0.0, c.room[e]
		for _, it := range free[e] {
			if c.shapes.has(it.shape) {
				got += it.weight * it.count
			}
		}
		for _, it := range orders[e] {
			if room <= 0 {
				break
			}
			if !c.shapes.has(it.shape) {
				continue
			}
			n := min(it.count, room/it.use)
			got += n * it.weight
			room -= n * it.use
		}
		hold = min(hold, got)
	}
	return hold
}
