package sweep

import (
	"context"
	"runtime"
	"testing"
)

// BenchmarkSweep runs 5 variants × 3 day-long scenarios × 4 seeds (60
// runs of daily-traffic.yaml's size) on every CPU, and reports the runs per
// second and the heap the summaries keep.
func BenchmarkSweep(b *testing.B) {
	// Three day-long scenarios: daily-traffic.yaml three times over.
	var sources []Source
	for _, name := range []string{"a", "b", "c"} {
		src := source(b, "daily-traffic")
		src.Path += "#" + name
		sources = append(sources, src)
	}
	spec := Spec{Scenarios: []string{"x"}, Seeds: []uint64{1, 2, 3, 4}, Variants: []Variant{
		{Name: "baseline"},
		{Name: "double", WorkloadScale: 2},
		{Name: "half", WorkloadScale: 0.5},
		{Name: "storm", InterruptionsPerHour: 1},
		{Name: "on-demand", NodePools: map[string]map[string]any{"*": {"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"requirements": []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": []any{"on-demand"}}}}}}}}},
	}}
	var res *Result
	for b.Loop() {
		var err error
		res, err = Execute(context.Background(), spec, sources, Options{})
		if err != nil {
			b.Fatal(err)
		}
	}
	if res.Failed() > 0 {
		b.Fatalf("%d runs failed: %s", res.Failed(), res.Rows[0].Error)
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(len(res.Runs)), "runs")
	b.ReportMetric(float64(len(res.Runs)*b.N)/b.Elapsed().Seconds(), "runs/s")
	b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MiB")
}
