package optimize_test

import (
	"math/rand/v2"
	"testing"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

// On the default NodePool, 300 pods of 1 cpu/2Gi on demand: Karpenter
// fills each node with the cheapest type for what is left, narrowing to
// the types the aggregate program buys is cheaper, and no plan goes below
// the bound.
func TestNarrowDefaultNodePool(t *testing.T) {
	in := scheduling.Input{Pods: pods(300, "app", "1", "2Gi", withNodeSelector(apis.LabelCapacityType, apis.CapacityTypeOnDemand)), NodePools: unlimited(defaultPool())}
	r := scheduling.Solve(in)
	n, ok, err := optimize.Narrow(in, r)
	if err != nil || !ok {
		t.Fatalf("Narrow: %v, found %t", err, ok)
	}
	b, err := optimize.LowerBound(in, r, optimize.BoundOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Result.Summary.ScheduledPods != 300 || n.PerHour >= optimize.PlanPerHour(r) || n.PerHour < b.PerHour {
		t.Errorf("narrowed to %v: %d pods for $%.4f; plan $%.4f, bound $%.4f", n.NodePools, n.Result.Summary.ScheduledPods, n.PerHour, optimize.PlanPerHour(r), b.PerHour)
	}
	t.Logf("plan $%.2f, narrowed to %v: $%.2f, bound $%.2f", optimize.PlanPerHour(r), n.NodePools, n.PerHour, b.PerHour)
}

// Narrowed plans are plans too: the bound holds for them.
func TestNarrowNeverBelowBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2))
	for c := range 100 {
		in := randomInput(rng)
		r := scheduling.Solve(in)
		n, ok, err := optimize.Narrow(in, r)
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		if !ok {
			continue
		}
		b, err := optimize.LowerBound(in, n.Result, optimize.BoundOptions{})
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		if b.PerHour > n.PerHour*(1+1e-9)+1e-9 || n.PerHour >= optimize.PlanPerHour(r) {
			t.Fatalf("case %d: narrowed $%.6f, plan $%.6f, bound $%.6f", c, n.PerHour, optimize.PlanPerHour(r), b.PerHour)
		}
	}
}
