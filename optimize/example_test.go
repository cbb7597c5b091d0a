package optimize_test

import (
	"fmt"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

// Ten pods of 3 cpu over nodes of 4 cpu at $1 and 8 cpu at $2: any plan
// puts one pod on a 4-cpu node or two on an 8-cpu node, $1 a pod. The
// aggregate LP, packing fractional pods, proves only $7.50; column
// generation, packing whole ones, proves the $10 the plan pays.
func ExampleLowerBound() {
	in := scheduling.Input{
		Pods:      pods(10, "web", "3", "1Gi"),
		NodePools: []scheduling.NodePool{nodePool("default", catalog(nodeType("c4", 4, 64, 1), nodeType("c8", 8, 64, 2)), nil)},
	}
	plan := scheduling.Solve(in)
	b, err := optimize.LowerBound(in, plan, optimize.BoundOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("plan $%.2f/hour, lower bound $%.2f/hour (%s; lp $%.2f), plan is +%.0f%%\n", b.PlanPerHour, b.PerHour, b.Method, b.LP, 100*b.Gap)
	// Output: plan $10.00/hour, lower bound $10.00/hour (column-generation; lp $7.50), plan is +0%
}
