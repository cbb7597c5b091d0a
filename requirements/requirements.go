package requirements

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// Requirements is a set of requirements with at most one per key, kept
// sorted by key so that set operations are merge walks. The zero value is
// the empty set, which allows everything.
type Requirements struct {
	items []Requirement
}

// NewRequirements returns the set of the given requirements; several on one
// key are intersected.
func NewRequirements(reqs ...Requirement) Requirements {
	var r Requirements
	return r.Add(reqs...)
}

// FromLabels returns one In requirement per label.
func FromLabels(labels map[string]string) Requirements {
	if len(labels) == 0 {
		return Requirements{}
	}
	items := make([]Requirement, 0, len(labels))
	values := make([]string, len(labels)) // one backing array for every value list
	for key, value := range labels {
		key = apis.NormalizeLabel(key)
		i := len(items)
		values[i] = value
		items = append(items, Requirement{key: key, values: values[i : i+1 : i+1]})
	}
	// Keys are unique but for a label and its normalized twin, which
	// intersect; the order among equal keys does not matter to that.
	slices.SortFunc(items, func(a, b Requirement) int { return strings.Compare(a.key, b.key) })
	return Requirements{items: intersectRuns(items)}
}

// intersectRuns intersects, in place, the requirements on one key in
// items sorted by key, and returns the shortened slice.
func intersectRuns(items []Requirement) []Requirement {
	merged := items[:0]
	for _, req := range items {
		if n := len(merged); n > 0 && merged[n-1].key == req.key {
			merged[n-1] = merged[n-1].Intersection(req)
			continue
		}
		merged = append(merged, req)
	}
	return merged
}

// FromNodeSelectorRequirements returns the intersection of node selector
// requirements, as one term of a node affinity states them.
func FromNodeSelectorRequirements(terms ...corev1.NodeSelectorRequirement) (Requirements, error) {
	items := make([]Requirement, 0, len(terms))
	for _, term := range terms {
		req, err := New(term.Key, term.Operator, term.Values...)
		if err != nil {
			return Requirements{}, err
		}
		items = append(items, req)
	}
	return NewRequirements(items...), nil
}

// FromNodePool returns the requirements a NodePool template states, minValues
// included, together with its template labels (each an In requirement).
func FromNodePool(spec apis.NodeClaimTemplate) (Requirements, error) {
	items := make([]Requirement, 0, len(spec.Spec.Requirements)+len(spec.ObjectMeta.Labels))
	for i, term := range spec.Spec.Requirements {
		req, err := New(term.Key, term.Operator, term.Values...)
		if err != nil {
			return Requirements{}, fmt.Errorf("requirements[%d]: %w", i, err)
		}
		if term.MinValues != nil {
			req = req.WithMinValues(*term.MinValues)
		}
		items = append(items, req)
	}
	return NewRequirements(items...).Intersect(FromLabels(spec.ObjectMeta.Labels)), nil
}

// Len is the number of keys.
func (r Requirements) Len() int { return len(r.items) }

// Items returns the requirements sorted by key. The caller may keep the slice.
func (r Requirements) Items() []Requirement { return slices.Clone(r.items) }

// SameKeys reports whether r and o constrain the same keys.
func (r Requirements) SameKeys(o Requirements) bool {
	if len(r.items) != len(o.items) {
		return false
	}
	for i := range r.items {
		if r.items[i].key != o.items[i].key {
			return false
		}
	}
	return true
}

// Keys returns the keys, sorted.
func (r Requirements) Keys() []string {
	keys := make([]string, len(r.items))
	for i, item := range r.items {
		keys[i] = item.key
	}
	return keys
}

func (r Requirements) index(key string) (int, bool) {
	return slices.BinarySearchFunc(r.items, key, func(item Requirement, key string) int {
		return strings.Compare(item.key, key)
	})
}

// Has reports whether key is constrained.
func (r Requirements) Has(key string) bool {
	_, found := r.index(key)
	return found
}

// Get returns the requirement on key; an unconstrained key allows anything
// (Exists), as upstream treats it.
func (r Requirements) Get(key string) Requirement {
	if i, found := r.index(key); found {
		return r.items[i]
	}
	return Requirement{key: key, complement: true}
}

// Lookup returns the requirement on key and whether there is one.
func (r Requirements) Lookup(key string) (Requirement, bool) {
	if i, found := r.index(key); found {
		return r.items[i], true
	}
	return Requirement{}, false
}

