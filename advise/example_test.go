package advise_test

import (
	"fmt"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/scheduling"
)

// Ten pods of 1 CPU and 1Gi on the seed guide's default NodePool (plan's
// built-in example): Karpenter launches one 16-vCPU node; capped at 8
// vCPUs, it launches two smaller ones that cost less together.
func ExampleAdvise() {
	in := scheduling.Input{Pods: pods(10, "inflate", "1", "1Gi"), NodePools: defaultPools()}
	report, err := advise.Advise(in, advise.Options{Top: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("Karpenter: $%.4f/hour, bound $%.4f/hour\n", report.KarpenterPerHour, report.LowerBoundPerHour)
	for _, a := range report.Advice {
		fmt.Printf("$%.4f/hour (-%.1f%%):", a.PerHour, a.SavingPercent)
		for _, e := range a.Edits {
			fmt.Printf(" [%s %s]", e.Kind, e.Change)
		}
		fmt.Println()
	}
	// Output:
	// Karpenter: $0.1597/hour, bound $0.1270/hour
	// $0.1223/hour (-23.4%): [cap-cpu at most 8 vCPUs (karpenter.k8s.aws/instance-cpu Lt 9)] [allow-arm64 also arm64 (kubernetes.io/arch In += arm64)]
	// $0.1331/hour (-16.7%): [cap-cpu at most 8 vCPUs (karpenter.k8s.aws/instance-cpu Lt 9)]
}
