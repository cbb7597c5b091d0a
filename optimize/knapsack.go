package optimize

import (
	"cmp"
	"math"
	"slices"
)

// knapsack is the pricing problem of column generation for one column:
// the pattern of most dual value, a whole number of pods of each group
// that fit one node's room, at most a group's pod count, at most one pod
// per anti-affinity set. It is solved by depth-first branch and bound,
// items in order of value per share of room, bounded by how much value the
// room left in any one dimension could still take at the best density.
type knapsack struct {
	items []item
	room  []float64
	// suffixDensity[i][d] is the largest value per unit of dimension d
	// among items i and after; suffixValue[i] their total value at their
	// caps.
	suffixDensity [][]float64
	suffixValue   []float64
	repelUsed     []bool

	// u prices each dimension of room (a Lagrangian multiplier), and
	// suffixLagrange[i] is Σ over items i and after of cap·max(0, value −
	// u·req): with u·room left, a bound on what they can add.
	u              []float64
	suffixLagrange []float64
	sets           int
	arena          *arena
	relaxed        []relaxedCount

	nodes, maxNodes int
	aborted         bool
	current         []int
	// rootBound bounds every pattern's value; best is the best pattern
	// found and bestCounts its counts per group.
	rootBound  float64
	best       float64
	bestCounts []int
}

type item struct {
	group int
	value float64
	req   []float64
	cap   int
	repel int
}

func newKnapsack(m *model, column int, y []float64, maxNodes int, ar *arena) *knapsack {
	c := &m.columns[column]
	k := &knapsack{room: c.room, maxNodes: maxNodes, arena: ar, repelUsed: make([]bool, len(m.repel)), current: make([]int, len(m.groups))}
	for gi := range m.groups {
		g := &m.groups[gi]
		if y[gi] <= 0 || !c.shapes.has(g.shape) {
			continue
		}
		n := fitCount(g.req, c.room, g.count)
		if g.repel >= 0 {
			n = min(n, 1)
		}
		if n > 0 {
			k.items = append(k.items, item{group: gi, value: y[gi], req: g.req, cap: n, repel: g.repel})
		}
	}
	share := func(it item) float64 {
		s := 0.0
		for d, v := range it.req {
			if c.room[d] > 0 {
				s += v / c.room[d]
			}
		}
		return it.value / math.Max(s, 1e-300)
	}
	slices.SortStableFunc(k.items, func(a, b item) int { return cmp.Compare(share(b), share(a)) })
	n, dims := len(k.items), len(c.room)
	k.suffixDensity = make([][]float64, n+1)
	k.suffixValue = make([]float64, n+1)
	k.suffixDensity[n] = make([]float64, dims)
	k.suffixes()
	k.sets = len(m.repel)
	k.u = make([]float64, dims)
	k.suffixLagrange = make([]float64, n+1)
	for i := range k.suffixLagrange {
		k.suffixLagrange[i] = math.Inf(1)
	}
	k.rootBound = k.bound(0, k.room)
	return k
}

// suffixes works out the suffix bounds for the items' order.
func (k *knapsack) suffixes() {
	n := len(k.items)
	for i := n - 1; i >= 0; i-- {
		k.suffixDensity[i] = slices.Clone(k.suffixDensity[i+1])
		for d, v := range k.items[i].req {
			if v > 0 {
				k.suffixDensity[i][d] = max(k.suffixDensity[i][d], k.items[i].value/v)
			} else {
				k.suffixDensity[i][d] = math.Inf(1)
			}
		}
		k.suffixValue[i] = k.suffixValue[i+1] + k.items[i].value*float64(k.items[i].cap)
	}
}

// tighten lowers the root bound to the linear relaxation's, through its
// Lagrangian, and lets the search use it: worth its cost only for the
// columns the density bound does not rule out.
func (k *knapsack) tighten() {
	k.u = k.lagrangeMultipliers(k.sets)
	// The search tries first the items the relaxation prices best: value
	// per unit of priced room.
	priced := func(it item) float64 { return it.value / math.Max(dot(k.u, it.req), 1e-300) }
	slices.SortStableFunc(k.items, func(a, b item) int { return cmp.Compare(priced(b), priced(a)) })
	k.suffixes()
	for i := len(k.items) - 1; i >= 0; i-- {
		it := &k.items[i]
		k.suffixLagrange[i] = k.suffixLagrange[i+1] + float64(it.cap)*max(0, it.value-dot(k.u, it.req))
	}
	k.suffixLagrange[len(k.items)] = 0
	k.rootBound = min(k.rootBound, k.lagrangeBound(k.u, k.sets))
	k.roundRelaxation()
}

// lagrangeBound is the Lagrangian relaxation's bound at u ≥ 0: every
// pattern a has Σ value·a ≤ u·room + Σ a·(value − u·req), which is at most
// u·room plus, for each item outside an anti-affinity set, cap·max(0,
// value − u·req), and for each set, the largest max(0, value − u·req) of
// its items (one pod a node).
func (k *knapsack) lagrangeBound(u []float64, sets int) float64 {
	b := dot(u, k.room)
	best := make([]float64, sets)
	for i := range k.items {
		it := &k.items[i]
		gain := max(0, it.value-dot(u, it.req))
		if it.repel >= 0 {
			best[it.repel] = max(best[it.repel], gain)
			continue
		}
		b += float64(it.cap) * gain
	}
	for _, g := range best {
		b += g
	}
	return b
}

