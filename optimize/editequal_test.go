package optimize

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// equalInputs are random workloads on the default NodePool, without its
// limits (so that the edits' plans launch alike more often) and with
// them, some with a second NodePool: pods of a few shapes, some of them selecting, preferring or
// spreading by a label the narrowing edits restrict, and some inputs with
// a DaemonSet that runs only on some vCPU counts.
func equalInputs(t *testing.T, n int) map[string]scheduling.Input {
	t.Helper()
	limited, unlimited := defaultPools(t)
	shapes := []struct{ cpu, memory string }{{"250m", "512Mi"}, {"1", "2Gi"}, {"3500m", "3Gi"}, {"500m", "6Gi"}, {"2", "1Gi"}, {"7", "12Gi"}}
	inputs := map[string]scheduling.Input{}
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 29))
		var pods []*corev1.Pod
		for d := range 1 + rng.IntN(3) {
			shape := shapes[rng.IntN(len(shapes))]
			count := 20 + rng.IntN(150)
			read := rng.IntN(3) == 0
			for i := range count {
				p := boundTestPod(fmt.Sprintf("d%d-%d", d, i), shape.cpu, shape.memory)
				p.Labels = map[string]string{"app": fmt.Sprint("d", d)}
				if read {
					readLabel(rng, p)
				}
				pods = append(pods, p)
			}
		}
		in := scheduling.Input{Pods: pods, NodePools: unlimited}
		if rng.IntN(3) == 0 {
			in.NodePools = limited
		}
		if rng.IntN(3) == 0 {
			// A second NodePool of the same types, weighed first: the
			// edits then reweight pools too.
			second := in.NodePools[0]
			second.NodePool = second.NodePool.DeepCopy()
			second.NodePool.Name = "second"
			weight := int32(10)
			second.NodePool.Spec.Weight = &weight
			in.NodePools = append(slices.Clone(in.NodePools), second)
		}
		if rng.IntN(3) == 0 {
			daemon := boundTestPod("daemon", "500m", "1Gi")
			if rng.IntN(2) == 0 {
				daemon.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: apis.LabelInstanceCPU, Operator: corev1.NodeSelectorOpGt, Values: []string{"4"}}}}}}}}
			}
			in.DaemonSets = []*corev1.Pod{daemon}
		}
		inputs[fmt.Sprint("seed ", seed)] = in
	}
	return inputs
}

// defaultPools are karpsim's default NodePools, with their limits and
// without.
func defaultPools(t *testing.T) (limited, unlimited []scheduling.Pool) {
	t.Helper()
	set, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.FromSet(set, snapshot.Options{})
	if err != nil {
		t.Fatal(err)
	}
	unlimited = slices.Clone(snap.NodePools)
	for i := range unlimited {
		unlimited[i].NodePool = unlimited[i].NodePool.DeepCopy()
		unlimited[i].NodePool.Spec.Limits = nil
	}
	return snap.NodePools, unlimited
}

// readLabel makes the pod read a label the narrowing edits restrict: a
// vCPU or generation bound it requires or prefers, or a spread or
// anti-affinity by family.
func readLabel(rng *rand.Rand, p *corev1.Pod) {
	cpu := strconv.Itoa([]int{2, 4, 8, 16}[rng.IntN(4)])
	req := corev1.NodeSelectorRequirement{Key: apis.LabelInstanceCPU, Operator: corev1.NodeSelectorOpLt, Values: []string{cpu}}
	if rng.IntN(2) == 0 {
		req = corev1.NodeSelectorRequirement{Key: apis.LabelInstanceGeneration, Operator: corev1.NodeSelectorOpGt, Values: []string{"5"}}
	}
	term := corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{req}}
	switch rng.IntN(4) {
	case 0:
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{term}}}}
	case 1:
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 10, Preference: term}}}}
	case 2:
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: apis.LabelInstanceFamily, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: p.Labels}}}
	default:
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 10,
			PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: apis.LabelInstanceCPU, LabelSelector: &metav1.LabelSelector{MatchLabels: p.Labels}}}}}}
	}
}

// equalSets are the input's narrowing edits, each alone, and random
// pairs and triples of them.
func equalSets(rng *rand.Rand, singles []Edit, n int) [][]Edit {
	var sets [][]Edit
	for _, e := range singles {
		sets = append(sets, []Edit{e})
	}
	for range n {
		if len(singles) < 2 {
			break
		}
		set := []Edit{singles[rng.IntN(len(singles))]}
		for range 1 + rng.IntN(2) {
			if joined, ok := joinEdits(set, []Edit{singles[rng.IntN(len(singles))]}); ok {
				set = joined
			}
		}
		if len(set) > 1 {
			sets = append(sets, set)
		}
	}
	return sets
}

