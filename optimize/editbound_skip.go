package optimize

// Search asks of each set of edits only whether its bound reaches the
// best plan so far (skips). A program's bound is certified by a dual
// solution, so it is never above the cost of any solution of the
// program; a solution of another program that uses only columns this one
// keeps, checked row by row against this one, shows the bound is below
// the best plan without solving anything. Single edits mostly take away
// a few types the cheapest columns do not need.

// primalSolution is a solution the solver found for a program: nodes of
// each column, by index in editBounds.columns.
type primalSolution struct {
	columns []int
	nodes   []float64
}

// primalSlack is how much a remembered solution is scaled up before it
// is checked: the solver's solutions cover their rows up to rounding.
const primalSlack = 1e-7

// skips reports whether the set's bound, shrunk by one part in 10⁹,
// reaches best: whether Search can skip the set. It is bound(edits)*(1-1e-9)
// >= best, solving a program only when no remembered solution shows the
// bound is below best.
func (b *editBounds) skips(edits []Edit, best float64) bool {
	if !b.seeded {
		// The program of every column: its solution is most sets'.
		b.seeded = true
		if prog, _, done := b.programOf(indexes(len(b.columns))); !done {
			b.solveProgram(prog, aggregateLP(&prog.m, nil, len(prog.m.repel) > 0))
		}
	}
	prog, v, done := b.program(edits)
	if done {
		return v*(1-1e-9) >= best
	}
	p := aggregateLP(&prog.m, nil, len(prog.m.repel) > 0)
	if len(p.b) > 0 && b.shows(prog, p, best) {
		b.shown++
		return false
	}
	b.solved++
	return b.solveProgram(prog, p)*(1-1e-9) >= best
}

// shows reports whether a remembered solution, scaled up by primalSlack,
// solves p (the program of prog) and costs less than best, with room for
// rounding: the bound, which no solution undercuts, is then below best.
func (b *editBounds) shows(prog boundProgram, p *coverLP, best float64) bool {
	pos := make(map[int]int, len(prog.kept))
	for j, i := range prog.kept {
		pos[i] = j
	}
	x := make([]float64, len(p.c))
	for _, s := range b.primals {
		clear(x)
		all := true
		for k, i := range s.columns {
			j, ok := pos[i]
			if !ok {
				all = false
				break
			}
			x[j] = s.nodes[k] * (1 + primalSlack)
		}
		if !all {
			continue
		}
		if dot(p.c, x)*(1+1e-6) >= best*(1-1e-9) {
			continue
		}
		feasible := true
		for r, row := range p.a {
			if dot(row, x) < p.b[r] {
				feasible = false
				break
			}
		}
		if feasible {
			return true
		}
	}
	return false
}

// remember keeps the solver's solution x of the program, when it uses
// none of the artificial columns (which another program's are not).
func (b *editBounds) remember(prog boundProgram, x []float64) {
	n := len(prog.m.columns)
	var s primalSolution
	for j, v := range x {
		switch {
		case v <= 0:
		case j >= n:
			return
		default:
			s.columns, s.nodes = append(s.columns, prog.kept[j]), append(s.nodes, v)
		}
	}
	if len(s.columns) > 0 {
		b.primals = append(b.primals, s)
	}
}

// indexes is 0, 1, …, n-1.
func indexes(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
