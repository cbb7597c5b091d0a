package requirements

import (
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"
	"testing/quick"

	corev1 "k8s.io/api/core/v1"
)

// naive is a straightforward map-based model of a requirement, written the
// way the semantics are stated (reference §1), to hold the sorted-slice
// implementation against.
type naive struct {
	complement bool
	values     map[string]bool
	gte, lte   *int64
	minValues  int
}

func naiveOf(op corev1.NodeSelectorOperator, values []string) naive {
	n := naive{values: map[string]bool{}}
	switch op {
	case corev1.NodeSelectorOpIn:
		for _, v := range values {
			n.values[v] = true
		}
	case corev1.NodeSelectorOpNotIn:
		n.complement = true
		for _, v := range values {
			n.values[v] = true
		}
	case corev1.NodeSelectorOpExists:
		n.complement = true
	case corev1.NodeSelectorOpDoesNotExist:
	default:
		x, _ := strconv.ParseInt(values[0], 10, 64)
		if (op == corev1.NodeSelectorOpGt && x == math.MaxInt64) || (op == corev1.NodeSelectorOpLt && x == math.MinInt64) {
			return n // no integer is past the bound
		}
		n.complement = true
		switch op {
		case corev1.NodeSelectorOpGt:
			x++
			n.gte = &x
		case corev1.NodeSelectorOpLt:
			x--
			n.lte = &x
		case OpGte:
			n.gte = &x
		case OpLte:
			n.lte = &x
		}
	}
	return n
}

func (n naive) within(v string) bool {
	if n.gte == nil && n.lte == nil {
		return true
	}
	x, err := strconv.ParseInt(v, 10, 64)
	return err == nil && (n.gte == nil || x >= *n.gte) && (n.lte == nil || x <= *n.lte)
}

func (n naive) has(v string) bool { return n.values[v] != n.complement && n.within(v) }

func (n naive) length() int {
	if n.complement {
		return math.MaxInt64 - len(n.values)
	}
	return len(n.values)
}

func (n naive) negative() bool {
	return (n.complement && len(n.values) > 0) || (!n.complement && len(n.values) == 0)
}

func (n naive) intersect(o naive) naive {
	out := naive{complement: n.complement && o.complement, values: map[string]bool{}, minValues: max(n.minValues, o.minValues)}
	out.gte = pick(n.gte, o.gte, func(a, b int64) bool { return a > b })
	out.lte = pick(n.lte, o.lte, func(a, b int64) bool { return a < b })
	if out.gte != nil && out.lte != nil && *out.gte > *out.lte {
		return naive{values: map[string]bool{}, minValues: out.minValues}
	}
	for v := range n.values {
		if (n.complement && o.complement) || (!n.complement && (o.values[v] != o.complement)) {
			out.values[v] = true
		}
	}
	for v := range o.values {
		if (n.complement && o.complement) || (!o.complement && (n.values[v] != n.complement)) {
			out.values[v] = true
		}
	}
	for v := range out.values {
		if !out.within(v) {
			delete(out.values, v)
		}
	}
	if !out.complement {
		out.gte, out.lte = nil, nil
	}
	return out
}

func pick(a, b *int64, better func(a, b int64) bool) *int64 {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case better(*a, *b):
		return a
	default:
		return b
	}
}

// naiveIntersects is upstream's rule: the intersection has a value, or
// both sides only exclude.
func naiveIntersects(a, b naive) bool {
	return a.intersect(b).length() != 0 || (a.negative() && b.negative())
}

var (
	universe  = []string{"0", "1", "2", "3", "4", "5", "6", "7", "a", "b", "x"}
	operators = []corev1.NodeSelectorOperator{in, notIn, exists, doesNotExist, gt, lt, OpGte, OpLte}
)

// randomTerm is a random operator with values that suit it.
type randomTerm struct {
	op     corev1.NodeSelectorOperator
	values []string
}

