package requirements

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

const (
	in           = corev1.NodeSelectorOpIn
	notIn        = corev1.NodeSelectorOpNotIn
	exists       = corev1.NodeSelectorOpExists
	doesNotExist = corev1.NodeSelectorOpDoesNotExist
	gt           = corev1.NodeSelectorOpGt
	lt           = corev1.NodeSelectorOpLt
)

func TestNewRejectsValuesThatDoNotSuitTheOperator(t *testing.T) {
	for _, tc := range []struct {
		op     corev1.NodeSelectorOperator
		values []string
		want   string
	}{
		{in, nil, `requirement "k": operator In needs at least one value`},
		{exists, []string{"a"}, `requirement "k": operator Exists takes no values, got 1`},
		{doesNotExist, []string{"a", "b"}, `requirement "k": operator DoesNotExist takes no values, got 2`},
		{gt, []string{"1", "2"}, `requirement "k": operator Gt takes exactly one integer value, got 2`},
		{lt, nil, `requirement "k": operator Lt takes exactly one integer value, got 0`},
		{OpGte, []string{"x"}, `requirement "k": operator Gte needs an integer value, got "x"`},
		{OpLte, []string{"1.5"}, `requirement "k": operator Lte needs an integer value, got "1.5"`},
		{"Near", []string{"1"}, `requirement "k": unknown operator "Near" (want In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte or Lte)`},
	} {
		_, err := New("k", tc.op, tc.values...)
		require.EqualError(t, err, tc.want)
	}
}

func TestNewNormalizesDeprecatedKeys(t *testing.T) {
	r := mustNew("failure-domain.beta.kubernetes.io/zone", in, "us-east-1a")
	assert.Equal(t, "topology.kubernetes.io/zone", r.Key())
}

func TestBoundsAtTheEdgeOfTheIntegers(t *testing.T) {
	assert.Equal(t, doesNotExist, mustNew("k", gt, fmt.Sprint(int64(math.MaxInt64))).Operator())
	assert.Equal(t, doesNotExist, mustNew("k", lt, fmt.Sprint(int64(math.MinInt64))).Operator())
	r := mustNew("k", gt, "2")
	assert.False(t, r.Has("2"))
	assert.True(t, r.Has("3"))
	assert.False(t, r.Has("three"), "non-integers never satisfy a bound")
	assert.Equal(t, "3", r.Any())
	assert.Equal(t, "0", mustNew("k", lt, "5").Any())
	assert.Equal(t, "1", mustNew("k", notIn, "0", "3").Any())
}

// The operands of the operator-pair table: each left operand meets each
// right operand.
var (
	left = map[corev1.NodeSelectorOperator]Requirement{
		in:           mustNew("k", in, "1", "3", "5"),
		notIn:        mustNew("k", notIn, "3", "9"),
		exists:       mustNew("k", exists),
		doesNotExist: mustNew("k", doesNotExist),
		gt:           mustNew("k", gt, "2"),
		lt:           mustNew("k", lt, "5"),
		OpGte:        mustNew("k", OpGte, "3"),
		OpLte:        mustNew("k", OpLte, "4"),
	}
	right = map[corev1.NodeSelectorOperator]Requirement{
		in:           mustNew("k", in, "3", "4", "x"),
		notIn:        mustNew("k", notIn, "1", "4"),
		exists:       mustNew("k", exists),
		doesNotExist: mustNew("k", doesNotExist),
		gt:           mustNew("k", gt, "3"),
		lt:           mustNew("k", lt, "4"),
		OpGte:        mustNew("k", OpGte, "5"),
		OpLte:        mustNew("k", OpLte, "2"),
	}
)