// LookupRef is Lookup without the copy: the requirement on key inside the
// set itself, which never changes once built, and whether there is one. The
// caller only reads through it.
func (r Requirements) LookupRef(key string) (*Requirement, bool) {
	if i, found := r.index(key); found {
		return &r.items[i], true
	}
	return nil, false
}

// Add returns r with reqs added; a requirement on a key r already has is
// intersected with it. r itself is unchanged.
func (r Requirements) Add(reqs ...Requirement) Requirements {
	if len(reqs) == 0 || r.narrowedBy(reqs) {
		return r
	}
	if len(r.items) > 0 && sortedByUniqueKey(reqs) {
		// Intersect with a non-empty receiver returns it or a new slice,
		// never reqs itself, which the caller may reuse.
		return r.Intersect(Requirements{items: reqs})
	}
	sorted := slices.Clone(reqs)
	slices.SortStableFunc(sorted, func(a, b Requirement) int { return strings.Compare(a.key, b.key) })
	return r.Intersect(Requirements{items: intersectRuns(sorted)})
}

// Intersect returns the requirements that hold where both r and other hold:
// keys of either, intersected where shared.
func (r Requirements) Intersect(other Requirements) Requirements {
	if len(other.items) == 0 {
		return r
	}
	if len(r.items) == 0 {
		return other
	}
	if r.narrowedBy(other.items) {
		return r
	}
	out := make([]Requirement, 0, len(r.items)+len(other.items))
	i, j := 0, 0
	for i < len(r.items) && j < len(other.items) {
		a, b := r.items[i], other.items[j]
		switch c := strings.Compare(a.key, b.key); {
		case c < 0:
			out = append(out, a)
			i++
		case c > 0:
			out = append(out, b)
			j++
		default:
			out = append(out, a.Intersection(b))
			i++
			j++
		}
	}
	out = append(out, r.items[i:]...)
	out = append(out, other.items[j:]...)
	return Requirements{items: out}
}

// sortedByUniqueKey reports whether reqs are in strictly increasing key
// order: a set as Requirements holds one.
func sortedByUniqueKey(reqs []Requirement) bool {
	for i := 1; i < len(reqs); i++ {
		if reqs[i-1].key >= reqs[i].key {
			return false
		}
	}
	return true
}

// narrowedBy reports, without allocating, whether adding reqs (in any
// order, several on one key allowed) leaves r as it is: r constrains each
// key, and each of r's requirements is within what reqs allow on its key
// (see Requirement.within). Add and Intersect then return r itself.
func (r Requirements) narrowedBy(reqs []Requirement) bool {
	for i := range reqs {
		j, found := r.index(reqs[i].key)
		if !found || !r.items[j].within(&reqs[i]) {
			return false
		}
	}
	return true
}

// Without returns r less the requirements on the given keys.
func (r Requirements) Without(keys ...string) Requirements {
	out := slices.DeleteFunc(slices.Clone(r.items), func(item Requirement) bool {
		return slices.Contains(keys, item.key)
	})
	return Requirements{items: out}
}

// ErrIncompatible is wrapped by every error Compatible and Intersects return.
var ErrIncompatible = errors.New("incompatible requirements")

// Intersects reports whether r and other can both hold: on every key both
// constrain, some value must be allowed by both, unless both only rule
// values out (NotIn or DoesNotExist). Keys only one side constrains are
// fine. The error names each conflicting key.
func (r Requirements) Intersects(other Requirements) error {
	var problems []string
	i, j := 0, 0
	for i < len(r.items) && j < len(other.items) {
		a, b := r.items[i], other.items[j]
		switch c := strings.Compare(a.key, b.key); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			if a.intersectionIsEmpty(b) && !(a.isNegative() && b.isNegative()) {
				problems = append(problems, fmt.Sprintf("%s conflicts with %s", b, a))
			}
			i++
			j++
		}
	}
	return incompatible(problems)
}

// IntersectsFast is Intersects without building an error, for hot loops.
func (r Requirements) IntersectsFast(other Requirements) bool {
	i, j := 0, 0
	for i < len(r.items) && j < len(other.items) {
		a, b := &r.items[i], &other.items[j]
		switch c := strings.Compare(a.key, b.key); {
		case c < 0:
			i++
		case c > 0:
			j++
		default:
			if !a.MeetsFast(*b) {
				return false
			}
			i++
			j++
		}
	}
	return true
}

// MeetsFast reports whether two requirements on one key can both hold, as
// IntersectsFast weighs each key both sets constrain: some value allowed
// by both, or both only ruling values out. IntersectsFast of two sets is
// MeetsFast on every key both constrain.
func (r Requirement) MeetsFast(other Requirement) bool {
	return !r.intersectionIsEmpty(other) || r.isNegative() && other.isNegative()
}

