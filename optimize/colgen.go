package optimize

import (
	"cmp"
	"math"
	"slices"
)

// columnGeneration is the Gilmore–Gomory program over packings: a pattern
// is a whole number of pods of each group that fit one node of a column
// (at most one pod of each anti-affinity set), and the master program
// chooses fractional numbers of patterns covering every group's pods,
// with the existing nodes' free capacity (a pod on them costs nothing, at
// most one pod of an anti-affinity set each) and the NodePools' limits.
// Every plan's new nodes are such patterns, so the master's optimum over
// all patterns bounds every plan, and is at least the aggregate bound
// (fractional pods can only pack tighter).
//
// Columns are generated: each round solves the master over the patterns
// known so far, prices each column's best pattern under its duals (a
// bounded knapsack), and adds the patterns that would lower the master.
// Farley's bound makes each round's duals a proof: once scaled by θ, the
// largest ratio of a pattern's dual value to its price, they are feasible
// for the master over all patterns, and prove z/θ. Since θ is computed
// from upper bounds on each column's best pattern, a search cut short
// keeps the proof valid.
type columnGeneration struct {
	m        *model
	maxNodes int
	// rows of the master: groups first, then the existing nodes' free
	// capacity and anti-affinity rows, then the limits.
	rows     int
	freeRow  int // first free-capacity row, -1 without existing nodes
	repelRow int // first anti-affinity row on existing nodes, -1 without
	// explicit columns of the master, in order: free (e_g), artificial,
	// then the patterns.
	lp       coverLP
	patterns []pattern
	seen     map[string]bool
	arena    arena
}

// pattern is a packing of one node of a column.
type pattern struct {
	column int
	counts []int // per group
}

func newColumnGeneration(m *model, maxNodes int) *columnGeneration {
	cg := &columnGeneration{m: m, maxNodes: maxNodes, freeRow: -1, repelRow: -1, seen: map[string]bool{}}
	g := len(m.groups)
	b := make([]float64, 0, g)
	for _, gr := range m.groups {
		b = append(b, float64(gr.count))
	}
	if m.nodes > 0 {
		cg.freeRow = len(b)
		for d := range m.dims {
			b = append(b, -m.free[d])
		}
		cg.repelRow = len(b)
		for range m.repel {
			b = append(b, -float64(m.nodes))
		}
	}
	for pi := range m.pools {
		l := &m.pools[pi]
		for i := range l.resources {
			b = append(b, -max(0, l.remaining[i]))
		}
		if l.nodes >= 0 {
			b = append(b, -max(0, l.nodes))
		}
	}
	cg.rows = len(b)
	cg.lp = coverLP{b: b, a: make([][]float64, len(b))}
	if m.nodes > 0 {
		for gi, gr := range m.groups {
			col := make([]float64, cg.rows)
			col[gi] = 1
			for d, v := range gr.req {
				col[cg.freeRow+d] = -v
			}
			if gr.repel >= 0 {
				col[cg.repelRow+gr.repel] = -1
			}
			cg.addColumn(col, 0)
		}
	}
	art := artificialPrice(m)
	for gi := range m.groups {
		col := make([]float64, cg.rows)
		col[gi] = 1
		cg.addColumn(col, art)
	}
	// Start from each group alone on the column that holds it cheapest
	// per pod.
	for gi, gr := range m.groups {
		best, bestCost := -1, math.Inf(1)
		var bestCount int
		for j := range m.columns {
			c := &m.columns[j]
			if !c.shapes.has(gr.shape) {
				continue
			}
			n := fitCount(gr.req, c.room, gr.count)
			if gr.repel >= 0 {
				n = min(n, 1)
			}
			if n > 0 && c.price/float64(n) < bestCost {
				best, bestCost, bestCount = j, c.price/float64(n), n
			}
		}
		if best >= 0 {
			counts := make([]int, len(m.groups))
			counts[gi] = bestCount
			cg.addPattern(pattern{column: best, counts: counts})
		}
	}
	return cg
}

// fitCount is how many of req fit in room, at most limit.
func fitCount(req, room []float64, limit int) int {
	n := float64(limit)
	for d, v := range req {
		if v > 0 {
			n = min(n, math.Floor(room[d]/v))
		}
	}
	return max(0, int(n))
}

func (cg *columnGeneration) addColumn(col []float64, cost float64) {
	for r := range cg.lp.a {
		cg.lp.a[r] = append(cg.lp.a[r], col[r])
	}
	cg.lp.c = append(cg.lp.c, cost)
}

