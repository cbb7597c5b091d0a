package optimize

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/internal/scenariogen"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// The bound editBounds gives a set of edits is never above the cost of
// Karpenter's plan under them when the edit search would keep that plan,
// and a set that narrows further is bounded no lower: checked on every
// narrowing edit and every pair of them, over random clusters from
// internal/scenariogen and uniform Deployments on the default NodePool,
// with and without a DaemonSet.
func TestEditBoundsNeverExceedAKeptPlan(t *testing.T) {
	inputs := map[string]scheduling.Input{}
	seeds := 10
	if testing.Short() {
		seeds = 3
	}
	for seed := range uint64(seeds) {
		sc := scenariogen.Generate(seed+101, false).Scenario()
		set, err := manifests.Decode("generated", []byte(sc.Inline))
		if err != nil {
			t.Fatalf("seed %d: %v", seed+101, err)
		}
		snap, err := snapshot.FromSet(set, snapshot.Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed+101, err)
		}
		inputs[fmt.Sprint("seed ", seed+101)] = snap.Input(scheduling.Options{})
	}
	pools, _ := defaultPools(t)
	daemon := boundTestPod("daemon", "500m", "1Gi")
	for _, w := range []struct {
		n           int
		cpu, memory string
	}{{60, "1", "2Gi"}, {40, "3500m", "3Gi"}, {30, "250m", "6Gi"}} {
		var ps []*corev1.Pod
		for i := range w.n {
			ps = append(ps, boundTestPod(fmt.Sprintf("app-%d", i), w.cpu, w.memory))
		}
		inputs[fmt.Sprintf("%d×%s/%s", w.n, w.cpu, w.memory)] = scheduling.Input{Pods: ps, NodePools: pools}
		inputs[fmt.Sprintf("%d×%s/%s with a DaemonSet", w.n, w.cpu, w.memory)] = scheduling.Input{Pods: ps, NodePools: pools, DaemonSets: []*corev1.Pod{daemon}}
	}
	checked, bounded := 0, 0
	for name, in := range inputs {
		base := scheduling.Solve(in)
		m, err := buildModel(in, base)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		bounds := newEditBounds(in, m)
		s := NewEditSearch(in, base)
		singles := NarrowingEdits(in, base, DefaultMaxEditCandidates)
		sets := [][]Edit{}
		for i := range singles {
			sets = append(sets, singles[i:i+1])
			for j := i + 1; j < len(singles); j++ {
				if edits, ok := joinEdits(singles[i:i+1], singles[j:j+1]); ok {
					sets = append(sets, edits)
				}
			}
		}
		for _, edits := range sets {
			b := bounds.bound(edits)
			for _, e := range edits {
				if single := bounds.bound([]Edit{e}); b < single*(1-1e-9) {
					t.Errorf("%s: %s is bounded at %.6f, below %.6f for %s alone", name, EditsKey(edits), b, single, e)
				}
			}
			trial, _ := ApplyEdits(in, edits)
			r := scheduling.Solve(trial)
			if !s.keeps(r) {
				continue
			}
			checked++
			if b > 0 {
				bounded++
			}
			if cost := PlanPerHour(r); b > cost*(1+1e-9) {
				t.Errorf("%s: %s is bounded at %.6f, above its plan's $%.6f", name, EditsKey(edits), b, cost)
			}
		}
	}
	t.Logf("%d kept plans under edits checked, %d with a bound above 0", checked, bounded)
	if bounded == 0 {
		t.Error("no set of edits was bounded: the test checks nothing")
	}
}

func boundTestPod(name, cpu, memory string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory),
		}}}}},
	}
}
