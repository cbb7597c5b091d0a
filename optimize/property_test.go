package optimize_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// randomInput draws a small cluster: a few instance types with spot and
// on-demand offerings in two zones, one or two NodePools (sometimes
// limited), pods of assorted sizes, some pinned to a zone or capacity type
// or spread one per node, sometimes existing nodes and a DaemonSet.
func randomInput(rng *rand.Rand) scheduling.Input {
	var types []*instancetypes.InstanceType
	for i := range 2 + rng.IntN(6) {
		cpu := []int64{1, 2, 4, 8, 16}[rng.IntN(5)]
		mem := cpu * []int64{1, 2, 4, 8}[rng.IntN(4)]
		base := float64(cpu)*0.03 + float64(mem)*0.004
		base *= 0.7 + 0.6*rng.Float64()
		var offerings []instancetypes.Offering
		for _, zone := range []string{"test-1a", "test-1b"} {
			offerings = append(offerings,
				instancetypes.Offering{Zone: zone, CapacityType: apis.CapacityTypeOnDemand, Price: base, Available: rng.IntN(8) > 0},
				instancetypes.Offering{Zone: zone, CapacityType: apis.CapacityTypeSpot, Price: base * (0.3 + 0.5*rng.Float64()), Available: rng.IntN(3) > 0})
		}
		it, err := instancetypes.NewInstanceType(instancetypes.Spec{
			Name:      fmt.Sprintf("t%d-%dx%d", i, cpu, mem),
			Labels:    map[string]string{apis.LabelArch: apis.ArchitectureAmd64, corev1.LabelOSStable: "linux"},
			Capacity:  resources.New(cpu*1000, mem*gib, int64(8+rng.IntN(100))),
			Overhead:  instancetypes.Overhead{KubeReserved: resources.New(100, gib/4, 0)},
			Offerings: offerings,
		})
		if err != nil {
			panic(err)
		}
		types = append(types, it)
	}
	in := scheduling.Input{}
	for p := range 1 + rng.IntN(2) {
		var limits corev1.ResourceList
		if rng.IntN(4) == 0 {
			limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(fmt.Sprint(8 + rng.IntN(64)))}
		}
		pool := nodePool(fmt.Sprintf("pool-%d", p), catalog(types[rng.IntN(len(types)):]...), limits)
		if rng.IntN(3) == 0 {
			pool.NodePool.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.CapacityTypeOnDemand}}}
		}
		in.NodePools = append(in.NodePools, pool)
	}
	cpus := []string{"100m", "250m", "500m", "1", "1500m", "2", "3", "3500m"}
	mems := []string{"128Mi", "512Mi", "1Gi", "2Gi", "3Gi", "6Gi"}
	for i := range rng.IntN(60) {
		var opts []podOption
		switch rng.IntN(8) {
		case 0:
			opts = append(opts, withNodeSelector(corev1.LabelTopologyZone, "test-1b"))
		case 1:
			opts = append(opts, withNodeSelector(apis.LabelCapacityType, apis.CapacityTypeOnDemand))
		case 2:
			opts = append(opts, withHostnameAntiAffinity(fmt.Sprint("spread-", rng.IntN(2))))
		}
		in.Pods = append(in.Pods, newPod(fmt.Sprintf("p-%d", i), cpus[rng.IntN(len(cpus))], mems[rng.IntN(len(mems))], opts...))
	}
	for i := range rng.IntN(3) {
		n := &scheduling.Node{Name: fmt.Sprintf("node-%d", i), NodePool: in.NodePools[0].NodePool.Name, Initialized: true,
			Labels:   map[string]string{corev1.LabelTopologyZone: "test-1a", apis.LabelCapacityType: apis.CapacityTypeOnDemand, apis.LabelNodePool: in.NodePools[0].NodePool.Name},
			Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("20")}}
		n.Allocatable = n.Capacity
		n.Pods = []*corev1.Pod{newPod(fmt.Sprintf("bound-%d", i), "1", "1Gi")}
		in.Nodes = append(in.Nodes, n)
	}
	if rng.IntN(3) == 0 {
		in.DaemonSets = []*corev1.Pod{newPod("daemon", "200m", "256Mi")}
	}
	return in
}

// TestLowerBoundNeverAbovePlan holds the bound against Karpenter's plan on
// random clusters: it may never exceed what the plan pays; column
// generation, once converged, never proves less than the aggregate LP;
// and the same input gives the same bound.
func TestLowerBoundNeverAbovePlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	cases := 300
	if testing.Short() {
		cases = 50
	}
	for c := range cases {
		in := randomInput(rng)
		r := scheduling.Solve(in)
		before := fmt.Sprint(in.Pods, in.Nodes)
		b, err := optimize.LowerBound(in, r, optimize.BoundOptions{})
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		if b.PerHour > optimize.PlanPerHour(r)*(1+1e-9)+1e-9 {
			t.Fatalf("case %d: bound %.6f (%s) above the plan's %.6f (%d claims, %d pods)", c, b.PerHour, b.Method, r.Summary.PricePerHour, len(r.NodeClaims), len(in.Pods))
		}
		if b.Converged && b.ColumnGeneration < b.LP*(1-1e-6)-1e-9 {
			t.Errorf("case %d: converged column generation %.6f below the LP bound %.6f", c, b.ColumnGeneration, b.LP)
		}
		again, err := optimize.LowerBound(in, r, optimize.BoundOptions{})
		if err != nil || !reflect.DeepEqual(again, b) {
			t.Fatalf("case %d: a second bound differs: %+v, then %+v", c, b, again)
		}
		if after := fmt.Sprint(in.Pods, in.Nodes); after != before {
			t.Fatalf("case %d: the input changed", c)
		}
	}
}
