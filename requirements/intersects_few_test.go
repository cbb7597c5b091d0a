package requirements

import (
	"math/rand/v2"
	"testing"
)

// IntersectsFast against a few keys, which it looks up in a longer set
// rather than walking to them, agrees with Intersects, for keys in the
// set, before, between and after its keys, and not in it.
func TestIntersectsFastOfAFewKeysAgreesWithIntersects(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []string{"a", "c", "e", "g", "i", "k", "m", "o", "q", "s", "u", "w", "x1", "x3", "x5", "x7"}
	probes := []string{"0", "a", "b", "e", "f", "o", "r", "w", "z"}
	lookedUp := map[int]int{}
	for range 20000 {
		var items []Requirement
		for _, k := range keys[:1+rng.IntN(len(keys))] {
			term := newRandomTerm(rng)
			items = append(items, mustNew(k, term.op, term.values...))
		}
		r := NewRequirements(items...)
		var items2 []Requirement
		for range 1 + rng.IntN(3) {
			term := newRandomTerm(rng)
			items2 = append(items2, mustNew(probes[rng.IntN(len(probes))], term.op, term.values...))
		}
		few := NewRequirements(items2...)
		if len(r.items) > 4*len(few.items) {
			lookedUp[len(few.items)]++
		}
		if got, want := r.IntersectsFast(few), r.Intersects(few) == nil; got != want {
			t.Fatalf("IntersectsFast(%v, %v) = %v, Intersects says %v", r, few, got, want)
		}
	}
	for n := 1; n <= 3; n++ {
		if lookedUp[n] == 0 {
			t.Errorf("no set was long enough to look %d keys up", n)
		}
	}
}