func newRandomTerm(rng *rand.Rand) randomTerm {
	op := operators[rng.IntN(len(operators))]
	switch op {
	case in, notIn:
		n := 1 + rng.IntN(4)
		values := make([]string, n)
		for i := range values {
			values[i] = universe[rng.IntN(len(universe))]
		}
		return randomTerm{op, values}
	case exists, doesNotExist:
		return randomTerm{op: op}
	default:
		return randomTerm{op, []string{strconv.Itoa(rng.IntN(9) - 1)}}
	}
}

func TestIntersectionAgreesWithTheNaiveModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		ta, tb := newRandomTerm(rng), newRandomTerm(rng)
		a, b := mustNew("k", ta.op, ta.values...), mustNew("k", tb.op, tb.values...)
		na, nb := naiveOf(ta.op, ta.values), naiveOf(tb.op, tb.values)
		got, want := a.Intersection(b), na.intersect(nb)
		for _, v := range universe {
			if got.Has(v) != want.has(v) {
				t.Fatalf("(%v) ∩ (%v) = %v: Has(%q) = %v, naive %v", a, b, got, v, got.Has(v), want.has(v))
			}
		}
		if got.Len() != want.length() {
			t.Fatalf("(%v) ∩ (%v) = %v: Len %d, naive %d", a, b, got, got.Len(), want.length())
		}
		if vs := sortedKeys(want.values); !equalStrings(got.values, vs) {
			t.Fatalf("(%v) ∩ (%v): values %v, naive %v", a, b, got.values, vs)
		}
		if fast, slow := NewRequirements(a).IntersectsFast(NewRequirements(b)), naiveIntersects(na, nb); fast != slow {
			t.Fatalf("Intersects(%v, %v) = %v, naive %v", a, b, fast, slow)
		}
	}
}

// TestRequirementsAgreeWithTheNaiveModel checks sets of requirements over
// several keys: Add intersects per key, and Compatible and Intersects give
// the naive answer computed key by key.
func TestRequirementsAgreeWithTheNaiveModel(t *testing.T) {
	keys := []string{"custom", "kubernetes.io/arch", "team", "topology.kubernetes.io/zone"}
	gen := func(rng *rand.Rand) (Requirements, map[string]naive) {
		r, n := Requirements{}, map[string]naive{}
		for range rng.IntN(4) {
			key, term := keys[rng.IntN(len(keys))], newRandomTerm(rng)
			r = r.Add(mustNew(key, term.op, term.values...))
			next := naiveOf(term.op, term.values)
			if prev, ok := n[key]; ok {
				next = prev.intersect(next)
			}
			n[key] = next
		}
		return r, n
	}
	check := func(seed uint64) bool {
		rng := rand.New(rand.NewPCG(seed, 7))
		ra, na := gen(rng)
		rb, nb := gen(rng)
		intersects := true
		for key, b := range nb {
			if a, ok := na[key]; ok && !naiveIntersects(a, b) {
				intersects = false
			}
		}
		compatible := intersects
		for key, b := range nb {
			_, defined := na[key]
			if !defined && !b.negative() && key != "kubernetes.io/arch" && key != "topology.kubernetes.io/zone" {
				compatible = false
			}
		}
		if ra.IntersectsFast(rb) != intersects || (ra.Intersects(rb) == nil) != intersects {
			t.Logf("Intersects(%v | %v) want %v", ra, rb, intersects)
			return false
		}
		if ra.CompatibleFast(rb, AllowUndefinedWellKnown) != compatible || (ra.Compatible(rb, AllowUndefinedWellKnown) == nil) != compatible {
			t.Logf("Compatible(%v | %v) want %v", ra, rb, compatible)
			return false
		}
		merged := ra.Intersect(rb)
		for key := range union2(na, nb) {
			want := naiveOf(exists, nil)
			if a, ok := na[key]; ok {
				want = want.intersect(a)
			}
			if b, ok := nb[key]; ok {
				want = want.intersect(b)
			}
			for _, v := range universe {
				if merged.Get(key).Has(v) != want.has(v) {
					t.Logf("%v ∩ %v on %s: Has(%s)", ra, rb, key, v)
					return false
				}
			}
		}
		return true
	}
	if err := quick.Check(check, &quick.Config{MaxCount: 5000}); err != nil {
		t.Fatal(err)
	}
}

func union2(a, b map[string]naive) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
