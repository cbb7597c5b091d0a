package scheduling

import (
	"runtime"
	"testing"
)

// PodCosts measures what a benchmark's loop allocates per pod solved: the
// issue 29 targets are per pod (bytes and allocations), whatever the
// workload's size.
type PodCosts struct {
	pods   int
	before runtime.MemStats
}

// MeasurePodCosts starts measuring, just before the benchmark's loop, for
// solves of pods pods each.
func MeasurePodCosts(pods int) *PodCosts {
	m := &PodCosts{pods: pods}
	runtime.ReadMemStats(&m.before)
	return m
}

// Report reports, after the loop, the bytes ("B/pod") and allocations
// ("allocs/pod") each solve made per pod.
func (m *PodCosts) Report(b *testing.B) {
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if b.N == 0 || m.pods == 0 {
		return
	}
	per := float64(b.N) * float64(m.pods)
	b.ReportMetric(float64(after.TotalAlloc-m.before.TotalAlloc)/per, "B/pod")
	b.ReportMetric(float64(after.Mallocs-m.before.Mallocs)/per, "allocs/pod")
}