// Undefined says which keys Compatible lets the other side constrain when
// the receiver does not.
type Undefined interface {
	// AllowsUndefined reports whether key may be missing.
	AllowsUndefined(key string) bool
}

// The two fixed policies are constants, so that no caller can swap one out
// from under the others.
const (
	// DenyUndefined: every key the other side constrains positively must be
	// there. Used against existing nodes, whose labels are final.
	DenyUndefined = wellKnownOnly(false)
	// AllowUndefinedWellKnown: well-known keys may be missing, since a new
	// NodeClaim learns them when its instance type and offering are chosen.
	AllowUndefinedWellKnown = wellKnownOnly(true)
)

// wellKnownOnly lets the well-known keys be missing when true, and no key
// when false.
type wellKnownOnly bool

func (w wellKnownOnly) AllowsUndefined(key string) bool { return bool(w) && apis.IsWellKnownLabel(key) }

// AllowUndefined lets the well-known keys and the given ones be missing: a
// scheduler passes the label keys of its catalog's instance types, which a
// new NodeClaim also learns from the type it launches (Karpenter registers
// a cloud provider's instance-type labels as well-known for this reason).
func AllowUndefined(keys ...string) Undefined {
	set := keySet{}
	for _, key := range keys {
		set[key] = true
	}
	return set.withWellKnown()
}

// AllowUndefinedOnly lets exactly the given keys be missing: a scheduler
// passes the well-known labels of its catalog's cloud
// (instancetypes.Catalog.WellKnownLabels) and the catalog's label keys.
func AllowUndefinedOnly(keys ...string) Undefined {
	set := keySet{}
	for _, key := range keys {
		set[key] = true
	}
	return set
}

type keySet map[string]bool

func (s keySet) withWellKnown() keySet {
	out := keySet{}
	for key := range s {
		out[key] = true
	}
	for _, key := range apis.WellKnownLabels() {
		out[key] = true
	}
	return out
}

func (s keySet) AllowsUndefined(key string) bool { return s[key] }

// Compatible reports whether other's requirements can be met by something
// described by r: every key other constrains with In or Exists must be
// constrained by r too, unless undefined allows it to be missing, and every
// shared key must intersect.
func (r Requirements) Compatible(other Requirements, undefined Undefined) error {
	var problems []string
	for _, b := range other.items {
		if b.isNegative() || r.Has(b.key) {
			continue
		}
		if undefined.AllowsUndefined(b.key) {
			continue
		}
		problems = append(problems, fmt.Sprintf("label %q does not have known values%s", b.key, typoHint(r, b.key)))
	}
	if err := r.Intersects(other); err != nil {
		problems = append(problems, strings.TrimPrefix(err.Error(), ErrIncompatible.Error()+": "))
	}
	return incompatible(problems)
}

// CompatibleFast is Compatible without building an error, for hot loops.
func (r Requirements) CompatibleFast(other Requirements, undefined Undefined) bool {
	for i := range other.items {
		b := &other.items[i]
		if b.isNegative() || r.Has(b.key) {
			continue
		}
		if undefined.AllowsUndefined(b.key) {
			continue
		}
		return false
	}
	return r.IntersectsFast(other)
}

func incompatible(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrIncompatible, strings.Join(problems, "; "))
}

// typoHint suggests a known key when key looks like a misspelling of one:
// a small edit distance, or the same name under another domain. (Upstream
// also hints at any key containing the name, which suggests
// instance-gpu-count for a label called "gpu"; that rule is left out.)
func typoHint(r Requirements, key string) string {
	candidates := append(apis.WellKnownLabels(), r.Keys()...)
	suffix := key
	if _, after, found := strings.Cut(key, "/"); found {
		suffix = after
	}
	for _, known := range candidates {
		if known == key {
			continue
		}
		if strings.HasSuffix(known, "/"+suffix) || editDistance(key, known) < len(known)/5 {
			return fmt.Sprintf(" (typo of %q?)", known)
		}
	}
	return ""
}

func editDistance(s, t string) int {
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(t)]
}

// Labels returns the node labels the requirements imply: for each key that
// Karpenter may set on a node itself (not well-known, not restricted), the
// value Any picks. Well-known labels come from the instance type instead.
func (r Requirements) Labels() map[string]string {
	labels := map[string]string{}
	for _, item := range r.items {
		if apis.IsRestrictedNodeLabel(item.key) {
			continue
		}
		if value := item.Any(); value != "" {
			labels[item.key] = value
		}
	}
	return labels
}

