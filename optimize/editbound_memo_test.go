package optimize

import (
	"fmt"
	"math"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/internal/scenariogen"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// editBounds works out each single edit's types once and each program
// once: every set of edits (singles, pairs, triples) is bounded exactly
// as the whole computation for that set alone bounds it.
func TestEditBoundsReuseGivesTheFreshBound(t *testing.T) {
	inputs := editBoundInputs(t)
	compared, positive := 0, 0
	for name, in := range inputs {
		base := scheduling.Solve(in)
		m, err := buildModel(in, base)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		bounds := newEditBounds(in, m)
		singles := NarrowingEdits(in, base, DefaultMaxEditCandidates)
		sets := editSets(singles)
		// Pairs before singles too: the reuse must not depend on order.
		slices.Reverse(sets[len(sets)/2:])
		for _, edits := range sets {
			got, want := bounds.bound(edits), referenceBound(newEditBounds(in, m), edits)
			compared++
			if got > 0 {
				positive++
			}
			if got != want && !(math.IsInf(got, 1) && math.IsInf(want, 1)) {
				t.Errorf("%s: %s is bounded at %v, the whole computation gives %v", name, EditsKey(edits), got, want)
			}
		}
	}
	t.Logf("%d sets compared, %d bounded above 0", compared, positive)
	if positive == 0 {
		t.Error("no set was bounded above 0: the test checks nothing")
	}
}

// skips, which solves a program only when no solution of one solved
// before shows the set's bound is below the best plan, answers as the
// bound does, for thresholds far from and close to each set's bound.
func TestEditBoundsSkipsAsTheBoundSays(t *testing.T) {
	shown, solved := 0, 0
	for name, in := range editBoundInputs(t) {
		base := scheduling.Solve(in)
		m, err := buildModel(in, base)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		singles := NarrowingEdits(in, base, DefaultMaxEditCandidates)
		sets := editSets(singles)
		fresh := newEditBounds(in, m)
		want := make([]float64, len(sets))
		for k, edits := range sets {
			want[k] = referenceBound(fresh, edits)
		}
		for _, scale := range []float64{0.5, 1 - 1e-6, 1 - 1e-9, 1, 1 + 1e-12, 1 + 1e-9, 1 + 1e-6, 1.02, 3} {
			// Thresholds near each set's own bound, and near the plan's
			// cost, as Search's best plan so far.
			bounds := newEditBounds(in, m)
			for k, edits := range sets {
				for _, best := range []float64{want[k] * scale, PlanPerHour(base) * scale} {
					if got := bounds.skips(edits, best); got != (want[k]*(1-1e-9) >= best) {
						t.Errorf("%s: %s against %v: skips says %t, its bound is %v", name, EditsKey(edits), best, got, want[k])
					}
				}
			}
			shown, solved = shown+bounds.shown, solved+bounds.solved
		}
	}
	t.Logf("%d sets answered by a solution, %d solved", shown, solved)
	if shown == 0 || solved == 0 {
		t.Error("the sets were all answered one way: the test checks only half of skips")
	}
}

// referenceBound is editBounds.bound worked out for the set alone, type
// by type, with nothing reused.
func referenceBound(b *editBounds, edits []Edit) float64 {
	for _, e := range edits {
		switch {
		case e.Op.Action == ActionWeight:
		case e.Op.Action == ActionRestrict && !slices.Contains(offeringKeys, e.Op.Key):
		default:
			return 0
		}
	}
	_, changes := ApplyEdits(b.in, edits)
	narrowed := map[int]requirements.Requirements{}
	for _, c := range changes {
		pi, ok := b.pools[c.After.Name]
		if !ok {
			continue
		}
		reqs, err := requirements.FromNodePool(c.After.Spec.Template)
		if err != nil {
			return 0
		}
		was, err := requirements.FromNodePool(c.Before.Spec.Template)
		if err != nil {
			return 0
		}
		if slices.ContainsFunc(edits, func(e Edit) bool { return e.NodePool == c.After.Name && e.Op.Action == ActionRestrict }) {
			narrowed[pi] = reqs.ChangedFrom(was)
		}
	}
	if len(narrowed) == 0 {
		return 0
	}
	type typeKey struct {
		pool int
		it   *instancetypes.InstanceType
	}
	admits := map[typeKey]bool{}
	var cols []column
	for _, c := range b.columns {
		if reqs, ok := narrowed[c.pool]; ok {
			k := typeKey{c.pool, c.it}
			admit, seen := admits[k]
			if !seen {
				admit = c.it.Requirements.IntersectsFast(reqs)
				admits[k] = admit
			}
			if !admit {
				continue
			}
		}
		cols = append(cols, c)
	}
	m := *b.m
	m.columns = undominated(cols, m.pools)
	m.artificial = b.artificial
	if m.nodes == 0 {
		for _, g := range m.groups {
			if !slices.ContainsFunc(m.columns, func(c column) bool { return c.shapes.has(g.shape) }) {
				return math.Inf(1)
			}
		}
	}
	v, err := solveAggregate(aggregateLP(&m, nil, len(m.repel) > 0))
	if err != nil {
		return 0
	}
	return v
}

// editBoundInputs are random clusters from internal/scenariogen and mixed
// Deployments on the default NodePool, with and without a DaemonSet.
func editBoundInputs(t *testing.T) map[string]scheduling.Input {
	t.Helper()
	inputs := map[string]scheduling.Input{}
	for seed := range uint64(4) {
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
	var mixed []*corev1.Pod
	for i := range 40 {
		mixed = append(mixed, boundTestPod(fmt.Sprintf("web-%d", i), "250m", "512Mi"), boundTestPod(fmt.Sprintf("cache-%d", i), "500m", "6Gi"))
	}
	inputs["mixed"] = scheduling.Input{Pods: mixed, NodePools: pools}
	inputs["mixed with a DaemonSet"] = scheduling.Input{Pods: mixed, NodePools: pools, DaemonSets: []*corev1.Pod{boundTestPod("daemon", "500m", "1Gi")}}
	return inputs
}

// editSets are the single edits, pairs of them and some triples.
func editSets(singles []Edit) [][]Edit {
	var sets [][]Edit
	for i := range singles {
		sets = append(sets, singles[i:i+1])
		for j := i + 1; j < len(singles); j++ {
			pair, ok := joinEdits(singles[i:i+1], singles[j:j+1])
			if !ok {
				continue
			}
			sets = append(sets, pair)
			if k := (i + j) % len(singles); k > j {
				if triple, ok := joinEdits(pair, singles[k:k+1]); ok {
					sets = append(sets, triple)
				}
			}
		}
	}
	return sets
}
