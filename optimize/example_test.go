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
		NodePools: []scheduling.Pool{nodePool("default", catalog(nodeType("c4", 4, 64, 1), nodeType("c8", 8, 64, 2)), nil)},
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

// Eight pods of 1 cpu over nodes of 2 cpu at $1 and 16 cpu at $16.
// Karpenter grows one claim until only the 16-cpu type holds it; Search
// packs by price and opens a 2-cpu node whenever growing would cost more.
func ExampleSearch() {
	in := scheduling.Input{
		Pods:      pods(8, "web", "1", "1Gi"),
		NodePools: []scheduling.Pool{nodePool("default", catalog(nodeType("n2", 2, 8, 1), nodeType("n16", 16, 64, 16)), nil)},
	}
	o, err := optimize.Search(in, optimize.SolveOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("Karpenter $%.2f/hour, optimized $%.2f/hour by %s on %d nodes\n", o.KarpenterPerHour, o.PerHour, o.Strategy, len(o.Result.NodeClaims))
	// Output: Karpenter $16.00/hour, optimized $4.00/hour by cheapest-packing on 4 nodes
}
