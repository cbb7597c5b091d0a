package plantest_test

import (
	"fmt"

	"github.com/karpsim/karpsim/plantest"
)

// optimize-batch defines its own NodePool, default; Variant would add a
// second NodePool of that name, which Kubernetes refuses. Replace puts the
// proposal (only generation-7 types) in its place, and the test compares
// the two runs.
func ExampleReplace() {
	var t printTB
	batch := plantest.LoadScenario(t, "../testdata/scenarios/optimize-batch.yaml")
	today := plantest.Simulate(t, batch)
	gen7 := plantest.Simulate(t, plantest.Replace(t, batch, "testdata/nodepool-gen7.yaml"))
	fmt.Printf("%s: $%.4f\n%s: $%.4f\n", today.Scenario, today.TotalCost, gen7.Scenario, gen7.TotalCost)
	fmt.Println(plantest.CostIncreaseWithin(t, today, gen7, 0.50))
	// Output:
	// optimize-batch: $5.4977
	// optimize-batch + nodepool-gen7.yaml: $5.7167
	// true
}

// The scenario's own NodePool with a CPU limit of 64, by a JSON merge
// patch as a sweep variant gives one: 18 pods of 3.5 CPU fit, and the
// rest of the 60 wait, unbound, until the scale-down.
func ExamplePatchNodePools() {
	var t printTB
	batch := plantest.LoadScenario(t, "../testdata/scenarios/optimize-batch.yaml")
	limited := plantest.Simulate(t, plantest.PatchNodePools(t, batch, map[string]map[string]any{
		"default": {"spec": map[string]any{"limits": map[string]any{"cpu": "64"}}},
	}))
	fmt.Printf("%s: $%.4f, %d launches, %d pods bound\n", limited.Scenario, limited.TotalCost, limited.Launches, limited.PendingTime.Count)
	// Output:
	// optimize-batch + patched NodePool default: $1.3843, 1 launches, 18 pods bound
}
