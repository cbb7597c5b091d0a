package optimize_test

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
	"github.com/karpsim/karpsim/workloads"
)

// The workloads of issue 12's table: Karpenter's diverse benchmark over
// its 400 fake types, and two uniform Deployments on karpsim's default
// NodePool over the embedded AWS catalog.

// benchPool is Karpenter's benchmark NodePool, as scheduling's benchmarks
// use it: no requirements, limits too large to matter.
func benchPool() []scheduling.Pool {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: "EC2NodeClass", Name: "default"}
	np.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10000000"), corev1.ResourceMemory: resource.MustParse("10000000Gi")}
	np.SetDefaults()
	return []scheduling.Pool{{NodePool: np, InstanceTypes: instancetypes.Fake(400)}}
}

// defaultPool is karpsim's default NodePool (the seed guide's) with the
// embedded catalog, as plan uses it without manifests.
func defaultPool() []scheduling.Pool {
	set, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	if err != nil {
		panic(err) // embedded
	}
	snap, err := snapshot.FromSet(set, snapshot.Options{})
	if err != nil {
		panic(err)
	}
	return snap.NodePools
}

func benchBound(b *testing.B, in scheduling.Input) {
	r := scheduling.Solve(in)
	var bound optimize.Bound
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if bound, err = optimize.LowerBound(in, r, optimize.BoundOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(bound.PlanPerHour, "plan-$/h")
	b.ReportMetric(bound.LP, "lp-$/h")
	b.ReportMetric(bound.ColumnGeneration, "cg-$/h")
	b.ReportMetric(bound.AntiAffinity, "anti-$/h")
	b.ReportMetric(bound.PerHour, "bound-$/h")
	b.ReportMetric(100*bound.Gap, "gap-%")
	b.ReportMetric(float64(bound.Iterations), "cg-rounds")
	b.ReportMetric(float64(bound.Pods), "pods")
}

func BenchmarkLowerBoundDiverse(b *testing.B) {
	pods := workloads.NewGenerator(workloads.DefaultSeed).Diverse(10000)
	benchBound(b, scheduling.Input{Pods: pods, NodePools: benchPool()})
}

func BenchmarkLowerBoundUniform(b *testing.B) {
	for _, w := range []struct {
		n           int
		cpu, memory string
		onDemand    bool
	}{{1000, "1", "2Gi", true}, {500, "3500m", "3Gi", false}} {
		for _, limited := range []bool{true, false} {
			b.Run(fmt.Sprintf("pods=%d/cpu=%s/memory=%s/onDemand=%t/limits=%t", w.n, w.cpu, w.memory, w.onDemand, limited), func(b *testing.B) {
				var opts []podOption
				if w.onDemand {
					opts = append(opts, withNodeSelector(apis.LabelCapacityType, apis.CapacityTypeOnDemand))
				}
				pools := defaultPool()
				if !limited {
					// The default NodePool's 1,000 cpu leave pods
					// unschedulable; without them every pod is bounded.
					for i := range pools {
						pools[i].NodePool = pools[i].NodePool.DeepCopy()
						pools[i].NodePool.Spec.Limits = nil
					}
				}
				benchBound(b, scheduling.Input{Pods: pods(w.n, "app", w.cpu, w.memory, opts...), NodePools: pools})
			})
		}
	}
}

// workload is one of issue 12's benchmark workloads.
type workload struct {
	name string
	in   func() scheduling.Input
}

// issueWorkloads are the workloads of issue 12's targets: Karpenter's
// diverse benchmark, and the generic AWS ones on karpsim's default
// NodePool without limits (uniform, mixed sizes, awkward 3.5 cpu/3Gi).
func issueWorkloads() []workload {
	return []workload{
		{"diverse", func() scheduling.Input {
			return scheduling.Input{Pods: workloads.NewGenerator(workloads.DefaultSeed).Diverse(10000), NodePools: benchPool()}
		}},
		{"1000x1cpu-ondemand", func() scheduling.Input {
			return scheduling.Input{Pods: pods(1000, "app", "1", "2Gi", withNodeSelector(apis.LabelCapacityType, apis.CapacityTypeOnDemand)), NodePools: unlimited(defaultPool())}
		}},
		{"mixed", func() scheduling.Input {
			return scheduling.Input{Pods: mixedPods(), NodePools: unlimited(defaultPool())}
		}},
		{"500x3.5cpu", func() scheduling.Input {
			return scheduling.Input{Pods: pods(500, "app", "3500m", "3Gi"), NodePools: unlimited(defaultPool())}
		}},
	}
}

// mixedPods are 1,000 pods of five sizes, as a cluster of several
// Deployments has them: small web pods, memory-heavy caches, cpu-heavy
// workers and a few large ones.
func mixedPods() []*corev1.Pod {
	var out []*corev1.Pod
	for _, d := range []struct {
		n           int
		name        string
		cpu, memory string
	}{{400, "web", "250m", "512Mi"}, {250, "api", "1", "2Gi"}, {150, "cache", "500m", "6Gi"}, {150, "worker", "2", "1Gi"}, {50, "batch", "4", "16Gi"}} {
		out = append(out, pods(d.n, d.name, d.cpu, d.memory)...)
	}
	return out
}

// BenchmarkSolve holds the optimizing planner against issue 12's targets:
// on each workload it reports Karpenter's plan (default-$/h), the
// optimized one (optimized-$/h), the proven lower bound (bound-$/h), the
// saving and the distance above the bound in percent, and the time of
// the optimized solve over the default one's (time-x, wall clock, and
// cpu-x, CPU time of the process, steadier on a shared machine).
func BenchmarkSolve(b *testing.B) {
	for _, w := range issueWorkloads() {
		b.Run(w.name, func(b *testing.B) {
			in := w.in()
			base := scheduling.Solve(in)
			bound, err := optimize.LowerBound(in, base, optimize.BoundOptions{})
			if err != nil {
				b.Fatal(err)
			}
			// The default solve is timed over enough runs to rise above
			// the clocks' granularity.
			runs := 0
			defaultWall, defaultCPU := timed(func() {
				for start := time.Now(); runs == 0 || time.Since(start) < 200*time.Millisecond; runs++ {
					scheduling.Solve(in)
				}
			})
			defaultWall, defaultCPU = defaultWall/time.Duration(runs), defaultCPU/time.Duration(runs)
			var o optimize.Outcome
			wall, cpu := time.Duration(0), time.Duration(0)
			for b.Loop() {
				w, c := timed(func() {
					if o, err = optimize.Search(in, optimize.SolveOptions{}); err != nil {
						b.Fatal(err)
					}
				})
				wall, cpu = wall+w, cpu+c
			}
			if o.Result.Summary.ScheduledPods < base.Summary.ScheduledPods {
				b.Fatalf("optimized plan schedules %d pods, Karpenter's %d", o.Result.Summary.ScheduledPods, base.Summary.ScheduledPods)
			}
			b.ReportMetric(o.KarpenterPerHour, "default-$/h")
			b.ReportMetric(o.PerHour, "optimized-$/h")
			b.ReportMetric(bound.PerHour, "bound-$/h")
			b.ReportMetric(100*o.Saving/o.KarpenterPerHour, "saving-%")
			b.ReportMetric(100*(o.PerHour-bound.PerHour)/bound.PerHour, "above-bound-%")
			b.ReportMetric(float64(wall)/float64(b.N)/float64(defaultWall), "time-x")
			b.ReportMetric(float64(cpu)/float64(b.N)/float64(defaultCPU), "cpu-x")
			b.Logf("%s: chosen %s of %+v", w.name, o.Strategy, o.Candidates)
		})
	}
}

// timed runs f and returns the wall-clock and process CPU time it took.
func timed(f func()) (wall, cpu time.Duration) {
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	f()
	wall = time.Since(start)
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	used := func(r *syscall.Rusage) time.Duration {
		return time.Duration(r.Utime.Nano() + r.Stime.Nano())
	}
	return wall, used(&after) - used(&before)
}

// BenchmarkNarrow reports how much narrowing the NodePools to the types
// the aggregate program buys saves on the issue's workloads.
func BenchmarkNarrow(b *testing.B) {
	for _, w := range []struct {
		name string
		in   func(b *testing.B) scheduling.Input
	}{
		{"diverse", func(*testing.B) scheduling.Input {
			return scheduling.Input{Pods: workloads.NewGenerator(workloads.DefaultSeed).Diverse(10000), NodePools: benchPool()}
		}},
		{"1000x1cpu-ondemand", func(b *testing.B) scheduling.Input {
			return scheduling.Input{Pods: pods(1000, "app", "1", "2Gi", withNodeSelector(apis.LabelCapacityType, apis.CapacityTypeOnDemand)), NodePools: unlimited(defaultPool())}
		}},
		{"500x3.5cpu", func(b *testing.B) scheduling.Input {
			return scheduling.Input{Pods: pods(500, "app", "3500m", "3Gi"), NodePools: unlimited(defaultPool())}
		}},
	} {
		b.Run(w.name, func(b *testing.B) {
			in := w.in(b)
			r := scheduling.Solve(in)
			var n optimize.Narrowing
			var ok bool
			for b.Loop() {
				var err error
				if n, ok, err = optimize.Narrow(in, r); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(optimize.PlanPerHour(r), "plan-$/h")
			if !ok {
				n.PerHour = optimize.PlanPerHour(r)
			}
			b.ReportMetric(n.PerHour, "narrowed-$/h")
			b.ReportMetric(float64(len(n.NodePools)), "pools-narrowed")
		})
	}
}

func unlimited(pools []scheduling.Pool) []scheduling.Pool {
	for i := range pools {
		pools[i].NodePool = pools[i].NodePool.DeepCopy()
		pools[i].NodePool.Spec.Limits = nil
	}
	return pools
}
