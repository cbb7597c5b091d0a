package plantest_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/plantest"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/simulator"
)

// The web tier's four pending replicas, planned on today's NodePool and on
// one that keeps only generation-7 types: the proposal's plan is more
// than 5% dearer, and the failure shows where the money goes.
func ExamplePlanCostIncreaseWithin() {
	var t printTB
	before := plantest.Plan(t, "testdata/workload.yaml", "testdata/nodeclass.yaml", "testdata/nodepool-before.yaml")
	after := plantest.Plan(t, "testdata/workload.yaml", "testdata/nodeclass.yaml", "testdata/nodepool-gen7.yaml")
	fmt.Println(plantest.PlanCostIncreaseWithin(t, before, after, 0.05))
	// Output:
	// plantest: the plan's cost rose from $0.1597/hour to $0.1870/hour, +17.1%, over the allowed +5.0% ($0.1677/hour)
	//   before: by NodePool: default $0.1597 (1 node); by capacity type: spot $0.1597 (1 node); by instance type: c6a.4xlarge $0.1597 (1 node)
	//   after:  by NodePool: default $0.1870 (1 node); by capacity type: spot $0.1870 (1 node); by instance type: c7i.4xlarge $0.1870 (1 node)
	// false
}

// The shop's morning (the day's first 12 hours) under Karpenter's own
// plans and under the optimizing planner (simulator.Config.Planner, as
// `karpsim simulate --optimize` sets it): the optimized run is no dearer.
func ExampleSimulateWith() {
	var t printTB
	morning := plantest.Variant(plantest.LoadScenario(t, "testdata/day.yaml"), "testdata/nodepool-before.yaml")
	morning.Duration = metav1.Duration{Duration: 12 * time.Hour}
	karpenter := plantest.Simulate(t, morning)
	optimized := plantest.SimulateWith(t, morning, simulator.Config{Planner: func(in scheduling.Input) (scheduling.Result, error) {
		return optimize.Solve(in, optimize.SolveOptions{})
	}})
	fmt.Printf("Karpenter $%.4f, optimized $%.4f\n", karpenter.TotalCost, optimized.TotalCost)
	fmt.Println(plantest.CostIncreaseWithin(t, karpenter, optimized, 0))
	// Output:
	// Karpenter $3.1926, optimized $3.1821
	// true
}