// TestOperatorPairs covers every pair of operators: the intersection, as
// printed, and whether the two requirements intersect in Karpenter's sense
// (some common value, or both only exclude values).
func TestOperatorPairs(t *testing.T) {
	for _, tc := range []struct {
		a, b       corev1.NodeSelectorOperator
		want       string
		intersects bool
	}{
		{in, in, "k In [3]", true},
		{in, notIn, "k In [3 5]", true},
		{in, exists, "k In [1 3 5]", true},
		{in, doesNotExist, "k DoesNotExist", false},
		{in, gt, "k In [5]", true},
		{in, lt, "k In [1 3]", true},
		{in, OpGte, "k In [5]", true},
		{in, OpLte, "k In [1]", true},

		{notIn, in, "k In [4 x]", true},
		{notIn, notIn, "k NotIn [1 3 4 9]", true},
		{notIn, exists, "k NotIn [3 9]", true},
		{notIn, doesNotExist, "k DoesNotExist", true},
		{notIn, gt, "k NotIn [9] Gte 4", true},
		{notIn, lt, "k NotIn [3] Lte 3", true},
		{notIn, OpGte, "k NotIn [9] Gte 5", true},
		{notIn, OpLte, "k Lte 2", true},

		{exists, in, "k In [3 4 x]", true},
		{exists, notIn, "k NotIn [1 4]", true},
		{exists, exists, "k Exists", true},
		{exists, doesNotExist, "k DoesNotExist", false},
		{exists, gt, "k Gte 4", true},
		{exists, lt, "k Lte 3", true},
		{exists, OpGte, "k Gte 5", true},
		{exists, OpLte, "k Lte 2", true},

		{doesNotExist, in, "k DoesNotExist", false},
		{doesNotExist, notIn, "k DoesNotExist", true},
		{doesNotExist, exists, "k DoesNotExist", false},
		{doesNotExist, doesNotExist, "k DoesNotExist", true},
		{doesNotExist, gt, "k DoesNotExist", false},
		{doesNotExist, lt, "k DoesNotExist", false},
		{doesNotExist, OpGte, "k DoesNotExist", false},
		{doesNotExist, OpLte, "k DoesNotExist", false},

		{gt, in, "k In [3 4]", true},
		{gt, notIn, "k NotIn [4] Gte 3", true},
		{gt, exists, "k Gte 3", true},
		{gt, doesNotExist, "k DoesNotExist", false},
		{gt, gt, "k Gte 4", true},
		{gt, lt, "k Gte 3 Lte 3", true},
		{gt, OpGte, "k Gte 5", true},
		{gt, OpLte, "k DoesNotExist", false},

		{lt, in, "k In [3 4]", true},
		{lt, notIn, "k NotIn [1 4] Lte 4", true},
		{lt, exists, "k Lte 4", true},
		{lt, doesNotExist, "k DoesNotExist", false},
		{lt, gt, "k Gte 4 Lte 4", true},
		{lt, lt, "k Lte 3", true},
		{lt, OpGte, "k DoesNotExist", false},
		{lt, OpLte, "k Lte 2", true},

		{OpGte, in, "k In [3 4]", true},
		{OpGte, notIn, "k NotIn [4] Gte 3", true},
		{OpGte, exists, "k Gte 3", true},
		{OpGte, doesNotExist, "k DoesNotExist", false},
		{OpGte, gt, "k Gte 4", true},
		{OpGte, lt, "k Gte 3 Lte 3", true},
		{OpGte, OpGte, "k Gte 5", true},
		{OpGte, OpLte, "k DoesNotExist", false},

		{OpLte, in, "k In [3 4]", true},
		{OpLte, notIn, "k NotIn [1 4] Lte 4", true},
		{OpLte, exists, "k Lte 4", true},
		{OpLte, doesNotExist, "k DoesNotExist", false},
		{OpLte, gt, "k Gte 4 Lte 4", true},
		{OpLte, lt, "k Lte 3", true},
		{OpLte, OpGte, "k DoesNotExist", false},
		{OpLte, OpLte, "k Lte 2", true},
	} {
		t.Run(fmt.Sprintf("%s/%s", tc.a, tc.b), func(t *testing.T) {
			a, b := left[tc.a], right[tc.b]
			got := a.Intersection(b)
			assert.Equal(t, tc.want, got.String())
			assert.Equal(t, tc.want, b.Intersection(a).String(), "intersection is symmetric")
			ra, rb := NewRequirements(a), NewRequirements(b)
			assert.Equal(t, tc.intersects, ra.Intersects(rb) == nil)
			assert.Equal(t, tc.intersects, ra.IntersectsFast(rb))
			assert.Equal(t, tc.intersects, rb.IntersectsFast(ra), "intersects is symmetric")
		})
	}
}

func TestIntersectionKeepsTheLargerMinValues(t *testing.T) {
	a := mustNew("k", in, "a", "b", "c").WithMinValues(2)
	b := mustNew("k", exists).WithMinValues(3)
	got := a.Intersection(b)
	assert.Equal(t, 3, got.MinValues())
	assert.Equal(t, "k In [a b c] minValues 3", got.String())
}

func TestStringAbbreviatesLongSets(t *testing.T) {
	r := mustNew("k", in, "a", "b", "c", "d", "e", "f", "g")
	assert.Equal(t, "k In [a b c d e and 2 others]", r.String())
}

func TestIntersectionDoesNotChangeItsOperands(t *testing.T) {
	a := mustNew("k", in, "1", "2", "3")
	b := mustNew("k", notIn, "2")
	before := a.String() + b.String()
	_ = a.Intersection(b)
	_ = b.Intersection(a)
	values := a.Values()
	values[0] = "changed"
	assert.Equal(t, before, a.String()+b.String())
}

func TestNodeSelectorRequirementsRoundTrip(t *testing.T) {
	for _, r := range left {
		r = r.Intersection(mustNew("k", notIn, "7"))
		back, err := FromNodeSelectorRequirements(r.NodeSelectorRequirements()...)
		require.NoError(t, err)
		assert.Equal(t, r.String(), back.Get("k").String())
	}
	assert.True(t, strings.HasPrefix(mustNew("k", gt, "1").String(), "k Gte 2"))
}

