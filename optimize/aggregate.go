package optimize

import (
	"math"
	"slices"
)

// maxUnionClasses is how many compatibility classes the aggregate bound
// covers every union of; with more, it covers each class and all of them.
const maxUnionClasses = 4

// artificialPrice is the cost per pod of the columns that keep every
// program feasible: a pod no real column can take is placed at this price.
// It is twice the dearest node, dearer than any pod alone on a node, so
// that these columns only matter where the limits bind; whatever the
// price, they only add options to a relaxation, which keeps it one.
func artificialPrice(m *model) float64 {
	if m.artificial > 0 {
		return m.artificial
	}
	top := 0.0
	for _, c := range m.columns {
		top = max(top, c.price)
	}
	return 2 * top
}

// aggregateBound is the aggregate LP bound, generalised to pods
// that may not go everywhere: nodes x_j ≥ 0 of each column, fractional, at
// its price, such that for every union U of compatibility classes (pods
// that may go on the same columns) the room of the columns any class of U
// may use, plus the existing nodes' free capacity, covers U's total
// requests in every dimension (cpu, memory, pods, …), and the NodePools'
// limits hold. Every plan meets these constraints: the pods of U sit on
// nodes of those columns or on existing nodes. So its optimum, and any
// dual-feasible value of it, is at most the cost of any plan's new nodes.
// With a single class it is exactly "minimize Σ price·x covering the total
// cpu, memory and pod count".
func aggregateBound(m *model) (float64, error) {
	return solveAggregate(aggregateLP(m, nil, false))
}

// solveAggregate certifies an aggregate program's bound.
func solveAggregate(p *coverLP) (float64, error) {
	if len(p.b) == 0 {
		return 0, nil
	}
	y, _, err := p.duals(len(p.b) <= gonumMaxRows)
	if err != nil {
		return 0, err
	}
	return p.certify(y), nil
}

// aggregateLP builds the aggregate program over the groups keep admits
// (all when keep is nil); with spread, a row per hostname anti-affinity
// set too: the nodes of the kinds its pods may use number at least its
// pods less the existing nodes (one pod a node).
func aggregateLP(m *model, keep func(g int) bool, spread bool) *coverLP {
	// Classes: shapes with the same columns.
	colsOf := map[int]bitset{}
	for gi, g := range m.groups {
		if keep != nil && !keep(gi) {
			continue
		}
		if _, ok := colsOf[g.shape]; ok {
			continue
		}
		b := newBitset(len(m.columns))
		for j, c := range m.columns {
			if c.shapes.has(g.shape) {
				b.set(j)
			}
		}
		colsOf[g.shape] = b
	}
	classIndex := map[string]int{}
	var classCols []bitset
	var demand [][]float64
	for gi, g := range m.groups {
		if keep != nil && !keep(gi) {
			continue
		}
		cols := colsOf[g.shape]
		ci, ok := classIndex[cols.key()]
		if !ok {
			ci = len(classCols)
			classIndex[cols.key()] = ci
			classCols = append(classCols, cols)
			demand = append(demand, make([]float64, len(m.dims)))
		}
		for d, v := range g.req {
			demand[ci][d] += v * float64(g.count)
		}
	}
	var unions [][]int
	k := len(classCols)
	if k <= maxUnionClasses {
		for mask := 1; mask < 1<<k; mask++ {
			var u []int
			for i := 0; i < k; i++ {
				if mask&(1<<i) != 0 {
					u = append(u, i)
				}
			}
			unions = append(unions, u)
		}
	} else {
		for i := 0; i < k; i++ {
			unions = append(unions, []int{i})
		}
		all := make([]int, k)
		for i := range all {
			all[i] = i
		}
		unions = append(unions, all)
	}
	n := len(m.columns)
	p := &coverLP{}
	for _, c := range m.columns {
		p.c = append(p.c, c.price)
	}
	for _, u := range unions {
		cols := newBitset(n)
		total := make([]float64, len(m.dims))
		for _, ci := range u {
			for i := range cols {
				cols[i] |= classCols[ci][i]
			}
			for d := range total {
				total[d] += demand[ci][d]
			}
		}
		for d := range m.dims {
			need := total[d] - m.free[d]
			if need <= 0 {
				continue
			}
			row := make([]float64, n)
			for j := range m.columns {
				if cols.has(j) {
					row[j] = m.columns[j].room[d]
				}
			}
			p.a = append(p.a, row)
			p.b = append(p.b, need)
		}
	}
	if spread {
		for _, set := range m.repel {
			need := -float64(m.nodes)
			row := make([]float64, n)
			for _, gi := range set {
				if keep != nil && !keep(gi) {
					continue
				}
				need += float64(m.groups[gi].count)
				for j := range m.columns {
					if m.columns[j].shapes.has(m.groups[gi].shape) {
						row[j] = 1
					}
				}
			}
			if need > 0 {
				p.a = append(p.a, row)
				p.b = append(p.b, need)
			}
		}
	}
	if len(p.b) == 0 {
		return p
	}
	addLimitRows(m, p, func(j int) (int, []float64, float64) {
		c := &m.columns[j]
		return c.pool, limitUse(m, c), 1
	}, n)
	// One artificial column per covering row keeps the program feasible,
	// at the price of a node per pod.
	pods := 0
	for gi, g := range m.groups {
		if keep == nil || keep(gi) {
			pods += g.count
		}
	}
	art := artificialPrice(m) * float64(pods)
	rows := len(p.a)
	for r := 0; r < rows; r++ {
		if p.b[r] <= 0 {
			continue
		}
		for i := range p.a {
			v := 0.0
			if i == r {
				v = p.b[r]
			}
			p.a[i] = append(p.a[i], v)
		}
		p.c = append(p.c, art)
	}
	return p
}

