package optimize_test

import (
	"math/rand/v2"
	"testing"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

// A neighbourhood's weight bound is never above what a solve placing all
// its pods costs: on random clusters, with every packing and no price
// cap; and it is at least what the claims cost often enough for the
// local search to leave neighbourhoods unsolved by it.
func TestWeightBoundBelowEverySolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 13))
	cases := 300
	if testing.Short() {
		cases = 60
	}
	checked, skipped := 0, 0
	for c := range cases {
		in := randomInput(rng)
		base := scheduling.Solve(in)
		for _, packing := range []scheduling.Packing{scheduling.PackFewestPods, scheduling.PackCheapest} {
			trial := in
			trial.Options.Packing = packing
			n, s, err := optimize.CheckWeightBounds(in, base, scheduling.Solve(trial))
			if err != nil {
				t.Fatalf("case %d, packing %v: %v", c, packing, err)
			}
			checked, skipped = checked+n, skipped+s
		}
	}
	if checked < cases || skipped < cases/10 {
		t.Errorf("only %d solves checked and %d neighbourhoods left unsolved over %d cases", checked, skipped, cases)
	}
	t.Logf("%d solves checked, %d neighbourhoods left unsolved", checked, skipped)
}
