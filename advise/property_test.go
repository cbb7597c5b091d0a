package advise_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/internal/scenariogen"
	"github.com/karpsim/karpsim/invariants"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Over random clusters (several NodePools with weights, families,
// capacity types, limits and taints; pods with selectors, spreads,
// affinities and anti-affinities; existing nodes), every piece of advice,
// solved again from its NodePools alone, schedules every pod Karpenter
// schedules without it, keeps every invariant of a plan, and costs what
// the advice says, less than Karpenter's plan; and every advised NodePool
// passes the API's validation.
func TestAdviceNeverLeavesAPodPending(t *testing.T) {
	seeds := 16
	if testing.Short() {
		seeds = 4
	}
	advised := 0
	for seed := range uint64(seeds) {
		sc := scenariogen.Generate(seed+1, false).Scenario()
		set, err := manifests.Decode("generated", []byte(sc.Inline))
		require.NoError(t, err, "seed %d", seed+1)
		snap, err := snapshot.FromSet(set, snapshot.Options{})
		require.NoError(t, err, "seed %d", seed+1)
		in := snap.Input(scheduling.Options{})
		base := scheduling.Solve(in)
		pending := map[string]bool{}
		for _, u := range base.Unschedulable {
			pending[u.Pod] = true
		}
		r, err := advise.Advise(in, advise.Options{MaxCandidates: 24})
		require.NoError(t, err, "seed %d", seed+1)
		for _, a := range r.Advice {
			advised++
			for _, c := range a.NodePools {
				require.NoError(t, c.After.Validate(), "seed %d, %v: the advised NodePool is valid", seed+1, a.Edits)
			}
			trial := in
			trial.NodePools = nil
			for _, np := range in.NodePools {
				for _, c := range a.NodePools {
					if c.Before.Name == np.NodePool.Name {
						np.NodePool = c.After
					}
				}
				trial.NodePools = append(trial.NodePools, np)
			}
			again := scheduling.Solve(trial)
			require.GreaterOrEqual(t, again.Summary.ScheduledPods, base.Summary.ScheduledPods, "seed %d, %v", seed+1, a.Edits)
			for _, u := range again.Unschedulable {
				require.True(t, pending[u.Pod], "seed %d, %v: %s would stay pending: %s", seed+1, a.Edits, u.Pod, u.Reason)
			}
			require.Empty(t, invariants.CheckPlan(trial, again), "seed %d, %v", seed+1, a.Edits)
			require.InDelta(t, a.PerHour, optimize.PlanPerHour(again), 1e-9, "seed %d, %v", seed+1, a.Edits)
			require.Less(t, a.PerHour, r.KarpenterPerHour, "seed %d, %v", seed+1, a.Edits)
		}
	}
	t.Logf("%d pieces of advice checked over %d clusters", advised, seeds)
}
