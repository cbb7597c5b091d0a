// Package requirements is the label algebra every scheduling decision rests
// on: a Requirement is what a NodePool, a pod or an instance type says about
// one label key (a set of allowed values, or everything but a set, with
// optional integer bounds and a minimum number of distinct values), and
// Requirements is a set of them keyed by label. Intersection, Compatible and
// Intersects follow Karpenter's semantics exactly.
//
// Build requirements with NewRequirements from In, NotIn, Exists and the
// other operators, or from a NodePool's or a pod's terms. Values are
// immutable: every operation returns a new value and never changes its
// operands, so requirements can be shared freely.
package requirements

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// Operators beyond the six of corev1.
const (
	OpGte corev1.NodeSelectorOperator = "Gte"
	OpLte corev1.NodeSelectorOperator = "Lte"
)

// Requirement constrains the values of one label key. The zero value is not
// useful; build one with New, In, NotIn, Exists, DoesNotExist or From*.
//
// Internally a requirement is a sorted set of values plus a complement flag
// (the set lists excluded values), and, for complements only, an inclusive
// integer range [gte, lte] that allowed values must parse into.
type Requirement struct {
	key        string
	complement bool
	values     []string // sorted, unique
	hasGte     bool
	hasLte     bool
	gte, lte   int64
	minValues  int // 0: none
}

// New builds a requirement from an operator and its values, as a NodePool or
// a node selector term states it. Keys with deprecated aliases (e.g.
// failure-domain.beta.kubernetes.io/zone) are normalized to the well-known
// key. Values that do not suit the operator are an error: In needs at least
// one value, Exists and DoesNotExist none, Gt, Lt, Gte and Lte exactly one
// integer.
func New(key string, op corev1.NodeSelectorOperator, values ...string) (Requirement, error) {
	key = apis.NormalizeLabel(key)
	r := Requirement{key: key}
	switch op {
	case corev1.NodeSelectorOpIn:
		if len(values) == 0 {
			return Requirement{}, fmt.Errorf("requirement %q: operator In needs at least one value", key)
		}
		r.values = sortedUnique(values)
	case corev1.NodeSelectorOpNotIn:
		r.complement = true
		r.values = sortedUnique(values)
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		if len(values) != 0 {
			return Requirement{}, fmt.Errorf("requirement %q: operator %s takes no values, got %d", key, op, len(values))
		}
		r.complement = op == corev1.NodeSelectorOpExists
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, OpGte, OpLte:
		if len(values) != 1 {
			return Requirement{}, fmt.Errorf("requirement %q: operator %s takes exactly one integer value, got %d", key, op, len(values))
		}
		n, err := strconv.ParseInt(values[0], 10, 64)
		if err != nil {
			return Requirement{}, fmt.Errorf("requirement %q: operator %s needs an integer value, got %q", key, op, values[0])
		}
		return bounded(key, op, n), nil
	default:
		return Requirement{}, fmt.Errorf("requirement %q: unknown operator %q (want In, NotIn, Exists, DoesNotExist, Gt, Lt, Gte or Lte)", key, op)
	}
	return r, nil
}

// In is the requirement that key has one of the values; with none, the
// key may have no value at all (DoesNotExist). Unlike New it cannot fail,
// so it suits values read from users' objects: hostnames, NodePool names,
// topology domains. The key is normalized as New normalizes it.
func In(key string, values ...string) Requirement {
	return Requirement{key: apis.NormalizeLabel(key), values: sortedUnique(values)}
}

// NotIn is the requirement that key has none of the values, or no value.
func NotIn(key string, values ...string) Requirement {
	return Requirement{key: apis.NormalizeLabel(key), complement: true, values: sortedUnique(values)}
}

// Exists is the requirement that key has any value.
func Exists(key string) Requirement {
	return Requirement{key: apis.NormalizeLabel(key), complement: true}
}

// DoesNotExist is the requirement that key has no value.
func DoesNotExist(key string) Requirement {
	return Requirement{key: apis.NormalizeLabel(key)}
}

// bounded builds the requirement for an integer comparison. Gt n becomes
// "at least n+1" and Lt n "at most n-1"; a bound past the integers is
// unsatisfiable and becomes DoesNotExist.
func bounded(key string, op corev1.NodeSelectorOperator, n int64) Requirement {
	r := Requirement{key: key, complement: true}
	switch op {
	case corev1.NodeSelectorOpGt:
		if n == math.MaxInt64 {
			return Requirement{key: key}
		}
		r.hasGte, r.gte = true, n+1
	case corev1.NodeSelectorOpLt:
		if n == math.MinInt64 {
			return Requirement{key: key}
		}
		r.hasLte, r.lte = true, n-1
	case OpGte:
		r.hasGte, r.gte = true, n
	case OpLte:
		r.hasLte, r.lte = true, n
	}
	return r
}

