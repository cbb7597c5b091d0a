package optimize_test

import (
	"math/rand/v2"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

// The local search leaves unsolved a neighbourhood whose pods cannot be
// placed for less than its claims cost: on random clusters, half of them
// with pods all of one size, no such neighbourhood's solve would have
// improved the plan, and enough of them are left unsolved for the check
// to mean something.
func TestNeighbourhoodBoundNeverSkipsAnImprovement(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 3))
	cases := 300
	if testing.Short() {
		cases = 60
	}
	checked := 0
	for c := range cases {
		in := randomInput(rng)
		if rng.IntN(2) == 0 {
			// One size for every pod.
			requests := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse([]string{"250m", "1", "1500m", "3"}[rng.IntN(4)]), corev1.ResourceMemory: resource.MustParse([]string{"512Mi", "2Gi", "3Gi"}[rng.IntN(3)])}
			for _, p := range in.Pods {
				p.Spec.Containers[0].Resources.Requests = requests
			}
		}
		base := scheduling.Solve(in)
		for _, packing := range []scheduling.Packing{scheduling.PackFewestPods, scheduling.PackCheapest} {
			trial := in
			trial.Options.Packing = packing
			n, err := optimize.CheckNeighbourhoodBounds(in, base, scheduling.Solve(trial))
			if err != nil {
				t.Fatalf("case %d, packing %v: %v", c, packing, err)
			}
			checked += n
		}
	}
	if checked < cases/4 {
		t.Errorf("only %d neighbourhoods were left unsolved over %d cases", checked, cases)
	}
	t.Logf("%d neighbourhoods left unsolved and checked", checked)
}
