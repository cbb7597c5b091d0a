package requirements

import (
	"math/rand/v2"
	"testing"
)

// IntersectsFast against one key, which it looks up in a longer set
// rather than walking to it, agrees with Intersects, for the key in the
// set, before, between and after its keys, and not in it.
func TestIntersectsFastOfOneKeyAgreesWithIntersects(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := []string{"a", "c", "e", "g", "i", "k", "m", "o"}
	probes := []string{"0", "a", "b", "e", "f", "o", "z"}
	lookedUp := 0
	for range 20000 {
		var items []Requirement
		for _, k := range keys[:1+rng.IntN(len(keys))] {
			term := newRandomTerm(rng)
			items = append(items, mustNew(k, term.op, term.values...))
		}
		term := newRandomTerm(rng)
		r := NewRequirements(items...)
		one := NewRequirements(mustNew(probes[rng.IntN(len(probes))], term.op, term.values...))
		if len(r.items) > 4 {
			lookedUp++
		}
		if got, want := r.IntersectsFast(one), r.Intersects(one) == nil; got != want {
			t.Fatalf("IntersectsFast(%v, %v) = %v, Intersects says %v", r, one, got, want)
		}
	}
	if lookedUp == 0 {
		t.Fatal("no set was long enough to look the key up")
	}
}
