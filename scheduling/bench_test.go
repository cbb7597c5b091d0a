package scheduling

import (
	"fmt"
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/instancetypes"
)

// genericPods are pods without any constraint, with requests drawn from
// Karpenter's benchmark sizes (cpu 100m…1500m × memory 100Mi…4Gi), seeded.
func genericPods(n int, seed uint64) []*corev1.Pod {
	rng := rand.New(rand.NewPCG(seed, 0))
	cpus := []string{"100m", "250m", "500m", "1000m", "1500m"}
	mems := []string{"100Mi", "256Mi", "512Mi", "1Gi", "2Gi", "4Gi"}
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = newPod(fmt.Sprintf("p-%d", i), cpus[rng.IntN(len(cpus))], mems[rng.IntN(len(mems))])
	}
	return out
}

func BenchmarkSolveGeneric(b *testing.B) {
	catalogs := []struct {
		name    string
		catalog instancetypes.Catalog
	}{{"ec2", instancetypes.Default()}, {"fake400", instancetypes.Fake(400)}}
	for _, c := range catalogs {
		for _, n := range []int{1000, 10000, 50000} {
			b.Run(fmt.Sprintf("catalog=%s/pods=%d", c.name, n), func(b *testing.B) {
				in := Input{Pods: genericPods(n, 1), NodePools: []Pool{{NodePool: newPool("default"), InstanceTypes: c.catalog}}}
				b.ReportAllocs()
				var r Result
				costs := MeasurePodCosts(n)
				for b.Loop() {
					r = Solve(in)
				}
				costs.Report(b)
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
				b.ReportMetric(float64(len(r.NodeClaims)), "nodes")
				if r.Summary.UnschedulablePods > 0 {
					b.Fatalf("%d pods unschedulable", r.Summary.UnschedulablePods)
				}
			})
		}
	}
}