// withoutKeys is the claims of r with their requirements on the keys left
// out.
func withoutKeys(r scheduling.Result, keys []string) scheduling.Result {
	r.NodeClaims = slices.Clone(r.NodeClaims)
	for i := range r.NodeClaims {
		c := &r.NodeClaims[i]
		c.Requirements = slices.DeleteFunc(slices.Clone(c.Requirements), func(q corev1.NodeSelectorRequirement) bool { return slices.Contains(keys, q.Key) })
	}
	// A pod's reason may quote a NodePool's requirements.
	r.Unschedulable = slices.Clone(r.Unschedulable)
	for i := range r.Unschedulable {
		r.Unschedulable[i].Reason = ""
	}
	return r
}

// restricted are the keys the sets of edits restrict.
func restricted(sets ...[]Edit) []string {
	var keys []string
	for _, edits := range sets {
		for _, e := range edits {
			if e.Op.Action == ActionRestrict && !slices.Contains(keys, e.Op.Key) {
				keys = append(keys, e.Op.Key)
			}
		}
	}
	return keys
}

// Whenever the edit search would take a set's verdict from another's
// (their compiled NodePools offer the same, SameOffers, and the input
// reads none of the labels either restricts but from the NodePools,
// equalKeys), Karpenter's plans under the two sets are the same but for
// the claims' requirements on those labels: the same cost, the same
// claims of the same types holding the same pods, the same pods pending,
// and so the same verdict; and their solves stop at the same prices.
// Checked over random workloads, some of whose pods or DaemonSet read the
// edited labels, and random sets of narrowing edits.
func TestEqualOffersGiveTheSamePlan(t *testing.T) {
	n := 16
	if testing.Short() {
		n = 8
	}
	fired, read := 0, 0
	for name, in := range equalInputs(t, n) {
		base := scheduling.Solve(in)
		s := NewEditSearch(in, base)
		s.cheapest = true
		rng := rand.New(rand.NewPCG(uint64(len(in.Pods)), 7))
		type solvedSet struct {
			edits []Edit
			prep  *scheduling.Prepared
			r     scheduling.Result
		}
		var done []solvedSet
		for _, edits := range equalSets(rng, NarrowingEdits(in, base, DefaultMaxEditCandidates), 30) {
			trial, changes := ApplyEdits(in, edits)
			prep := s.prepare(trial.NodePools, edits, changes)
			r := prep.WithOptions(trial.Options).Solve(trial)
			for _, e := range done {
				if !e.prep.SameOffers(prep) {
					continue
				}
				if !s.equalKeys(e.edits) || !s.equalKeys(edits) {
					read++
					continue
				}
				fired++
				keys := restricted(e.edits, edits)
				a, b := withoutKeys(e.r, keys), withoutKeys(r, keys)
				if !reflect.DeepEqual(a, b) || PlanPerHour(e.r) != PlanPerHour(r) || s.keeps(e.r) != s.keeps(r) {
					t.Errorf("%s: %q and %q offer the same, but their plans cost %v and %v (kept %v, %v), or differ on more than %v",
						name, EditsKey(e.edits), EditsKey(edits), PlanPerHour(e.r), PlanPerHour(r), s.keeps(e.r), s.keeps(r), keys)
					continue
				}
				cost := PlanPerHour(r)
				for _, stop := range []float64{cost * 0.5, cost * 0.9, cost * 0.99, cost * (1 - 1e-9), cost, s.basePerHour} {
					opts := trial.Options
					opts.StopAbovePrice = stop
					etrial, _ := ApplyEdits(in, e.edits)
					if x, y := stopped(e.prep.WithOptions(opts).Solve(etrial)), stopped(prep.WithOptions(opts).Solve(trial)); x != y {
						t.Errorf("%s: %q and %q offer the same, but at a stop of %v one solve stops (%v, %v)", name, EditsKey(e.edits), EditsKey(edits), stop, x, y)
					}
				}
			}
			done = append(done, solvedSet{edits, prep, r})
		}
	}
	t.Logf("%d pairs of sets offering the same compared, %d more left alone as the input reads an edited label", fired, read)
	if fired == 0 || read == 0 {
		t.Error("no pair of sets offering the same was compared, or none was left alone: the test weighs nothing")
	}
}

// stopped reports whether Options.StopAbovePrice stopped the solve.
func stopped(r scheduling.Result) bool {
	return slices.ContainsFunc(r.Unschedulable, func(u scheduling.Unschedulable) bool { return u.Reason == scheduling.ErrStopped.Error() })
}