// addPattern adds a pattern the master does not have yet.
func (cg *columnGeneration) addPattern(p pattern) bool {
	key := patternKey(p)
	if cg.seen[key] {
		return false
	}
	cg.seen[key] = true
	cg.patterns = append(cg.patterns, p)
	c := &cg.m.columns[p.column]
	col := make([]float64, cg.rows)
	for gi, n := range p.counts {
		col[gi] = float64(n)
	}
	row := cg.limitRow(c.pool)
	if row >= 0 {
		for i, u := range limitUse(cg.m, c) {
			col[row+i] = -u
		}
		if cg.m.pools[c.pool].nodes >= 0 {
			col[row+len(cg.m.pools[c.pool].resources)] = -1
		}
	}
	cg.addColumn(col, c.price)
	return true
}

func patternKey(p pattern) string {
	b := make([]byte, 0, 8+4*len(p.counts))
	b = appendInt(b, p.column)
	for _, n := range p.counts {
		b = appendInt(b, n)
	}
	return string(b)
}

func appendInt(b []byte, v int) []byte {
	return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// limitRow is the first limit row of the pool, -1 when it has none.
func (cg *columnGeneration) limitRow(pool int) int {
	row := len(cg.m.groups)
	if cg.m.nodes > 0 {
		row += len(cg.m.dims) + len(cg.m.repel)
	}
	for pi := range cg.m.pools {
		l := &cg.m.pools[pi]
		n := len(l.resources)
		if l.nodes >= 0 {
			n++
		}
		if pi == pool {
			if n == 0 {
				return -1
			}
			return row
		}
		row += n
	}
	return -1
}

// charge is what the duals y of the limit rows charge one node of the
// column.
func (cg *columnGeneration) charge(j int, y []float64) float64 {
	c := &cg.m.columns[j]
	row := cg.limitRow(c.pool)
	if row < 0 {
		return 0
	}
	s := 0.0
	for i, u := range limitUse(cg.m, c) {
		s += u * y[row+i]
	}
	if cg.m.pools[c.pool].nodes >= 0 {
		s += y[row+len(cg.m.pools[c.pool].resources)]
	}
	return s
}

// improving is how much more than its price a pattern's dual value must
// be for the pattern to join the master: less is the master's own
// rounding.
const improving = 1e-6

// maxNewPatterns is how many patterns a round adds at most, the best
// first.
const maxNewPatterns = 25

// run generates columns for at most the given rounds and returns the best
// bound proved, the rounds run, and whether it converged.
func (cg *columnGeneration) run(rounds int) (bound float64, iterations int, converged bool, err error) {
	type candidate struct {
		ratio float64
		p     pattern
	}
	for iterations < rounds {
		iterations++
		y, _, err := cg.lp.duals(false)
		if err != nil {
			return bound, iterations, false, err
		}
		cg.lp.repairFree(y)
		// θ over the explicit columns (artificial ones and the patterns
		// known), then over every pattern through the pricing.
		theta := 1.0
		for j, cj := range cg.lp.c {
			if cj > 0 {
				theta = max(theta, cg.lp.activity(y, j)/cj)
			}
		}
		var found []candidate
		valid := true
		for j := range cg.m.columns {
			c := &cg.m.columns[j]
			charge := cg.charge(j, y)
			k := newKnapsack(cg.m, j, y, cg.maxNodes, &cg.arena)
			if c.price > 0 && k.rootBound-charge <= c.price {
				continue // no pattern here can raise θ or lower the master
			}
			k.tighten()
			if c.price > 0 && k.rootBound-charge <= c.price {
				continue
			}
			ub := k.solve()
			if c.price == 0 {
				if ub-charge > 1e-9 {
					valid = false
				}
			} else {
				theta = max(theta, (ub-charge)/c.price)
			}
			if k.best-charge > c.price*(1+improving) {
				ratio := math.Inf(1)
				if c.price > 0 {
					ratio = (k.best - charge) / c.price
				}
				found = append(found, candidate{ratio: ratio, p: pattern{column: j, counts: k.bestCounts}})
			}
		}
		if valid {
			bound = max(bound, dot(cg.lp.b, y)/theta)
		}
		if len(found) == 0 {
			return bound, iterations, valid && theta <= 1+1e-6, nil
		}
		slices.SortStableFunc(found, func(a, b candidate) int { return cmp.Compare(b.ratio, a.ratio) })
		added := 0
		for _, f := range found {
			if added == maxNewPatterns {
				break
			}
			if cg.addPattern(f.p) {
				added++
			}
		}
		if added == 0 {
			return bound, iterations, false, nil
		}
	}
	return bound, iterations, false, nil
}
