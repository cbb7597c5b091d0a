package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// startingHeap is the heap karpsim lets grow before the garbage collector
// paces itself as GOGC=100 does. Decoding a cluster dump allocates several
// times the objects it keeps, and the reader holds almost nothing of the
// dump itself (manifests streams it), so with the runtime's 4 MiB start the
// collector would run a dozen times while the heap grows, marking the
// decoded objects each time: about a seventh of a plan's CPU on a 20,000-pod
// dump. Below this heap karpsim runs no collection it can do without; above
// it, the heap is twice the live objects, as by default.
const startingHeap = 256 << 20

// adjustStartingHeap sets the collector's percentage so that the heap may
// reach startingHeap before the first collection, and after each collection
// so that the next comes at startingHeap, until the live heap reaches half
// of it: from then on GOGC=100 gives a goal of at least startingHeap. GOGC
// or GOMEMLIMIT in the environment leave the collector as they set it.
func adjustStartingHeap() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/heap/goal:bytes"}}
	read := func(i int) uint64 {
		metrics.Read(sample)
		if sample[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return sample[i].Value.Uint64()
	}
	goalAt := func(percent int) uint64 {
		debug.SetGCPercent(percent)
		return read(1)
	}
	var afterCollection func(*gcSentinel)
	afterCollection = func(*gcSentinel) {
		if read(0) >= startingHeap/2 {
			debug.SetGCPercent(100)
			return
		}
		debug.SetGCPercent(percentFor(startingHeap, goalAt(200), goalAt(300)))
		runtime.SetFinalizer(&gcSentinel{}, afterCollection)
	}
	debug.SetGCPercent(percentFor(startingHeap, goalAt(200), goalAt(300)))
	runtime.SetFinalizer(&gcSentinel{}, afterCollection)
}

// percentFor returns the collector's percentage that sets its heap goal at
// target, from its goals at 200 and 300 percent (the goal grows in
// proportion to the percentage beyond a base the runtime keeps to itself;
// measuring at 100 could start a collection), and never less than 100.
func percentFor(target, at200, at300 uint64) int {
	if at300 <= at200 {
		return 100
	}
	perPercent := float64(at300-at200) / 100
	return max(100, 200+int((float64(target)-float64(at200))/perPercent))
}

// gcSentinel is garbage as soon as it is made: its finalizer runs after
// the next collection. It is larger than the runtime's tiny allocations,
// which share a block and are not finalized on their own.
type gcSentinel struct{ _ [32]byte }
