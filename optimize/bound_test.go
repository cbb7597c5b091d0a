package optimize_test

import (
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*max(1, math.Abs(b)) }

func bound(t *testing.T, in scheduling.Input) (optimize.Bound, scheduling.Result) {
	t.Helper()
	r := scheduling.Solve(in)
	b, err := optimize.LowerBound(in, r, optimize.BoundOptions{})
	if err != nil {
		t.Fatalf("LowerBound: %v", err)
	}
	if b.PerHour > optimize.PlanPerHour(r)*(1+1e-9)+1e-9 {
		t.Fatalf("bound %.6f above the plan's %.6f", b.PerHour, r.Summary.PricePerHour)
	}
	return b, r
}

func TestLowerBoundHandChecked(t *testing.T) {
	small, large := nodeType("small", 4, 64, 1), nodeType("large", 8, 64, 2)
	for _, tc := range []struct {
		name         string
		pods         []*corev1.Pod
		lp, cg, want float64
		method       string
	}{
		// 1 cpu pods pack perfectly: 10 cpu at $0.25 a cpu.
		{"whole pods fill nodes", pods(10, "a", "1", "1Gi"), 2.5, 2.5, 2.5, optimize.MethodLP},
		// 3 cpu pods: one per 4-cpu node, two per 8-cpu node, $1 a pod
		// either way, though fractionally 8 cpu would hold 8/3 of them.
		{"whole pods waste room", pods(10, "b", "3", "1Gi"), 7.5, 10, 10, optimize.MethodColumnGeneration},
		// Anti-affinity: 5 pods of 1 cpu need 5 nodes.
		{"anti-affinity", pods(5, "c", "1", "1Gi", withHostnameAntiAffinity("c")), 1.25, 5, 5, optimize.MethodColumnGeneration},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := scheduling.Input{Pods: tc.pods, NodePools: []scheduling.Pool{nodePool("default", catalog(small, large), nil)}}
			b, _ := bound(t, in)
			if !near(b.LP, tc.lp) || !near(b.ColumnGeneration, tc.cg) || !near(b.PerHour, tc.want) {
				t.Errorf("bound: lp %.4f, column generation %.4f, per hour %.4f; want %.4f, %.4f, %.4f", b.LP, b.ColumnGeneration, b.PerHour, tc.lp, tc.cg, tc.want)
			}
			if b.Method != tc.method {
				t.Errorf("method %q, want %q", b.Method, tc.method)
			}
			if !b.Converged {
				t.Errorf("column generation did not converge in %d rounds", b.Iterations)
			}
		})
	}
}

func TestLowerBoundEmpty(t *testing.T) {
	in := scheduling.Input{NodePools: []scheduling.Pool{nodePool("default", catalog(nodeType("small", 4, 64, 1)), nil)}}
	b, _ := bound(t, in)
	if b.PerHour != 0 || b.Method != optimize.MethodNone || b.Pods != 0 {
		t.Errorf("empty input: %+v", b)
	}
	b, err := optimize.LowerBound(scheduling.Input{Pods: pods(3, "x", "1", "1Gi")}, scheduling.Result{}, optimize.BoundOptions{})
	if err != nil || b.PerHour != 0 || len(b.Excluded) != 3 {
		t.Errorf("no NodePool: %+v, %v", b, err)
	}
}

func TestLowerBoundExistingNodes(t *testing.T) {
	// An existing node with 4 free cpu takes 4 of the 10 pods for free.
	node := &scheduling.Node{Name: "n1", Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("64Gi"), corev1.ResourcePods: resource.MustParse("110")}}
	node.Allocatable = node.Capacity
	in := scheduling.Input{Pods: pods(10, "a", "1", "1Gi"), Nodes: []*scheduling.Node{node},
		NodePools: []scheduling.Pool{nodePool("default", catalog(nodeType("small", 4, 64, 1), nodeType("large", 8, 64, 2)), nil)}}
	b, r := bound(t, in)
	if !near(b.PerHour, 1.5) || !near(r.Summary.PricePerHour, 2) {
		t.Errorf("bound %.4f (want 1.5), plan %.4f (want 2)", b.PerHour, r.Summary.PricePerHour)
	}
}

