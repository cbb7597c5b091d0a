package optimize

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// coverLP is a linear program min c·x subject to A·x ≥ b, x ≥ 0, whose
// rows are each of one sign: covering rows (demand to meet, coefficients
// ≥ 0) and budget rows (a limit written as −use·x ≥ −limit, coefficients
// ≤ 0). Costs are ≥ 0.
//
// Its bounds come from duality, not from the simplex's objective: any
// y ≥ 0 with Aᵀy ≤ c proves c·x ≥ b·y for every feasible x. The simplex
// only suggests a y; certify makes it feasible exactly, so rounding in the
// solver can weaken a bound but never make it wrong.
type coverLP struct {
	c []float64
	a [][]float64 // rows, each len(c)
	b []float64
}

// gonumMaxRows is the size up to which the aggregate programs are solved
// with gonum's lp.Simplex, which factorizes its basis afresh at every
// pivot; larger ones go to the package's tableau.
const gonumMaxRows = 40

// errLP wraps the solver's failures.
var errLP = errors.New("linear program")

// duals solves the program and returns a dual vector y ≥ 0, optimal when
// the solver found the optimal basis, and the primal solution x (of the
// nudged program: near-feasible, for guidance only). With
// withGonum, gonum's lp.Simplex solves it and the duals are recovered
// from its basis, falling back to the package's own tableau when gonum
// fails; otherwise the tableau solves it, which also serves column
// generation's many re-solves faster.
func (p *coverLP) duals(withGonum bool) (y, x []float64, err error) {
	m, n := len(p.b), len(p.c)
	if m == 0 {
		return nil, make([]float64, n), nil
	}
	// Columns that touch no row are left out: with cost ≥ 0 they are 0 at
	// an optimum, and lp.Simplex refuses zero columns.
	var cols []int
	for j := 0; j < n; j++ {
		for r := 0; r < m; r++ {
			if p.a[r][j] != 0 {
				cols = append(cols, j)
				break
			}
		}
	}
	// Standard form: each row r scaled to |b_r| = 1 (or 1 when b_r is 0)
	// and signed so that b ≥ 0, with a surplus variable whose coefficient
	// is then -1, or +1 on the rows with b_r ≤ 0. The right-hand sides are
	// nudged apart, a little, so that bases are not degenerate: the
	// simplex is less likely to stall, and the certificate is worked out
	// on the exact program anyway.
	scale := make([]float64, m)
	for r := range scale {
		s := math.Abs(p.b[r])
		if s == 0 {
			s = 1
		}
		if p.b[r] <= 0 {
			s = -s
		}
		scale[r] = s
	}
	width := len(cols) + m
	std := make([][]float64, m)
	c := make([]float64, width)
	b := make([]float64, m)
	for r := 0; r < m; r++ {
		row := make([]float64, width)
		for k, j := range cols {
			row[k] = p.a[r][j] / scale[r]
		}
		// The surplus is scaled with its row: coefficient ±1.
		row[len(cols)+r] = -math.Copysign(1, scale[r])
		std[r] = row
		b[r] = p.b[r]/scale[r] + 1e-7*(1+float64(r)/float64(m))
	}
	for k, j := range cols {
		c[k] = p.c[j]
	}
	// The starting basis: on each row with b_r > 0 a column that covers
	// it alone (every program here has one), on the others the surplus.
	basic := make([]int, m)
	for r := 0; r < m; r++ {
		basic[r] = len(cols) + r
		if p.b[r] <= 0 {
			continue
		}
		basic[r] = -1
		for k, j := range cols {
			if p.a[r][j] > 0 && onlyRow(p.a, r, j) {
				basic[r] = k
				break
			}
		}
		if basic[r] < 0 {
			return nil, nil, fmt.Errorf("%w: row %d has no column of its own", errLP, r)
		}
	}
	var yStd, xStd []float64
	if withGonum {
		yStd, xStd, err = gonumDuals(c, std, b, basic)
	}
	if !withGonum || err != nil {
		yStd, xStd, _ = solveTableau(nil, c, std, b, basic, 50*(m+width)+1000)
	}
	y = make([]float64, m)
	for r := range y {
		y[r] = max(0, yStd[r]/scale[r])
	}
	x = make([]float64, n)
	for k, j := range cols {
		x[j] = xStd[k]
	}
	return y, x, nil
}

// gonumDuals solves the standard-form program with lp.Simplex and
// recovers the duals from its solution's basis.
func gonumDuals(c []float64, rows [][]float64, b []float64, basic []int) (y, x []float64, err error) {
	m, n := len(rows), len(c)
	a := mat.NewDense(m, n, nil)
	for r, row := range rows {
		a.SetRow(r, row)
	}
	x, _, err = simplex(c, a, b, basic)
	if err != nil {
		return nil, nil, err
	}
	y, err = basisDuals(a, c, x)
	return y, x, err
}