// WithMinValues returns a copy of r that asks for at least n distinct values
// of its key across the instance types a NodeClaim may launch. n below one
// asks for nothing (validation refuses it in a NodePool; the requirement
// never holds a negative count).
func (r Requirement) WithMinValues(n int) Requirement {
	r.minValues = max(n, 0)
	return r
}

// Key is the label key.
func (r Requirement) Key() string { return r.key }

// MinValues is the minimum number of distinct values required, 0 if none.
func (r Requirement) MinValues() int { return r.minValues }

// Operator is the operator that best describes the requirement: In (a finite
// set), NotIn (everything but a non-empty set), Exists (anything, perhaps
// within integer bounds) or DoesNotExist (nothing).
func (r Requirement) Operator() corev1.NodeSelectorOperator {
	switch {
	case r.complement && len(r.values) > 0:
		return corev1.NodeSelectorOpNotIn
	case r.complement:
		return corev1.NodeSelectorOpExists
	case len(r.values) > 0:
		return corev1.NodeSelectorOpIn
	default:
		return corev1.NodeSelectorOpDoesNotExist
	}
}

// Len is the number of allowed values; for a complement it is
// math.MaxInt64 less the number of excluded values, as upstream counts.
func (r Requirement) Len() int {
	if r.complement {
		return math.MaxInt64 - len(r.values)
	}
	return len(r.values)
}

// Values returns the allowed values of an In requirement, or the excluded
// values of a NotIn requirement, sorted. The caller may keep the slice.
func (r Requirement) Values() []string { return slices.Clone(r.values) }

// Bounds reports the inclusive integer bounds of the requirement.
func (r Requirement) Bounds() (gte int64, hasGte bool, lte int64, hasLte bool) {
	return r.gte, r.hasGte, r.lte, r.hasLte
}

// IsOnly reports whether r is In(r.Key(), value): it allows value alone,
// without minValues.
func (r Requirement) IsOnly(value string) bool {
	return !r.complement && len(r.values) == 1 && r.values[0] == value && r.minValues == 0 && !r.hasGte && !r.hasLte
}

// Has reports whether value is allowed.
func (r Requirement) Has(value string) bool {
	_, found := slices.BinarySearch(r.values, value)
	return found != r.complement && r.withinBounds(value)
}

// Any returns one allowed value, or "" if none. It is deterministic: the
// smallest value of an In set, and for a complement the smallest
// non-negative integer inside the bounds that is not excluded, or when the
// bounds allow only negative ones, the smallest of those near the bounds
// (Karpenter draws a random one; a simulator must not).
func (r Requirement) Any() string {
	if !r.complement {
		if len(r.values) == 0 {
			return ""
		}
		return r.values[0]
	}
	lo, hi := int64(0), int64(math.MaxInt64)
	if r.hasGte {
		lo = max(lo, r.gte)
	}
	if r.hasLte {
		hi = r.lte
	}
	if hi < lo {
		// Only negative integers are allowed: take the lower bound, or
		// without one look just below the upper bound, where a window one
		// wider than the excluded values always holds an allowed one.
		switch {
		case r.hasGte:
			lo = r.gte
		case hi >= math.MinInt64+int64(len(r.values)):
			lo = hi - int64(len(r.values))
		default:
			lo = math.MinInt64
		}
	}
	for n := lo; n <= hi; n++ {
		if s := strconv.FormatInt(n, 10); !r.excludes(s) {
			return s
		}
		if n == math.MaxInt64 {
			break
		}
	}
	return ""
}

func (r Requirement) excludes(value string) bool {
	_, found := slices.BinarySearch(r.values, value)
	return r.complement == found
}

func (r Requirement) withinBounds(value string) bool {
	if !r.hasGte && !r.hasLte {
		return true
	}
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return false
	}
	return (!r.hasGte || n >= r.gte) && (!r.hasLte || n <= r.lte)
}

// Intersection returns the requirement that allows exactly the values both
// r and other allow. minValues is the larger of the two. Bounds survive only
// on complements: a finite set is filtered by them instead.
func (r Requirement) Intersection(other Requirement) Requirement {
	out := Requirement{key: r.key, complement: r.complement && other.complement, minValues: max(r.minValues, other.minValues)}
	out.hasGte, out.gte = maxBound(r.hasGte, r.gte, other.hasGte, other.gte)
	out.hasLte, out.lte = minBound(r.hasLte, r.lte, other.hasLte, other.lte)
	if out.hasGte && out.hasLte && out.gte > out.lte {
		return Requirement{key: r.key, minValues: out.minValues}
	}
	switch {
	case r.complement && other.complement:
		out.values = union(r.values, other.values)
	case r.complement:
		out.values = difference(other.values, r.values)
	case other.complement:
		out.values = difference(r.values, other.values)
	default:
		out.values = intersection(r.values, other.values)
	}
	if out.hasGte || out.hasLte {
		out.values = out.keepWithinBounds(out.values)
	}
	if !out.complement {
		out.hasGte, out.hasLte, out.gte, out.lte = false, false, 0, 0
	}
	if len(out.values) == 0 {
		out.values = nil
	}
	return out
}

