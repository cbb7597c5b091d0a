package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/internal/clusterdump"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// writeDump writes a generated dump into dir and returns its path.
func writeDump(b *testing.B, dir, name string, write func(*bytes.Buffer) error) string {
	b.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkPlanFromDump is `karpsim plan -f nodepool.yaml -f DUMP` on 20,000
// pending pods as kubectl prints them, without the printing: read the files,
// build the snapshot, solve.
func BenchmarkPlanFromDump(b *testing.B) {
	dir := b.TempDir()
	pool := writeDump(b, dir, "nodepool.yaml", func(w *bytes.Buffer) error { return clusterdump.NodePool(w) })
	for _, f := range []clusterdump.Format{clusterdump.YAML, clusterdump.JSON} {
		const pods = 20000
		dump := writeDump(b, dir, "pods."+f.String(), func(w *bytes.Buffer) error { return clusterdump.PendingPods(w, f, pods, 40) })
		b.Run(fmt.Sprintf("%s/pods=%d", f, pods), func(b *testing.B) {
			b.ReportAllocs()
			cpu := clusterdump.CPUTime()
			for b.Loop() {
				set, err := manifests.Load(pool, dump)
				if err != nil {
					b.Fatal(err)
				}
				snap, err := snapshot.FromSet(set, snapshot.Options{})
				if err != nil {
					b.Fatal(err)
				}
				result := scheduling.Solve(snap.Input(scheduling.Options{}))
				if len(result.Unschedulable) > 0 || len(result.NodeClaims) == 0 {
					b.Fatalf("%d pods unschedulable, %d NodeClaims", len(result.Unschedulable), len(result.NodeClaims))
				}
			}
			b.ReportMetric((clusterdump.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}

// BenchmarkDisruptFromDump is `karpsim disrupt -f CLUSTER` on a compact
// Karpenter cluster (Nodes, NodeClaims, seven bound pods a node), without the
// printing.
func BenchmarkDisruptFromDump(b *testing.B) {
	const nodes = 5000
	dump := writeDump(b, b.TempDir(), "cluster.yaml", func(w *bytes.Buffer) error { return clusterdump.DisruptionCluster(w, nodes) })
	b.Run(fmt.Sprintf("nodes=%d", nodes), func(b *testing.B) {
		b.ReportAllocs()
		cpu := clusterdump.CPUTime()
		for b.Loop() {
			set, err := manifests.Load(dump)
			if err != nil {
				b.Fatal(err)
			}
			now := snapshot.LatestTime(set)
			d, err := snapshot.ForDisruption(set, snapshot.Options{}, now)
			if err != nil {
				b.Fatal(err)
			}
			decision := consolidation.Evaluate(d.Cluster, now, consolidation.Options{})
			if len(decision.Candidates) != nodes {
				b.Fatalf("%d candidates, want %d", len(decision.Candidates), nodes)
			}
		}
		b.ReportMetric((clusterdump.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
	// The decision alone, on the cluster read once.
	b.Run(fmt.Sprintf("nodes=%d/evaluate", nodes), func(b *testing.B) {
		set, err := manifests.Load(dump)
		if err != nil {
			b.Fatal(err)
		}
		now := snapshot.LatestTime(set)
		d, err := snapshot.ForDisruption(set, snapshot.Options{}, now)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		cpu := clusterdump.CPUTime()
		for b.Loop() {
			consolidation.Evaluate(d.Cluster, now, consolidation.Options{})
		}
		b.ReportMetric((clusterdump.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	})
}
