package scheduling_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/workloads"
)

// benchPool is Karpenter's benchmark NodePool: no requirements, limits too
// large to matter, over fake.InstanceTypes(400).
func benchPool() []scheduling.Pool {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: "EC2NodeClass", Name: "default"}
	np.Spec.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10000000"), corev1.ResourceMemory: resource.MustParse("10000000Gi")}
	np.SetDefaults()
	return []scheduling.Pool{{NodePool: np, InstanceTypes: instancetypes.Fake(400)}}
}

// reportSolve runs the solve b.N times and reports pods/s, nodes and cost
// (the sum of the launched offerings' prices, as Karpenter's figures count),
// and the bytes and allocations per pod.
func reportSolve(b *testing.B, in scheduling.Input) {
	b.ReportAllocs()
	var r scheduling.Result
	costs := scheduling.MeasurePodCosts(len(in.Pods))
	for b.Loop() {
		r = scheduling.Solve(in)
	}
	costs.Report(b)
	b.ReportMetric(float64(len(in.Pods))*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
	b.ReportMetric(float64(len(r.NodeClaims)), "nodes")
	b.ReportMetric(r.Summary.PricePerHour, "cost")
	b.ReportMetric(float64(r.Summary.UnschedulablePods), "unschedulable")
}

func BenchmarkSchedulingDiverse(b *testing.B) {
	for _, n := range []int{1000, 10000, 20000, 50000} {
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			pods := workloads.NewGenerator(workloads.DefaultSeed).Diverse(n)
			reportSolve(b, scheduling.Input{Pods: pods, NodePools: benchPool()})
		})
	}
}

func BenchmarkSchedulingPreferences(b *testing.B) {
	for _, policy := range []struct {
		name   string
		ignore bool
	}{{"Respect", false}, {"Ignore", true}} {
		b.Run("policy="+policy.name, func(b *testing.B) {
			pods := workloads.NewGenerator(workloads.DefaultSeed).Preferences(4000)
			reportSolve(b, scheduling.Input{Pods: pods, NodePools: benchPool(), Options: scheduling.Options{IgnorePreferences: policy.ignore}})
		})
	}
}