// intersectionIsEmpty reports whether r ∩ other allows no value, without
// building the intersection. It is the hot path of Intersects.
func (r Requirement) intersectionIsEmpty(other Requirement) bool {
	hasGte, gte := maxBound(r.hasGte, r.gte, other.hasGte, other.gte)
	hasLte, lte := minBound(r.hasLte, r.lte, other.hasLte, other.lte)
	if hasGte && hasLte && gte > lte {
		return true
	}
	bounds := Requirement{hasGte: hasGte, gte: gte, hasLte: hasLte, lte: lte}
	switch {
	case r.complement && other.complement:
		return false
	case r.complement:
		return !anyAllowed(other.values, r, bounds)
	case other.complement:
		return !anyAllowed(r.values, other, bounds)
	}
	i, j := 0, 0
	for i < len(r.values) && j < len(other.values) {
		switch c := strings.Compare(r.values[i], other.values[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			if bounds.withinBounds(r.values[i]) {
				return false
			}
			i++
			j++
		}
	}
	return true
}

// anyAllowed reports whether some value of set is not excluded by the
// complement c and lies within bounds.
func anyAllowed(set []string, c, bounds Requirement) bool {
	for _, v := range set {
		if _, excluded := slices.BinarySearch(c.values, v); !excluded && bounds.withinBounds(v) {
			return true
		}
	}
	return false
}

// isNegative reports whether the requirement only rules values out (NotIn
// or DoesNotExist): two such requirements never conflict.
func (r Requirement) isNegative() bool {
	op := r.Operator()
	return op == corev1.NodeSelectorOpNotIn || op == corev1.NodeSelectorOpDoesNotExist
}

// NodeSelectorRequirements expresses r as node selector requirements whose
// intersection is r: one for the set, and one per bound.
func (r Requirement) NodeSelectorRequirements() []corev1.NodeSelectorRequirement {
	out, _ := r.appendNodeSelectorRequirements(nil, nil)
	return out
}

// selectorTerms is how many node selector requirements express r.
func (r *Requirement) selectorTerms() int {
	n := 0
	if !(r.Operator() == corev1.NodeSelectorOpExists && (r.hasGte || r.hasLte)) {
		n++
	}
	if r.hasGte {
		n++
	}
	if r.hasLte {
		n++
	}
	return n
}

// appendNodeSelectorRequirements appends r's node selector requirements to
// out, their set's values appended to values and held there (nil when it
// has none). Each requirement's Values are capped at their length, so that
// appending to one never reaches another's.
func (r *Requirement) appendNodeSelectorRequirements(out []corev1.NodeSelectorRequirement, values []string) ([]corev1.NodeSelectorRequirement, []string) {
	op := r.Operator()
	if !(op == corev1.NodeSelectorOpExists && (r.hasGte || r.hasLte)) {
		var own []string
		if len(r.values) > 0 {
			start := len(values)
			values = append(values, r.values...)
			own = values[start:len(values):len(values)]
		}
		out = append(out, corev1.NodeSelectorRequirement{Key: r.key, Operator: op, Values: own})
	}
	if r.hasGte {
		out = append(out, corev1.NodeSelectorRequirement{Key: r.key, Operator: OpGte, Values: []string{strconv.FormatInt(r.gte, 10)}})
	}
	if r.hasLte {
		out = append(out, corev1.NodeSelectorRequirement{Key: r.key, Operator: OpLte, Values: []string{strconv.FormatInt(r.lte, 10)}})
	}
	return out, values
}

// String prints the requirement the way Karpenter's messages do, e.g.
// `topology.kubernetes.io/zone In [us-east-1a us-east-1b]`; more than five
// values are abbreviated.
func (r Requirement) String() string { return string(r.AppendString(nil)) }

// AppendKey appends to b an exact encoding of the requirement: equal
// requirements append equal bytes and different ones different bytes, for
// use as a map key. (String shortens long value lists.)
func (r Requirement) AppendKey(b []byte) []byte {
	b = append(append(b, r.key...), 0)
	if r.complement {
		b = append(b, '!')
	}
	for _, v := range r.values {
		b = append(append(b, v...), 0)
	}
	if r.hasGte {
		b = strconv.AppendInt(append(b, '>'), r.gte, 10)
	}
	if r.hasLte {
		b = strconv.AppendInt(append(b, '<'), r.lte, 10)
	}
	return strconv.AppendInt(append(b, '#'), int64(r.minValues), 10)
}

// AppendString appends the requirement to b as String prints it.
func (r Requirement) AppendString(b []byte) []byte {
	b = append(append(b, r.key...), ' ')
	op := r.Operator()
	switch {
	case op == corev1.NodeSelectorOpExists && r.hasGte && !r.hasLte:
		b = appendBound(b, OpGte, r.gte)
	case op == corev1.NodeSelectorOpExists && r.hasLte && !r.hasGte:
		b = appendBound(b, OpLte, r.lte)
	case op == corev1.NodeSelectorOpExists && r.hasGte && r.hasLte:
		b = appendBound(append(appendBound(b, OpGte, r.gte), ' '), OpLte, r.lte)
	case op == corev1.NodeSelectorOpIn || op == corev1.NodeSelectorOpNotIn:
		values := r.values
		more := 0
		if len(values) > 5 {
			values, more = values[:5], len(values)-5
		}
		b = append(append(b, op...), " ["...)
		for i, v := range values {
			if i > 0 {
				b = append(b, ' ')
			}
			b = append(b, v...)
		}
		if more > 0 {
			b = append(strconv.AppendInt(append(b, " and "...), int64(more), 10), " others"...)
		}
		b = append(b, ']')
		if op == corev1.NodeSelectorOpNotIn {
			if r.hasGte {
				b = appendBound(append(b, ' '), OpGte, r.gte)
			}
			if r.hasLte {
				b = appendBound(append(b, ' '), OpLte, r.lte)
			}
		}
	default:
		b = append(b, op...)
	}
	if r.minValues > 0 {
		b = strconv.AppendInt(append(b, " minValues "...), int64(r.minValues), 10)
	}
	return b
}

// appendBound appends "op n".
func appendBound(b []byte, op corev1.NodeSelectorOperator, n int64) []byte {
	return strconv.AppendInt(append(append(b, op...), ' '), n, 10)
}

func maxBound(hasA bool, a int64, hasB bool, b int64) (bool, int64) {
	switch {
	case hasA && hasB:
		return true, max(a, b)
	case hasA:
		return true, a
	default:
		return hasB, b
	}
}

func minBound(hasA bool, a int64, hasB bool, b int64) (bool, int64) {
	switch {
	case hasA && hasB:
		return true, min(a, b)
	case hasA:
		return true, a
	default:
		return hasB, b
	}
}

// keepWithinBounds returns the values within r's bounds: values itself
// when all are, which may be another requirement's (values are never
// changed in place), or a new slice.
func (r Requirement) keepWithinBounds(values []string) []string {
	i := slices.IndexFunc(values, func(v string) bool { return !r.withinBounds(v) })
	if i < 0 {
		return values
	}
	out := slices.Clone(values[:i])
	for _, v := range values[i+1:] {
		if r.withinBounds(v) {
			out = append(out, v)
		}
	}
	return out
}

// within reports whether r.Intersection(other) is r itself: r is a finite
// set without bounds, other allows each of its values, and other asks for
// no more minValues. Checked without allocating.
func (r *Requirement) within(other *Requirement) bool {
	if r.complement || r.hasGte || r.hasLte || r.minValues < other.minValues {
		return false
	}
	for _, v := range r.values {
		if !other.Has(v) {
			return false
		}
	}
	return true
}

func sortedUnique(values []string) []string {
	if len(values) == 0 {
		return nil
	}
	out := slices.Clone(values)
	slices.Sort(out)
	return slices.Compact(out)
}

func union(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i], b[j]); {
		case c < 0:
			out = append(out, a[i])
			i++
		case c > 0:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// intersection returns the values both sorted sets hold: a itself when b
// holds all of a (values are never changed in place).
func intersection(a, b []string) []string {
	if isSubset(a, b) {
		return a
	}
	var out []string
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch c := strings.Compare(a[i], b[j]); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// isSubset reports whether the sorted set b holds every value of the
// sorted set a.
func isSubset(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	j := 0
	for _, v := range a {
		for j < len(b) && b[j] < v {
			j++
		}
		if j == len(b) || b[j] != v {
			return false
		}
		j++
	}
	return true
}

// difference returns the values of a that are not in b: a itself when b
// holds none of them (values are never changed in place).
func difference(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	var out []string
	j := 0
	for _, v := range a {
		for j < len(b) && b[j] < v {
			j++
		}
		if j < len(b) && b[j] == v {
			continue
		}
		out = append(out, v)
	}
	return out
}

// AppendValues appends the values Values returns to dst, without allocating
// when dst has room: for hot loops that only read them.
func (r Requirement) AppendValues(dst []string) []string { return append(dst, r.values...) }
