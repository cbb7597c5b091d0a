package requirements

import (
	"math/rand/v2"
	"testing"
)

// Set operations share value lists and item slices with their operands
// when the result equals one of them (Intersect and Add return the
// receiver when the other side narrows nothing). Nothing may then change
// a list in place: a chain of random operations leaves every requirement
// set it made exactly as it was made.
func TestOperationsLeaveTheirOperandsAsTheyWere(t *testing.T) {
	keys := []string{"custom", "kubernetes.io/arch", "team", "topology.kubernetes.io/zone"}
	rng := rand.New(rand.NewPCG(3, 4))
	type made struct {
		reqs Requirements
		key  string
	}
	encode := func(r Requirements) string {
		var b []byte
		for _, item := range r.items {
			b = append(item.AppendKey(b), '\n')
		}
		return string(b)
	}
	var sets []made
	remember := func(r Requirements) Requirements {
		sets = append(sets, made{r, encode(r)})
		return r
	}
	remember(Requirements{})
	for range 20000 {
		a := sets[rng.IntN(len(sets))].reqs
		switch rng.IntN(4) {
		case 0:
			key, term := keys[rng.IntN(len(keys))], newRandomTerm(rng)
			remember(a.Add(mustNew(key, term.op, term.values...)))
		case 1:
			remember(a.Intersect(sets[rng.IntN(len(sets))].reqs))
		case 2:
			// Adding a set's own requirements, or those of a wider set,
			// narrows nothing.
			remember(a.Add(a.items...))
		default:
			b := sets[rng.IntN(len(sets))].reqs
			if len(b.items) > 0 {
				item := b.items[rng.IntN(len(b.items))]
				remember(a.Add(item.Intersection(a.Get(item.key))))
			}
		}
	}
	for i, s := range sets {
		if got := encode(s.reqs); got != s.key {
			t.Fatalf("set %d changed after it was made:\n%s\nnow\n%s", i, s.key, got)
		}
	}
}

// Intersect and Add return the receiver itself, allocating nothing, when
// the other side narrows nothing; the result is the same either way.
func TestNarrowingNothingAllocatesNothing(t *testing.T) {
	claim := NewRequirements(In("kubernetes.io/hostname", "default-1"), In("topology.kubernetes.io/zone", "a"), NotIn("team", "x"))
	same := []Requirement{In("kubernetes.io/hostname", "default-1"), In("topology.kubernetes.io/zone", "a", "b"), Exists("kubernetes.io/hostname")}
	if n := testing.AllocsPerRun(100, func() { claim = claim.Add(same...) }); n != 0 {
		t.Errorf("Add allocated %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { claim = claim.Intersect(Requirements{items: same[:2]}) }); n != 0 {
		t.Errorf("Intersect allocated %v times", n)
	}
	if got := claim.String(); got != "team NotIn [x], topology.kubernetes.io/zone In [a]" {
		t.Errorf("got %s", got)
	}
	// NotIn on its own key is no finite set: it is intersected as before.
	if got := claim.Add(NotIn("team", "y")).Get("team").String(); got != "team NotIn [x y]" {
		t.Errorf("got %s", got)
	}
	if got := claim.Add(In("topology.kubernetes.io/zone", "b")).Get("topology.kubernetes.io/zone").Operator(); got != "DoesNotExist" {
		t.Errorf("got %s", got)
	}
}

// NodeSelectorRequirements hold every requirement's values in one slice,
// each capped at its length: the caller may append to one without reaching
// the next, and a requirement without values has none (nil).
func TestNodeSelectorRequirementsKeepTheirValuesApart(t *testing.T) {
	r := NewRequirements(In("a", "1", "2"), In("b", "3"), Exists("c"), mustNew("d", OpGte, "4"), NotIn("e", "5"))
	out := r.NodeSelectorRequirements()
	if len(out) != 5 {
		t.Fatalf("got %d requirements: %v", len(out), out)
	}
	if out[2].Values != nil {
		t.Errorf("Exists has values %#v", out[2].Values)
	}
	_ = append(out[0].Values, "x")
	if got := out[1].Values; len(got) != 1 || got[0] != "3" {
		t.Errorf("appending to a's values changed b's: %v", got)
	}
	out[4].Values[0] = "changed"
	if got := r.Get("e").Values(); got[0] != "5" {
		t.Errorf("changing the output changed the requirement: %v", got)
	}
	for i, term := range out {
		if term.Key != r.items[i].key {
			t.Errorf("term %d is on %s, want %s", i, term.Key, r.items[i].key)
		}
	}
}
