package optimize

import "math"

// tableau is a dense primal simplex for min c·x, A·x = b ≥ 0, x ≥ 0, from
// a feasible basis of diagonal columns: what the programs here start
// from (an artificial or a surplus column on each row). Unlike
// lp.Simplex it stops after a number of pivots and returns the simplex
// multipliers, which is all the bounds need: they are certified
// afterwards, so a tableau stopped early, or rounding, weakens a bound but
// never breaks it.
type tableau struct {
	m, n  int
	t     [][]float64 // m rows of n+1: B⁻¹A | B⁻¹b
	d     []float64   // reduced costs, n
	basis []int
	// diag is the initial basis: column diagCol[r] is diag[r]·e_r.
	diagCol []int
	diag    []float64
	c       []float64
}

const (
	pivotTol = 1e-9
	costTol  = 1e-10
)

// solveTableau runs the simplex from the diagonal basis (basic[r] is a
// column that is a multiple of e_r) and returns the multipliers y
// (c_Bᵀ B⁻¹), the primal solution x and the objective. Its rows come
// from the arena when it is not nil.
func solveTableau(ar *arena, c []float64, a [][]float64, b []float64, basic []int, maxPivots int) (y, x []float64, value float64) {
	m, n := len(b), len(c)
	tb := &tableau{m: m, n: n, t: make([][]float64, m), d: make([]float64, n), basis: make([]int, m), diagCol: basic, diag: make([]float64, m), c: c}
	for r := 0; r < m; r++ {
		tb.diag[r] = a[r][basic[r]]
		row := ar.take(n + 1)
		for j := 0; j < n; j++ {
			row[j] = a[r][j] / tb.diag[r]
		}
		row[n] = b[r] / tb.diag[r]
		tb.t[r] = row
		tb.basis[r] = basic[r]
	}
	for j := 0; j < n; j++ {
		tb.d[j] = c[j]
		for r := 0; r < m; r++ {
			tb.d[j] -= c[basic[r]] * tb.t[r][j]
		}
	}
	degenerate := 0
	for range maxPivots {
		enter := tb.entering(degenerate > 50)
		if enter < 0 {
			break
		}
		leave := tb.leaving(enter)
		if leave < 0 {
			break // unbounded: cannot happen with costs ≥ 0
		}
		if tb.t[leave][n] < pivotTol {
			degenerate++
		} else {
			degenerate = 0
		}
		tb.pivot(leave, enter)
	}
	y = make([]float64, m)
	for r := 0; r < m; r++ {
		j := tb.diagCol[r]
		y[r] = (c[j] - tb.d[j]) / tb.diag[r]
	}
	x = make([]float64, n)
	for r := 0; r < m; r++ {
		value += c[tb.basis[r]] * tb.t[r][n]
		x[tb.basis[r]] = tb.t[r][n]
	}
	return y, x, value
}

// entering is the column of most negative reduced cost, or with bland
// the first negative one (which cannot cycle); -1 at an optimum.
func (tb *tableau) entering(bland bool) int {
	best, at := -costTol, -1
	for j, dj := range tb.d {
		if dj < best {
			if bland {
				return j
			}
			best, at = dj, j
		}
	}
	return at
}

// leaving is the row of the ratio test, ties to the smallest basic index.
func (tb *tableau) leaving(enter int) int {
	best, at := math.Inf(1), -1
	for r := 0; r < tb.m; r++ {
		v := tb.t[r][enter]
		if v <= pivotTol {
			continue
		}
		ratio := tb.t[r][tb.n] / v
		if ratio < best-1e-12 || (ratio <= best+1e-12 && at >= 0 && tb.basis[r] < tb.basis[at]) {
			best, at = ratio, r
		}
	}
	return at
}

func (tb *tableau) pivot(leave, enter int) {
	pr := tb.t[leave]
	p := pr[enter]
	for j := range pr {
		pr[j] /= p
	}
	for r := 0; r < tb.m; r++ {
		if r == leave {
			continue
		}
		row := tb.t[r]
		f := row[enter]
		if f == 0 {
			continue
		}
		for j := range row {
			row[j] -= f * pr[j]
		}
		row[enter] = 0
	}
	f := tb.d[enter]
	for j := 0; j < tb.n; j++ {
		tb.d[j] -= f * pr[j]
	}
	tb.d[enter] = 0
	if rhs := pr[tb.n]; rhs < 0 {
		pr[tb.n] = 0
	}
	tb.basis[leave] = enter
}

// arena hands out zeroed float slices from one buffer, reset between
// uses: the knapsacks' relaxations, solved for hundreds of columns a
// round, would otherwise allocate their matrices afresh each time.
type arena struct {
	buf  []float64
	used int
}

func (ar *arena) reset() { ar.used = 0 }

// take returns n zeroed floats; a nil arena allocates them.
func (ar *arena) take(n int) []float64 {
	if ar == nil {
		return make([]float64, n)
	}
	if ar.used+n > len(ar.buf) {
		// A new buffer: slices already handed out keep the old one.
		ar.buf = make([]float64, max(2*len(ar.buf), ar.used+n, 1<<16))
		ar.used = 0
	}
	out := ar.buf[ar.used : ar.used+n : ar.used+n]
	clear(out)
	ar.used += n
	return out
}
