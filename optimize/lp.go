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

// errLP wraps the solver's failures.
var errLP = errors.New("linear program")

// duals solves the program and returns a dual vector y ≥ 0, optimal when
// the solver found the optimal basis, and the primal optimum.
func (p *coverLP) duals() (y []float64, value float64, err error) {
	m, n := len(p.b), len(p.c)
	if m == 0 {
		return nil, 0, nil
	}
	// Columns that touch no row are left out: with cost ≥ 0 they are 0 at
	// an optimum, and the solver refuses zero columns.
	var cols []int
	for j := 0; j < n; j++ {
		for r := 0; r < m; r++ {
			if p.a[r][j] != 0 {
				cols = append(cols, j)
				break
			}
		}
	}
	// Standard form: each row r scaled to |b_r| = 1 and signed so that
	// b ≥ 0, with a surplus variable.
	scale := make([]float64, m)
	for r := range scale {
		s := math.Abs(p.b[r])
		if s == 0 {
			s = 1
		}
		if p.b[r] < 0 {
			s = -s
		}
		scale[r] = s
	}
	width := len(cols) + m
	std := mat.NewDense(m, width, nil)
	c := make([]float64, width)
	b := make([]float64, m)
	for r := 0; r < m; r++ {
		for k, j := range cols {
			std.Set(r, k, p.a[r][j]/scale[r])
		}
		std.Set(r, len(cols)+r, -1/scale[r])
		b[r] = p.b[r] / scale[r]
	}
	for k, j := range cols {
		c[k] = p.c[j]
	}
	x, value, err := simplex(c, std, b)
	if err != nil {
		return nil, 0, err
	}
	yStd, err := basisDuals(std, c, x)
	if err != nil {
		return nil, value, err
	}
	y = make([]float64, m)
	for r := range y {
		y[r] = max(0, yStd[r]/scale[r])
	}
	return y, value, nil
}

// simplex is lp.Simplex with its panics (on inputs it cannot take) turned
// into errors.
func simplex(c []float64, a *mat.Dense, b []float64) (x []float64, value float64, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%w: solver: %v", errLP, v)
		}
	}()
	value, x, err = lp.Simplex(c, a, b, 1e-10, nil)
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
func (p *coverLP) certify(y []float64) float64 {
	if len(y) == 0 {
		return 0
	}
	y = slices.Clone(y)
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
