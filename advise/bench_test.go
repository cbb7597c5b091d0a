package advise_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

// onDemandPools is the default NodePool limited to on-demand capacity.
func onDemandPools() []scheduling.Pool {
	pools := defaultPools()
	np := pools[0].NodePool.DeepCopy()
	for i, r := range np.Spec.Template.Spec.Requirements {
		if r.Key == apis.LabelCapacityType {
			np.Spec.Template.Spec.Requirements[i].Values = []string{apis.CapacityTypeOnDemand}
			np.Spec.Template.Spec.Requirements[i].Operator = corev1.NodeSelectorOpIn
		}
	}
	pools[0].NodePool = np
	return pools
}

// BenchmarkAdvise measures one advise run (every candidate is a solve) and
// reports, beside its time, what Karpenter's plan costs, what the
// optimizing planner's and the best advice's cost, and the lower bound:
// the figures of the README's table.
func BenchmarkAdvise(b *testing.B) {
	for _, c := range []struct {
		name string
		in   scheduling.Input
	}{
		{"example-10x1cpu", scheduling.Input{Pods: pods(10, "inflate", "1", "1Gi"), NodePools: defaultPools()}},
		{"1000x1cpu2Gi", scheduling.Input{Pods: pods(1000, "web", "1", "2Gi"), NodePools: defaultPools()}},
		{"1000x1cpu2Gi-on-demand", scheduling.Input{Pods: pods(1000, "web", "1", "2Gi"), NodePools: onDemandPools()}},
		{"500x3.5cpu3Gi", scheduling.Input{Pods: pods(500, "awkward", "3.5", "3Gi"), NodePools: defaultPools()}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var r advise.Report
			for b.Loop() {
				var err error
				if r, err = advise.Advise(c.in, advise.Options{}); err != nil {
					b.Fatal(err)
				}
			}
			optimized, err := optimize.Solve(c.in, optimize.SolveOptions{})
			if err != nil {
				b.Fatal(err)
			}
			best := r.KarpenterPerHour
			if len(r.Advice) > 0 {
				best = r.Advice[0].PerHour
			}
			b.ReportMetric(r.KarpenterPerHour, "karpenter-$/h")
			b.ReportMetric(optimize.PlanPerHour(optimized), "optimize-$/h")
			b.ReportMetric(r.LowerBoundPerHour, "bound-$/h")
			b.ReportMetric(best, "advise-$/h")
			b.ReportMetric(float64(r.Candidates), "solves")
			b.ReportMetric(float64(r.ScheduledPods), "scheduled-pods")
		})
	}
}
