package advisor

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/internal/clusterdump"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

// BenchmarkEvaluate is one evaluation after a change: the snapshot of the
// cluster, the plan for the pending pods and the disruption decision, on
// clusterdump's disruption clusters. Issue 31's target: 5,000 nodes and
// 50,000 pods in at most 2 s, in at most 1 GiB (heap-MiB reports the live
// heap after the evaluation, the objects included; peak-RSS-MiB the
// process's peak resident size during the evaluations, objects included,
// where /proc tells it).
func BenchmarkEvaluate(b *testing.B) {
	for _, size := range []struct{ nodes, podsPerNode int }{{500, 11}, {5000, 11}} {
		var dump bytes.Buffer
		require.NoError(b, clusterdump.DisruptionClusterOf(&dump, size.nodes, size.podsPerNode))
		set, err := manifests.Decode("cluster.yaml", dump.Bytes())
		require.NoError(b, err)
		_, at := snapshot.TimeRange(set)
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", size.nodes, len(set.Pods)), func(b *testing.B) {
			var a *Answer
			// The peak counts from here: the dump's decoding is the
			// benchmark's setup, not the advisor's (its objects come from
			// informers).
			// As deployed (deploy/kubernetes/serve.yaml): GOMEMLIMIT
			// 900MiB under the container's 1 GiB limit.
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(900 << 20))
			runtime.GC()
			debug.FreeOSMemory()
			resetPeakRSS()
			for b.Loop() {
				a, err = Evaluate(set, Options{}, at)
				require.NoError(b, err)
			}
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "heap-MiB")
			if rss, ok := peakRSS(); ok {
				b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
			}
			require.Len(b, a.Nodes, size.nodes)
		})
	}
}

// resetPeakRSS makes the kernel count the peak resident size from now
// (clear_refs 5, Linux 4.0 and later); elsewhere it does nothing.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak resident set size (VmHWM), on Linux.
func peakRSS() (int64, bool) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb << 10, true
			}
		}
	}
	return 0, false
}
