package consolidation_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/internal/clusterdump"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// BenchmarkKarpenterShape times one disruption evaluation of the cluster
// Karpenter's own disruption controller is timed on beside it
// (upstream/differential/disruption's BenchmarkKarpenterConsolidation):
// the same YAML (clusterdump.ConsolidationCluster) over the same catalog,
// read as `karpsim disrupt -f FILE --catalog CATALOG` reads them. Only the
// evaluation is timed, as only Karpenter's pass is on its side; it reports
// the CPU time beside the wall time, for shared machines, and the
// decision: its method's commands, the nodes they delete and the
// replacements they launch.
func BenchmarkKarpenterShape(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			c, opts := karpenterShapeCluster(b, n)
			var d consolidation.Decision
			b.ReportAllocs()
			cpu := clusterdump.CPUTime()
			for b.Loop() {
				d = consolidation.Evaluate(c, clusterdump.ConsolidationNow, opts)
			}
			b.ReportMetric((clusterdump.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			// The cluster is built for multi-node consolidation to act on:
			// an evaluation that found nothing, or something else, would
			// time another path than Karpenter's.
			if len(d.Commands) == 0 || d.Commands[0].Method != consolidation.MethodMultiNode {
				b.Fatalf("expected a multi-node consolidation, got %d commands %v", len(d.Commands), d.Commands)
			}
			deleted, replacements := 0, 0
			for _, cmd := range d.Commands {
				deleted += len(cmd.Delete)
				replacements += len(cmd.Replacements)
			}
			b.ReportMetric(float64(len(d.Commands)), "commands")
			b.ReportMetric(float64(deleted), "deleted")
			b.ReportMetric(float64(replacements), "replacements")
		})
	}
}

// karpenterShapeCluster reads the benchmark's cluster of n nodes as the
// CLI does: the manifests, the disruption snapshot over the benchmark's
// catalog, and the evaluation's options.
func karpenterShapeCluster(tb testing.TB, n int) (consolidation.Cluster, consolidation.Options) {
	var buf bytes.Buffer
	if err := clusterdump.ConsolidationCluster(&buf, n); err != nil {
		tb.Fatal(err)
	}
	set, err := manifests.Decode("consolidation-cluster.yaml", buf.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	catalog, err := instancetypes.ReadJSON(bytes.NewReader(clusterdump.ConsolidationCatalog()), "consolidation-catalog.json")
	if err != nil {
		tb.Fatal(err)
	}
	opts := snapshot.Options{Catalog: func(*apis.EC2NodeClass) (instancetypes.Catalog, error) { return catalog, nil }}
	d, err := snapshot.ForDisruption(set, opts, clusterdump.ConsolidationNow)
	if err != nil {
		tb.Fatal(err)
	}
	return d.Cluster, consolidation.Options{Scheduling: scheduling.Options{DefaultSpread: d.DefaultSpread}}
}