// simplex is lp.Simplex with its panics (on inputs it cannot take) turned
// into errors.
func simplex(c []float64, a *mat.Dense, b []float64, basic []int) (x []float64, value float64, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: solver: %v", errLP, v)
		}
	}()
	value, x, err = lp.Simplex(c, a, b, 1e-10, basic)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: %w", errLP, err)
	}
	return x, value, nil
}

// basisDuals recovers the simplex multipliers of a basic solution x: a
// basis of m linearly independent columns, the positive variables first,
// then the others in order, and y solving Bᵀy = c_B. A degenerate
// solution may give a basis that is not optimal; y is then merely a
// worse certificate.
func basisDuals(a *mat.Dense, c, x []float64) ([]float64, error) {
	m, n := a.Dims()
	order := make([]int, n)
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(x[j], x[i]) })
	// Gram-Schmidt picks independent columns.
	var basis []int
	var ortho [][]float64
	col := make([]float64, m)
	for _, j := range order {
		if len(basis) == m {
			break
		}
		mat.Col(col, j, a)
		v := slices.Clone(col)
		norm0 := mat.Norm(mat.NewVecDense(m, slices.Clone(v)), 2)
		if norm0 == 0 {
			continue
		}
		for _, q := range ortho {
			d := 0.0
			for i := range v {
				d += v[i] * q[i]
			}
			for i := range v {
				v[i] -= d * q[i]
			}
		}
		norm := mat.Norm(mat.NewVecDense(m, slices.Clone(v)), 2)
		if norm < 1e-9*norm0 {
			continue
		}
		for i := range v {
			v[i] /= norm
		}
		ortho = append(ortho, v)
		basis = append(basis, j)
	}
	if len(basis) < m {
		return nil, fmt.Errorf("%w: no basis", errLP)
	}
	bt := mat.NewDense(m, m, nil) // Bᵀ
	cb := mat.NewVecDense(m, nil)
	for k, j := range basis {
		for r := 0; r < m; r++ {
			bt.Set(k, r, a.At(r, j))
		}
		cb.SetVec(k, c[j])
	}
	var y mat.VecDense
	if err := y.SolveVec(bt, cb); err != nil {
		return nil, fmt.Errorf("%w: %w", errLP, err)
	}
	out := make([]float64, m)
	for r := range out {
		out[r] = y.AtVec(r)
	}
	return out, nil
}

// onlyRow reports whether column j has no coefficient but on row r.
func onlyRow(a [][]float64, r, j int) bool {
	for i := range a {
		if i != r && a[i][j] != 0 {
			return false
		}
	}
	return true
}

// activity is Σ_r A_rj y_r: what the dual charges column j.
func (p *coverLP) activity(y []float64, j int) float64 {
	s := 0.0
	for r, yr := range y {
		s += p.a[r][j] * yr
	}
	return s
}

// repairFree lowers y until no column of cost 0 is charged more than 0:
// the covering rows' duals of such a column are scaled down together.
// Lowering a covering row's dual lowers every column's charge, so one pass
// suffices.
func (p *coverLP) repairFree(y []float64) {
	for j, cj := range p.c {
		if cj != 0 {
			continue
		}
		pos, neg := 0.0, 0.0
		for r, yr := range y {
			if v := p.a[r][j] * yr; v > 0 {
				pos += v
			} else {
				neg -= v
			}
		}
		if pos <= neg {
			continue
		}
		f := neg / pos
		for r := range y {
			if p.a[r][j] > 0 {
				y[r] *= f
			}
		}
	}
}

// certify turns y into a feasible dual of the explicit program and
// returns the bound it proves: y is repaired for free columns, then
// divided by θ, the most any column is overcharged relative to its cost
// (at least 1).
//
// A budget row's dual subtracts from the bound; when the solver leaves a
// little on a budget row with a large right-hand side, the certificate
// with the budget rows' duals set to 0 may prove more, and the better of
// the two is taken.
func (p *coverLP) certify(y []float64) float64 {
	if len(y) == 0 {
		return 0
	}
	noBudget := slices.Clone(y)
	for r, b := range p.b {
		if b < 0 {
			noBudget[r] = 0
		}
	}
	return max(p.certifyOne(slices.Clone(y)), p.certifyOne(noBudget))
}

func (p *coverLP) certifyOne(y []float64) float64 {
	p.repairFree(y)
	theta := 1.0
	for j, cj := range p.c {
		if cj > 0 {
			theta = max(theta, p.activity(y, j)/cj)
		}
	}
	return max(0, dot(p.b, y)/theta)
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