// HasMinValues reports whether any requirement asks for minValues.
func (r Requirements) HasMinValues() bool {
	return slices.ContainsFunc(r.items, func(item Requirement) bool { return item.minValues > 0 })
}

// NodeSelectorRequirements expresses r as node selector requirements, sorted
// by key.
func (r Requirements) NodeSelectorRequirements() []corev1.NodeSelectorRequirement {
	if len(r.items) == 0 {
		return nil
	}
	// One slice for the requirements and one for all their values.
	terms, count := 0, 0
	for i := range r.items {
		terms += r.items[i].selectorTerms()
		count += len(r.items[i].values)
	}
	out := make([]corev1.NodeSelectorRequirement, 0, terms)
	var values []string
	if count > 0 {
		values = make([]string, 0, count)
	}
	for i := range r.items {
		out, values = r.items[i].appendNodeSelectorRequirements(out, values)
	}
	return out
}

// String lists the requirements sorted by key, hostname left out as upstream
// does (it is a placeholder on new NodeClaims).
func (r Requirements) String() string {
	parts := make([]string, 0, len(r.items))
	for _, item := range r.items {
		if item.key == apis.LabelHostname {
			continue
		}
		parts = append(parts, item.String())
	}
	return strings.Join(parts, ", ")
}

// ChangedKeys appends to dst the keys whose requirement differs between r
// and other (present in one only, or with different values, bounds or
// minValues), in key order.
func (r Requirements) ChangedKeys(other Requirements, dst []string) []string {
	i, j := 0, 0
	for i < len(r.items) || j < len(other.items) {
		switch {
		case j == len(other.items) || (i < len(r.items) && r.items[i].key < other.items[j].key):
			dst = append(dst, r.items[i].key)
			i++
		case i == len(r.items) || other.items[j].key < r.items[i].key:
			dst = append(dst, other.items[j].key)
			j++
		default:
			if !r.items[i].equal(&other.items[j]) {
				dst = append(dst, r.items[i].key)
			}
			i++
			j++
		}
	}
	return dst
}

// IntersectsOn is IntersectsFast limited to the given keys: a caller that
// knows r and other intersect on every other key checks only these.
func (r Requirements) IntersectsOn(other Requirements, keys []string) bool {
	for _, key := range keys {
		a, ok := r.Lookup(key)
		if !ok {
			continue
		}
		b, ok := other.Lookup(key)
		if !ok {
			continue
		}
		if !a.MeetsFast(b) {
			return false
		}
	}
	return true
}

func (r *Requirement) equal(o *Requirement) bool {
	return r.complement == o.complement && r.hasGte == o.hasGte && r.hasLte == o.hasLte &&
		r.gte == o.gte && r.lte == o.lte && r.minValues == o.minValues && slices.Equal(r.values, o.values)
}

// AllowsFast reports, without allocating, what CompatibleFast reports for
// the set holding req alone: req's key is constrained by r (or allowed
// undefined, or req only excludes), and the two intersect.
func (r Requirements) AllowsFast(req Requirement, undefined Undefined) bool {
	existing, ok := r.Lookup(req.key)
	if !ok {
		return req.isNegative() || undefined.AllowsUndefined(req.key)
	}
	return !existing.intersectionIsEmpty(req) || (existing.isNegative() && req.isNegative())
}

// AppendKeys appends the keys, in order, to dst.
func (r Requirements) AppendKeys(dst []string) []string {
	for i := range r.items {
		dst = append(dst, r.items[i].key)
	}
	return dst
}

// AppendKey appends to b an exact encoding of the requirements but the one
// on the key left out ("" for none): equal sets append equal bytes, for
// use as a map key (see Requirement.AppendKey).
func (r Requirements) AppendKey(b []byte, without string) []byte {
	for i := range r.items {
		if r.items[i].key != without {
			b = append(r.items[i].AppendKey(b), '|')
		}
	}
	return b
}

// EqualWithout reports whether r and o are equal sets but for their
// requirements on the key left out, without allocating.
func (r Requirements) EqualWithout(o Requirements, without string) bool {
	i, j := 0, 0
	for {
		for i < len(r.items) && r.items[i].key == without {
			i++
		}
		for j < len(o.items) && o.items[j].key == without {
			j++
		}
		if i == len(r.items) || j == len(o.items) {
			return i == len(r.items) && j == len(o.items)
		}
		if r.items[i].key != o.items[j].key || !r.items[i].equal(&o.items[j]) {
			return false
		}
		i++
		j++
	}
}
