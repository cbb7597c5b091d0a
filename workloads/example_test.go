package workloads_test

import (
	"fmt"

	"github.com/karpsim/karpsim/workloads"
)

// Karpenter's "diverse" benchmark workload in fifths: generic pods, zone
// spread, hostname spread, zone self-affinity and hostname anti-affinity.
// The same seed gives the same pods.
func ExampleGenerator_Diverse() {
	a := workloads.NewGenerator(workloads.DefaultSeed).Diverse(10)
	b := workloads.NewGenerator(workloads.DefaultSeed).Diverse(10)
	same := len(a) == len(b)
	for i := range a {
		same = same && a[i].Name == b[i].Name && a[i].Spec.Containers[0].Resources.Requests.Cpu().Equal(*b[i].Spec.Containers[0].Resources.Requests.Cpu())
	}
	spread, affinity := 0, 0
	for _, p := range a {
		spread += len(p.Spec.TopologySpreadConstraints)
		if p.Spec.Affinity != nil {
			affinity++
		}
	}
	fmt.Println(len(a), "pods;", spread, "spread constraints;", affinity, "with (anti-)affinity; reproducible:", same)
	// Output:
	// 10 pods; 4 spread constraints; 4 with (anti-)affinity; reproducible: true
}
