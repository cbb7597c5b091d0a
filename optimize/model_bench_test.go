package optimize_test

import (
	"testing"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

// BenchmarkModel times what Search does besides its solves before the
// narrowed packings: reading the pods and catalog into the model (every
// offering a column, sorted, the dominated ones dropped) and solving the
// aggregate programs for the narrowings, on issue 12's workloads.
func BenchmarkModel(b *testing.B) {
	for _, w := range issueWorkloads() {
		b.Run(w.name, func(b *testing.B) {
			in := w.in()
			prep := scheduling.NewCompiler(in.DaemonSets, in.Options).Prepare(in.NodePools)
			base := prep.Solve(in)
			var columns, narrowings int
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if columns, narrowings, err = optimize.ModelAndNarrowings(in, base, prep); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(columns), "columns")
			b.ReportMetric(float64(narrowings), "narrowings")
		})
	}
}