// The edit search as Search runs it (cheapest, with the bound) spares
// solves by taking a set's verdict from an earlier one offering the same,
// and returns first the plan the whole run, which solves every set,
// returns first: on 500 pods of 3.5 vCPUs on the default NodePool, where
// most pairs of edits offer what one of them does, and on the random
// workloads.
func TestEqualOffersSpareSolves(t *testing.T) {
	inputs := equalInputs(t, 8)
	_, pools := defaultPools(t)
	inputs["500 pods of 3.5 vCPUs"] = scheduling.Input{Pods: replicas(500, "3500m", "3Gi"), NodePools: pools}
	equal := map[string]int{}
	for name, in := range inputs {
		base := scheduling.Solve(in)
		m, err := buildModel(in, base)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		singles := NarrowingEdits(in, base, DefaultMaxEditCandidates)
		run := func(cheapest bool, best float64) ([]EditPlan, *EditSearch) {
			s := NewEditSearch(in, base)
			if cheapest {
				bounds := newEditBounds(in, m)
				s.skip = func(edits []Edit, limit float64) bool { return bounds.skips(edits, min(best, limit*(1+1e-12))) }
			}
			s.cheapest = cheapest
			return s.Run(singles, DefaultMaxEdits, nil), s
		}
		want, _ := run(false, 0)
		// Search's best plan before the edit search: Karpenter's, or
		// one a little dearer than the edits' cheapest.
		bests := []float64{PlanPerHour(base)}
		if len(want) > 0 {
			bests = append(bests, want[0].PerHour*1.02, want[0].PerHour*1.05)
		}
		for _, best := range bests {
			got, s := run(true, best)
			equal[name] += s.Equal
			t.Logf("%s, best %v: %d sets solved, %d skipped, %d decided as an earlier one", name, best, s.Tried, s.Skipped, s.Equal)
			if len(got) == 0 || len(want) == 0 {
				if len(got) != len(want) {
					t.Errorf("%s, best %v: %d plans, the whole run %d", name, best, len(got), len(want))
				}
				continue
			}
			checkFirstPlan(t, name, best, got, want)
		}
	}
	if equal["500 pods of 3.5 vCPUs"] == 0 {
		t.Errorf("no set took an earlier one's verdict on 500 pods of 3.5 vCPUs (%v)", equal)
	}
}

// Each verdict the edit search gives a set, solving it or taking an
// earlier set's, is the one a solve of the set alone at the same limit
// gives: a plan kept is that solve's plan (or, solved before at a higher
// limit, costs more than the limit); a set not kept is one that solve
// does not keep below the limit; a set kept as an earlier one costs what
// that solve's plan costs, or more than the limit when it stops.
// Checked over random workloads with random sets of narrowing edits asked
// for in random order at random limits, around the sets' own costs.
func TestEqualOffersVerdicts(t *testing.T) {
	n := 6
	if testing.Short() {
		n = 3
	}
	decided := 0
	for name, in := range equalInputs(t, n) {
		base := scheduling.Solve(in)
		rng := rand.New(rand.NewPCG(uint64(len(in.Pods)), 11))
		sets := equalSets(rng, NarrowingEdits(in, base, DefaultMaxEditCandidates), 30)
		if len(sets) == 0 {
			continue
		}
		costs := make([]float64, len(sets))
		for i, edits := range sets {
			trial, _ := ApplyEdits(in, edits)
			costs[i] = PlanPerHour(scheduling.Solve(trial))
		}
		s := NewEditSearch(in, base)
		s.cheapest = true
		for range 3 * len(sets) {
			i := rng.IntN(len(sets))
			limit := math.Inf(1)
			switch rng.IntN(4) {
			case 1:
				limit = costs[i] * (1 + (rng.Float64()-0.5)/10)
			case 2:
				limit = costs[rng.IntN(len(sets))]
			case 3:
				limit = costs[i]
			}
			p, o := s.tryOutcome(sets[i], limit, true)
			if o == tryKept {
				s.listed[EditsKey(sets[i])] = true
			}
			want, ok := NewEditSearch(in, base).tryBelow(sets[i], limit)
			what := fmt.Sprintf("%s: %q below %v", name, EditsKey(sets[i]), limit)
			switch o {
			case tryKept:
				// A plan solved before at a higher limit is kept
				// whatever it costs.
				if ok && !reflect.DeepEqual(p.Result, want.Result) || !ok && p.PerHour <= limit {
					t.Errorf("%s: kept at %v, alone kept %v at %v", what, p.PerHour, ok, want.PerHour)
				}
			case tryNotKept:
				if ok && want.PerHour <= limit {
					t.Errorf("%s: not kept, alone kept at %v", what, want.PerHour)
				}
			case tryKeptAsEarlier:
				decided++
				if ok && p.PerHour != want.PerHour || !ok && p.PerHour <= limit {
					t.Errorf("%s: kept as an earlier set at %v, alone kept %v at %v", what, p.PerHour, ok, want.PerHour)
				}
			}
		}
	}
	t.Logf("%d sets kept as an earlier one", decided)
	if decided == 0 {
		t.Error("no set was kept as an earlier one: the test weighs only solves")
	}
}
