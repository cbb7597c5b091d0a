package optimize

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/scheduling"
)

// A run that wants only the cheapest plan (EditSearch.cheapest, as Search
// runs it) returns first the plan the whole run returns first, for every
// input, with Search's bound skipping the sets that cannot beat a best
// plan as high as Karpenter's and as low as the cheapest plan itself,
// while it solves fewer sets.
func TestEditSearchCheapestGivesTheWholeRunsFirstPlan(t *testing.T) {
	inputs := editBoundInputs(t)
	// With the default NodePool's limits, a pair of edits is cheapest.
	inputs["1000 pods of one shape"] = scheduling.Input{Pods: replicas(1000, "1", "2Gi"), NodePools: inputs["mixed"].NodePools}
	// The default NodePool without limits, as BenchmarkSolve's.
	pools := slices.Clone(inputs["mixed"].NodePools)
	for i := range pools {
		pools[i].NodePool = pools[i].NodePool.DeepCopy()
		pools[i].NodePool.Spec.Limits = nil
	}
	var mixed []*corev1.Pod
	for _, d := range []struct {
		n           int
		cpu, memory string
	}{{400, "250m", "512Mi"}, {250, "1", "2Gi"}, {150, "500m", "6Gi"}, {150, "2", "1Gi"}, {50, "4", "16Gi"}} {
		mixed = append(mixed, replicas(d.n, d.cpu, d.memory)...)
	}
	inputs["1000 pods of five shapes"] = scheduling.Input{Pods: mixed, NodePools: pools}
	inputs["500 pods of 3.5 vCPUs"] = scheduling.Input{Pods: replicas(500, "3500m", "3Gi"), NodePools: pools}
	compared, spared := 0, 0
	for name, in := range inputs {
		base := scheduling.Solve(in)
		m, err := buildModel(in, base)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		singles := NarrowingEdits(in, base, DefaultMaxEditCandidates)
		// run returns the plans, the sets solved and those given up as
		// dearer than the run needs.
		run := func(cheapest bool, best float64, maxEdits int) ([]EditPlan, int, int) {
			s := NewEditSearch(in, base)
			bounds := newEditBounds(in, m)
			s.skip = func(edits []Edit, limit float64) bool { return bounds.skips(edits, min(best, limit*(1+1e-12))) }
			s.cheapest = cheapest
			plans := s.Run(singles, maxEdits, nil)
			givenUp := 0
			for _, t := range s.solved {
				if t.plan == nil && !math.IsInf(t.above, 1) {
					givenUp++
				}
			}
			return plans, s.Tried, givenUp
		}
		whole, _, _ := run(false, PlanPerHour(base), DefaultMaxEdits)
		bests := []float64{PlanPerHour(base)}
		if len(whole) > 0 {
			bests = append(bests, whole[0].PerHour, whole[0].PerHour*1.02)
		}
		for _, best := range bests {
			want, wholeTried, _ := run(false, best, DefaultMaxEdits)
			got, tried, givenUp := run(true, best, DefaultMaxEdits)
			compared++
			spared += givenUp
			if len(got) == 0 || len(want) == 0 {
				if len(got) != len(want) {
					t.Errorf("%s, best %v: %d plans, the whole run %d", name, best, len(got), len(want))
				}
				continue
			}
			checkFirstPlan(t, name, best, got, want)
			if tried > wholeTried {
				t.Errorf("%s, best %v: %d sets solved, the whole run %d", name, best, tried, wholeTried)
			}
		}
	}
	t.Logf("%d runs compared, %d sets given up", compared, spared)
	if spared == 0 {
		t.Error("no run gave up a set: the test weighs nothing the whole run does not")
	}
}

// replicas are n pods of one shape.
func replicas(n int, cpu, memory string) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = boundTestPod(fmt.Sprintf("app-%d", i), cpu, memory)
	}
	return out
}

// Every plan a run keeps, of single edits and of sets of several, is
// scheduling.Solve's plan of the input with its edits: compiling the
// edited NodePools from the pools as they are changes no plan.
func TestEditSearchPlansAreKarpentersUnderTheEdits(t *testing.T) {
	inputs := editBoundInputs(t)
	inputs["1000 pods of one shape"] = scheduling.Input{Pods: replicas(1000, "1", "2Gi"), NodePools: inputs["mixed"].NodePools}
	combined := 0
	for name, in := range inputs {
		base := scheduling.Solve(in)
		s := NewEditSearch(in, base)
		for _, p := range s.Run(NarrowingEdits(in, base, DefaultMaxEditCandidates), DefaultMaxEdits, nil) {
			trial, _ := ApplyEdits(in, p.Edits)
			if want := scheduling.Solve(trial); !reflect.DeepEqual(p.Result, want) {
				t.Errorf("%s: %q: the search's plan costs %v, scheduling.Solve's %v", name, EditsKey(p.Edits), p.PerHour, PlanPerHour(want))
			}
			if len(p.Edits) > 1 {
				combined++
			}
		}
	}
	if combined == 0 {
		t.Error("no set of several edits was kept: the test weighs only single edits")
	}
}

// checkFirstPlan fails the test when a cut-short edit search's first plan
// is not the whole run's (both non-empty).
func checkFirstPlan(t *testing.T, name string, best float64, got, want []EditPlan) {
	t.Helper()
	if EditsKey(got[0].Edits) != EditsKey(want[0].Edits) || got[0].PerHour != want[0].PerHour || !reflect.DeepEqual(got[0].Result, want[0].Result) {
		t.Errorf("%s, best %v: first plan %q at %v, the whole run's %q at %v", name, best, EditsKey(got[0].Edits), got[0].PerHour, EditsKey(want[0].Edits), want[0].PerHour)
	}
}
