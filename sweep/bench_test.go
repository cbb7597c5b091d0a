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

// BenchmarkSweepMemory runs 2,000 short runs (the default scenario under
// 20 variants × 100 seeds) and reports the heap in use after: summaries
// are kept, not timelines, so it stays small.
func BenchmarkSweepMemory(b *testing.B) {
	src := source(b, "default")
	spec := Spec{Scenarios: []string{"x"}}
	for i := range 100 {
		spec.Seeds = append(spec.Seeds, uint64(i+1))
	}
	for i := range 20 {
		spec.Variants = append(spec.Variants, Variant{Name: string(rune('a' + i)), WorkloadScale: 1 + float64(i)/10})
	}
	var res *Result
	for b.Loop() {
		var err error
		if res, err = Execute(context.Background(), spec, []Source{src}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	b.ReportMetric(float64(len(res.Runs)), "runs")
	b.ReportMetric(float64(m.HeapInuse)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(m.Sys)/(1<<20), "sys-MiB")
}