// limitUse is what one node of the column counts against its pool's
// limited resources, in the pool's order.
func limitUse(m *model, c *column) []float64 {
	l := &m.pools[c.pool]
	use := make([]float64, len(l.resources))
	for i, name := range l.resources {
		use[i] = float64(c.capacity.Get(name))
	}
	return use
}

// addLimitRows appends a budget row per limited resource of each limited
// pool: −Σ use·x ≥ −remaining. column(j) says which pool column j charges,
// how much of each resource and how many nodes.
func addLimitRows(m *model, p *coverLP, column func(j int) (pool int, use []float64, nodes float64), n int) {
	for pi := range m.pools {
		l := &m.pools[pi]
		if !l.limited() {
			continue
		}
		rows := make([][]float64, len(l.resources)+1)
		for i := range rows {
			rows[i] = make([]float64, len(p.c))
		}
		used := false
		for j := 0; j < n; j++ {
			pool, use, nodes := column(j)
			if pool != pi {
				continue
			}
			used = true
			for i, u := range use {
				rows[i][j] = -u
			}
			rows[len(rows)-1][j] = -nodes
		}
		if !used {
			continue
		}
		for i := range l.resources {
			p.a = append(p.a, rows[i])
			p.b = append(p.b, -max(0, l.remaining[i]))
		}
		if l.nodes >= 0 {
			p.a = append(p.a, rows[len(rows)-1])
			p.b = append(p.b, -max(0, l.nodes))
		}
	}
}

// antiAffinityBound is the larger of two bounds on plans that give each
// pod of a hostname anti-affinity set its own node. Alone: each pod at the
// cheapest column it may go on, less the most expensive pods the existing
// nodes could take (one each); sets may share nodes, so the largest set
// counts, not their sum. Jointly with every other pod: the aggregate
// program with, per set, at least as many nodes of the kinds its pods may
// use as it has pods (less the existing nodes), so that the nodes the set
// forces are also room for the rest.
func antiAffinityBound(m *model) (float64, error) {
	alone := antiAffinityAlone(m)
	if len(m.repel) == 0 {
		return alone, nil
	}
	joint, err := solveAggregate(aggregateLP(m, nil, true))
	return max(alone, joint), err
}

func antiAffinityAlone(m *model) float64 {
	best := 0.0
	for _, set := range m.repel {
		var prices []float64
		for _, gi := range set {
			g := &m.groups[gi]
			cheapest := math.Inf(1)
			for j := range m.columns {
				if m.columns[j].shapes.has(g.shape) {
					cheapest = min(cheapest, m.columns[j].price)
				}
			}
			for range g.count {
				prices = append(prices, cheapest)
			}
		}
		slices.Sort(prices)
		if drop := min(m.nodes, len(prices)); drop > 0 {
			prices = prices[:len(prices)-drop]
		}
		total := 0.0
		for _, v := range prices {
			total += v
		}
		best = max(best, total)
	}
	return best
}