func TestAppendStringAppendsWhatStringPrints(t *testing.T) {
	for _, r := range []Requirement{
		mustNew("k", corev1.NodeSelectorOpIn, "a", "b", "c", "d", "e", "f", "g").WithMinValues(2),
		mustNew("k", corev1.NodeSelectorOpNotIn, "9").Intersection(mustNew("k", corev1.NodeSelectorOpGt, "1")).Intersection(mustNew("k", corev1.NodeSelectorOpLt, "20")),
		mustNew("k", OpGte, "3").Intersection(mustNew("k", OpLte, "7")),
		mustNew("k", corev1.NodeSelectorOpDoesNotExist),
	} {
		assert.Equal(t, "prefix|"+r.String(), string(r.AppendString([]byte("prefix|"))))
	}
	assert.Equal(t, "k NotIn [9] Gte 2 Lte 19", mustNew("k", corev1.NodeSelectorOpNotIn, "9").Intersection(mustNew("k", corev1.NodeSelectorOpGt, "1")).Intersection(mustNew("k", corev1.NodeSelectorOpLt, "20")).String())
}

// AppendKey tells apart every two different requirements, even those String
// prints alike, and gives equal ones equal keys.
func TestAppendKeyIsExact(t *testing.T) {
	in, notIn := corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn
	all := []Requirement{
		mustNew("k", in, "a", "b", "c", "d", "e", "f"),
		mustNew("k", in, "a", "b", "c", "d", "e", "g"),
		mustNew("k", in, "a", "b", "c", "d", "e", "f").WithMinValues(2),
		mustNew("k", notIn, "a", "b", "c", "d", "e", "f"),
		mustNew("k", notIn, "a", "b", "c", "d", "e", "fg"),
		mustNew("k", in, "ab"),
		mustNew("k", in, "a", "b"),
		mustNew("k2", in, "a"),
		mustNew("k", corev1.NodeSelectorOpExists),
		mustNew("k", corev1.NodeSelectorOpDoesNotExist),
		mustNew("k", OpGte, "3"),
		mustNew("k", OpLte, "3"),
		mustNew("k", OpGte, "3").Intersection(mustNew("k", OpLte, "7")),
	}
	assert.Equal(t, all[0].String(), all[1].String(), "the case String cannot tell apart")
	seen := map[string]int{}
	for i, r := range all {
		key := string(r.AppendKey(nil))
		if j, dup := seen[key]; dup {
			t.Errorf("%s and %s share key %q", all[j], r, key)
		}
		seen[key] = i
		again := mustNew(r.Key(), r.Operator(), r.Values()...)
		if r.Operator() == corev1.NodeSelectorOpIn || r.Operator() == corev1.NodeSelectorOpNotIn {
			again = again.WithMinValues(r.MinValues())
			assert.Equal(t, key, string(again.AppendKey(nil)), "rebuilt %s", r)
		}
	}
}

// mustNew is New for requirements the tests write; it fails on an error.
func mustNew(key string, op corev1.NodeSelectorOperator, values ...string) Requirement {
	r, err := New(key, op, values...)
	if err != nil {
		panic(err) // a test's typo, never input
	}
	return r
}

// The total constructors build what New builds from the same operator, and
// cannot fail: In without values allows no value at all.
func TestTotalConstructorsAreNew(t *testing.T) {
	for _, tc := range []struct {
		got    Requirement
		op     corev1.NodeSelectorOperator
		values []string
	}{
		{In("failure-domain.beta.kubernetes.io/zone", "b", "a", "b"), in, []string{"a", "b"}},
		{NotIn("k", "x", ""), notIn, []string{"", "x"}},
		{NotIn("k"), exists, nil},
		{Exists("k"), exists, nil},
		{DoesNotExist("k"), doesNotExist, nil},
		{In("k"), doesNotExist, nil},
		{In("k", ""), in, []string{""}},
	} {
		want, err := New(tc.got.Key(), tc.op, tc.values...)
		require.NoError(t, err)
		assert.Equal(t, want, tc.got, "%s %s %v", tc.got.Key(), tc.op, tc.values)
	}
	assert.Equal(t, "topology.kubernetes.io/zone", In("failure-domain.beta.kubernetes.io/zone", "a").Key())
}

func TestAnyFindsAllowedNegativeIntegers(t *testing.T) {
	lt, gt := corev1.NodeSelectorOpLt, corev1.NodeSelectorOpGt
	onlyNegative := mustNew("k", lt, "-3")
	assert.Equal(t, "-4", onlyNegative.Any())
	assert.True(t, onlyNegative.Has(onlyNegative.Any()))

	between := mustNew("k", gt, "-10").Intersection(mustNew("k", lt, "-7"))
	assert.Equal(t, "-9", between.Any())

	excluded := mustNew("k", lt, "-3").Intersection(mustNew("k", corev1.NodeSelectorOpNotIn, "-4", "-5"))
	v := excluded.Any()
	assert.NotEmpty(t, v)
	assert.True(t, excluded.Has(v), "Any() = %q", v)
}

func TestWithMinValuesNeverNegative(t *testing.T) {
	r := mustNew("k", corev1.NodeSelectorOpExists).WithMinValues(-2)
	assert.Equal(t, 0, r.MinValues())
}