func TestLowerBoundLimits(t *testing.T) {
	// The cheap large type is ruled out by a 6-cpu limit: 6 pods of 1 cpu
	// need the small ones, at $1 each.
	limits := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("6")}
	in := scheduling.Input{Pods: pods(6, "a", "1", "1Gi"),
		NodePools: []scheduling.Pool{nodePool("default", catalog(nodeType("one", 1, 8, 1), nodeType("large", 8, 64, 2)), limits)}}
	b, r := bound(t, in)
	if !near(b.PerHour, 6) || !near(r.Summary.PricePerHour, 6) {
		t.Errorf("bound %.4f, plan %.4f; want 6 and 6", b.PerHour, r.Summary.PricePerHour)
	}
}

func TestLowerBoundTwoPools(t *testing.T) {
	// Pods selecting team=a may only use pool a's dearer type; the others
	// use either pool, so the cheaper.
	a := nodePool("a", catalog(nodeType("a4", 4, 64, 2)), nil)
	a.NodePool.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a"}
	b := nodePool("b", catalog(nodeType("b4", 4, 64, 1)), nil)
	in := scheduling.Input{Pods: append(pods(4, "x", "1", "1Gi", withNodeSelector("team", "a")), pods(8, "y", "1", "1Gi")...),
		NodePools: []scheduling.Pool{a, b}}
	got, _ := bound(t, in)
	if !near(got.PerHour, 4) {
		t.Errorf("bound %.4f, want 4 (1 node of a, 2 of b)", got.PerHour)
	}
	if len(got.ByNodePool) != 2 || !near(got.ByNodePool[0].PerHour, 2) || got.ByNodePool[1].PerHour != 0 {
		t.Errorf("by NodePool: %+v", got.ByNodePool)
	}
}

func TestLowerBoundOddInputs(t *testing.T) {
	free := nodeType("free", 4, 64, 0)
	for _, tc := range []struct {
		name string
		in   scheduling.Input
		want float64
	}{
		// A node that costs nothing makes every bound 0, column generation
		// included (its Farley scaling cannot be used then).
		{"zero price", scheduling.Input{Pods: pods(9, "a", "1", "1Gi", withHostnameAntiAffinity("a")),
			NodePools: []scheduling.Pool{nodePool("default", catalog(free), nil)}}, 0},
		{"empty catalog", scheduling.Input{Pods: pods(3, "a", "1", "1Gi"),
			NodePools: []scheduling.Pool{nodePool("default", nil, nil)}}, 0},
		{"nil entries", scheduling.Input{Pods: []*corev1.Pod{nil, newPod("a", "1", "1Gi")}, Nodes: []*scheduling.Node{nil},
			NodePools: []scheduling.Pool{{}, nodePool("default", catalog(nodeType("small", 4, 64, 1)), nil)}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := optimize.LowerBound(tc.in, scheduling.Result{}, optimize.BoundOptions{})
			if err != nil || !near(b.PerHour, tc.want) {
				t.Errorf("bound %+v, %v; want %.4f", b, err, tc.want)
			}
		})
	}
}

func TestLowerBoundManyPods(t *testing.T) {
	// A hundred thousand pods of one shape are one group: the programs
	// stay small.
	in := scheduling.Input{Pods: pods(100000, "a", "1", "1Gi"),
		NodePools: []scheduling.Pool{nodePool("default", catalog(nodeType("small", 4, 64, 1), nodeType("large", 8, 64, 2)), nil)}}
	b, err := optimize.LowerBound(in, scheduling.Result{}, optimize.BoundOptions{})
	if err != nil || !near(b.PerHour, 25000) {
		t.Errorf("bound %+v, %v; want 25000", b.PerHour, err)
	}
}
