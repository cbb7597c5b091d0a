package optimize

import (
	"cmp"
	"math"
	"slices"
)

// A neighbourhood whose pods all ask for the same cannot be placed for
// less than the cheapest set of new nodes with room for them all, each
// node's type and offering one its pods may go on, as the model of the
// input reads them (its columns: a superset of what a solve may launch
// for them). When that is no cheaper than the claims the neighbourhood
// would replace, its solve cannot improve the plan, and is not run: the
// search goes on as if it had failed, so its plan is the same either
// way. A neighbourhood whose pods ask for different things is weighed
// the same way by a looser bound (weightBound).

// cannotImprove reports whether the member claims' pods certainly cost
// no less than old however the solver places them: when they all ask for
// the same, the cheapest nodes with room for them all cost at least old;
// when they do not, their weight bound (weightBound) is at least old.
// It answers false when it cannot tell: the solver has no model, some
// pod is not in it, or the input has nodes, on which pods go for
// nothing.
func (ls *localSearch) cannotImprove(members []int, s solver, old float64) bool {
	m := s.model
	if m == nil || len(ls.existing) > 0 {
		return false
	}
	var shapes []int
	var req []float64
	// groups and counts are the pods' groups, in order of first pod, and
	// how many pods each has.
	var groups, counts []int
	uniform := true
	pods := 0
	for _, i := range members {
		for _, p := range ls.fixed[i].Pods {
			gi, ok := m.groupOf[p]
			if !ok {
				return false
			}
			g := &m.groups[gi]
			if req == nil {
				req = g.req
			} else if uniform && !slices.Equal(req, g.req) {
				uniform = false
			}
			if !slices.Contains(shapes, g.shape) {
				shapes = append(shapes, g.shape)
			}
			if k := slices.Index(groups, gi); k >= 0 {
				counts[k]++
			} else {
				groups, counts = append(groups, gi), append(counts, 1)
			}
			pods++
		}
	}
	if pods == 0 {
		return false
	}
	if !uniform {
		// The bound is summed in another order than the plan's price: a
		// margin far below the search's own keeps rounding out of the
		// answer.
		return weightBound(m, groups, counts)*(1-1e-12) >= old*(1-1e-9)
	}
	// A node of a column any pod may go on holds as many as fit.
	best := map[int]float64{} // by how many pods fit, the cheapest column
	for j := range m.columns {
		c := &m.columns[j]
		if !slices.ContainsFunc(shapes, c.shapes.has) {
			continue
		}
		n := min(fitCount(req, c.room, pods), pods)
		if n < 1 {
			continue
		}
		if p, ok := best[n]; !ok || c.price < p {
			best[n] = c.price
		}
	}
	if len(best) == 0 {
		return false
	}
	// The cover is summed in another order than the plan's price: a
	// margin far below the search's own keeps rounding out of the answer.
	return coverCost(best, pods)*(1-1e-12) >= old*(1-1e-9)
}

// coverCost is the least a set of nodes holding pods pods costs, given,
// by how many pods a node holds, the cheapest such node.
func coverCost(best map[int]float64, pods int) float64 {
	// Only the kinds cheaper than every roomier one matter.
	type kind struct {
		fit   int
		price float64
	}
	var kinds []kind
	for fit, price := range best {
		kinds = append(kinds, kind{fit, price})
	}
	slices.SortFunc(kinds, func(a, b kind) int { return cmp.Compare(b.fit, a.fit) })
	frontier := kinds[:0]
	for _, k := range kinds {
		if len(frontier) == 0 || k.price < frontier[len(frontier)-1].price {
			frontier = append(frontier, k)
		}
	}
	cost := make([]float64, pods+1)
	for j := 1; j <= pods; j++ {
		cost[j] = math.Inf(1)
		for _, k := range frontier {
			cost[j] = min(cost[j], k.price+cost[max(0, j-k.fit)])
		}
	}
	return cost[pods]
}
