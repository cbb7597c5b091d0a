package plantest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/karpsim/karpsim/plantest"
)

// The platform team's rule: a NodePool change must not raise the daily
// cost of the shop's workload by more than 5%. The same day of traffic
// (testdata/day.yaml) runs on today's NodePool and on the proposed one;
// CI fails with the two costs when the proposal is dearer.
func TestNodePoolChangeKeepsDailyCostWithinFivePercent(t *testing.T) {
	day := plantest.LoadScenario(t, "testdata/day.yaml")
	before := plantest.Simulate(t, plantest.Variant(day, "testdata/nodepool-before.yaml"))
	after := plantest.Simulate(t, plantest.Variant(day, "testdata/nodepool-after.yaml"))

	plantest.CostIncreaseWithin(t, before, after, 0.05)
	// And the proposal must still serve the peak quickly and within the
	// account's node quota.
	plantest.MaxPendingP99(t, after, 2*time.Minute)
	plantest.MaxNodes(t, after, 10)
	plantest.MaxCost(t, after, 1.00)
}

// The seed guide's inflate Deployment at 10 replicas fits on one node of
// the default NodePool for less than $0.50/hour.
func TestInflatePlanFitsOneCheapNode(t *testing.T) {
	plan := plantest.Plan(t, "../cmd/karpsim/example/inflate.yaml")
	plantest.AllScheduled(t, plan)
	plantest.MaxPlanCost(t, plan, 0.50)
	if len(plan.NodeClaims) != 1 {
		t.Errorf("want one NodeClaim, got %d", len(plan.NodeClaims))
	}
}

// printTB prints what the assertions report, as `go test` would.
type printTB struct{}

func (printTB) Helper()                           {}
func (printTB) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }
func (printTB) Fatalf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// A proposal that keeps only generation-7 instance types costs the shop's
// day almost a fifth more: CostIncreaseWithin says so, with both costs.
func ExampleCostIncreaseWithin() {
	var t printTB
	day := plantest.LoadScenario(t, "testdata/day.yaml")
	before := plantest.Simulate(t, plantest.Variant(day, "testdata/nodepool-before.yaml"))
	after := plantest.Simulate(t, plantest.Variant(day, "testdata/nodepool-gen7.yaml"))
	fmt.Println(plantest.CostIncreaseWithin(t, before, after, 0.05))
	// Output:
	// plantest: cost rose from $9.5764 (scenario shop-day + nodepool-before.yaml (seed 7, 24h0m0s)) to $11.3773 (scenario shop-day + nodepool-gen7.yaml (seed 7, 24h0m0s)), +18.8%, over the allowed +5.0% ($10.0552); peak nodes 3 → 3, launches 3 → 3
	//   before: launched, $/hour by NodePool: default $0.7973 (3 nodes); by capacity type: spot $0.7973 (3 nodes); by instance type: c6a.12xlarge $0.4779 (1 node), c6a.4xlarge $0.3194 (2 nodes)
	//   after:  launched, $/hour by NodePool: default $0.9462 (3 nodes); by capacity type: spot $0.9462 (3 nodes); by instance type: c7i.12xlarge $0.5722 (1 node), c7i.4xlarge $0.3740 (2 nodes)
	// false
}