// lagrangeMultipliers finds a good u: the duals of the dimensions in the
// knapsack's linear relaxation (max Σ value·a with room, caps and one pod
// per anti-affinity set, a fractional), solved on the tableau. At the
// relaxation's optimum, lagrangeBound(u) is its value; any u ≥ 0 gives a
// valid bound, a worse one only a looser bound.
func (k *knapsack) lagrangeMultipliers(sets int) []float64 {
	dims, n := len(k.room), len(k.items)
	u := make([]float64, dims)
	if n == 0 {
		return u
	}
	// Rows: dimensions, item caps, sets; columns: items, then a slack per
	// row. min −value·a.
	rows := dims + n + sets
	width := n + rows
	a := make([][]float64, rows)
	b := make([]float64, rows)
	c := make([]float64, width)
	basic := make([]int, rows)
	k.arena.reset()
	for r := range a {
		a[r] = k.arena.take(width)
		a[r][n+r] = 1
		basic[r] = n + r
	}
	for i := range k.items {
		it := &k.items[i]
		c[i] = -it.value
		for d, v := range it.req {
			a[d][i] = v / max(k.room[d], 1)
		}
		a[dims+i][i] = 1
		b[dims+i] = float64(it.cap)
		if it.repel >= 0 {
			a[dims+n+it.repel][i] = 1
		}
	}
	for d := range dims {
		b[d] = k.room[d] / max(k.room[d], 1)
	}
	for s := range sets {
		b[dims+n+s] = 1
	}
	y, x, _ := solveTableau(k.arena, c, a, b, basic, 20*(rows+width))
	for d := range u {
		u[d] = max(0, -y[d]) / max(k.room[d], 1)
	}
	k.relaxed = k.relaxed[:0]
	for i := range k.items {
		k.relaxed = append(k.relaxed, relaxedCount{group: k.items[i].group, count: x[i]})
	}
	return u
}

// relaxedCount is an item's count in the linear relaxation's optimum.
type relaxedCount struct {
	group int
	count float64
}

// roundRelaxation makes a pattern of the relaxation's optimum: its counts
// rounded down, then filled greedily in the search's order. On a large
// node it is close to the best, which the search could take long to find.
func (k *knapsack) roundRelaxation() {
	if len(k.relaxed) == 0 {
		return
	}
	want := make([]int, len(k.current))
	for _, rc := range k.relaxed {
		want[rc.group] = int(math.Floor(rc.count + 1e-9))
	}
	counts := make([]int, len(k.current))
	room := slices.Clone(k.room)
	used := make([]bool, k.sets)
	value := 0.0
	add := func(it *item, n int) {
		n = min(n, it.cap-counts[it.group], fitCount(it.req, room, it.cap))
		if it.repel >= 0 {
			if used[it.repel] {
				return
			}
			n = min(n, 1)
		}
		if n <= 0 {
			return
		}
		counts[it.group] += n
		for d, v := range it.req {
			room[d] -= v * float64(n)
		}
		if it.repel >= 0 {
			used[it.repel] = true
		}
		value += it.value * float64(n)
	}
	for i := range k.items {
		add(&k.items[i], want[k.items[i].group])
	}
	for i := range k.items {
		add(&k.items[i], k.items[i].cap)
	}
	if value > k.best {
		k.best, k.bestCounts = value, counts
	}
}

// bound is the most value items i and after can add within room.
func (k *knapsack) bound(i int, room []float64) float64 {
	b := k.suffixValue[i]
	for d, r := range room {
		// A dimension no remaining item uses bounds nothing.
		if density := k.suffixDensity[i][d]; !math.IsInf(density, 1) {
			b = min(b, r*density)
		}
	}
	return b
}

// solve searches for the best pattern and returns an upper bound on every
// pattern's value: the best's when the search completed, the root bound
// when it was cut short.
func (k *knapsack) solve() float64 {
	room := slices.Clone(k.room)
	k.search(0, room, 0)
	if k.aborted {
		return max(k.best, k.rootBound)
	}
	return k.best
}

func (k *knapsack) search(i int, room []float64, value float64) {
	k.nodes++
	if value > k.best {
		k.best = value
		k.bestCounts = slices.Clone(k.current)
	}
	if i == len(k.items) {
		return
	}
	if k.nodes > k.maxNodes {
		k.aborted = true
		return
	}
	if value+min(k.bound(i, room), dot(k.u, room)+k.suffixLagrange[i]) <= k.best*(1+1e-12) {
		return
	}
	it := &k.items[i]
	n := it.cap
	if it.repel >= 0 && k.repelUsed[it.repel] {
		n = 0
	}
	n = min(n, fitCount(it.req, room, n))
	for c := n; c >= 0; c-- {
		if k.aborted {
			return
		}
		if c > 0 {
			for d, v := range it.req {
				room[d] -= v * float64(c)
			}
			k.current[it.group] = c
			if it.repel >= 0 {
				k.repelUsed[it.repel] = true
			}
		}
		k.search(i+1, room, value+it.value*float64(c))
		if c > 0 {
			for d, v := range it.req {
				room[d] += v * float64(c)
			}
			k.current[it.group] = 0
			if it.repel >= 0 {
				k.repelUsed[it.repel] = false
			}
		}
	}
}
