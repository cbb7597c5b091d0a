package scheduling

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestSortClaimsIsSortSlice checks that sortClaims orders claims exactly as
// Karpenter's sort.Slice by pod count does, ties included: pdqsort is not
// stable above 12 elements, and karpsim follows its order rather than a
// stable one. The slices are grown as a solve grows them, one claim gaining
// a pod or a claim appended between sorts.
func TestSortClaimsIsSortSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 0))
	for trial := 0; trial < 200; trial++ {
		s := &solver{}
		var want []*claim
		for step := 0; step < 300; step++ {
			if len(s.claims) == 0 || rng.IntN(4) == 0 {
				c := &claim{pods: make([]*podInfo, 1)}
				s.claimCreated(c)
				want = append(want, c)
			} else {
				c := s.claims[rng.IntN(min(len(s.claims), 3))]
				c.pods = append(c.pods, nil)
				s.claimGrew()
			}
			s.sortClaims()
			sort.Slice(want, func(a, b int) bool { return len(want[a].pods) < len(want[b].pods) })
			if !slices.Equal(s.claims, want) {
				t.Fatalf("trial %d step %d: %d claims in another order than sort.Slice's", trial, step, len(want))
			}
		}
	}
}

// TestSortClaimsUnstable checks that the order followed is not a stable
// one: with 13 or more claims, sort.Slice reorders claims of equal counts,
// and so does karpsim.
func TestSortClaimsUnstable(t *testing.T) {
	s := &solver{}
	for i := 0; i < 20; i++ {
		s.claimCreated(&claim{pods: make([]*podInfo, 1), name: string(rune('a' + i))})
	}
	s.sortClaims()
	s.claims[0].pods = append(s.claims[0].pods, nil)
	s.claimGrew()
	s.sortClaims()
	var names []string
	for _, c := range s.claims {
		names = append(names, c.name)
	}
	stable := []string{"b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s", "t", "a"}
	if slices.Equal(names, stable) {
		t.Fatalf("claims in stable order %v; sort.Slice's pdqsort gives another", names)
	}
}
