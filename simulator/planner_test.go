package simulator

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

func optimizingPlanner(in scheduling.Input) (scheduling.Result, error) {
	return optimize.Solve(in, optimize.SolveOptions{})
}

// The optimizing planner as Config.Planner, for provisioning and
// consolidation's replacements: over every scenario of testdata/scenarios
// the run costs no more than with Karpenter's planner, and over
// optimize-batch (awkward pods Karpenter packs onto the largest types),
// optimize-consolidation (nodes left mostly empty, which multi-node
// consolidation replaces three by three) and capacity-buffer strictly
// less: the saving is measured over the run, not over one batch. capacity-buffer cost more (0.1854
// against 0.1782) while the planner also planned passes of the buffer's
// virtual pods alone: it bought the room a node per virtual pod, and each
// pod that took the room then ran on a node of its own; those passes are
// Karpenter's now (controller.Controller.plan).
func TestOptimizingPlannerSavesOverTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every scenario twice")
	}
	files, err := filepath.Glob("../testdata/scenarios/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	var cheaper, dearer []string
	for _, file := range files {
		sc, err := LoadScenario(file)
		require.NoError(t, err)
		karpenter, err := Run(context.Background(), sc, Config{CheckInvariants: true})
		require.NoError(t, err, file)
		optimized, err := Run(context.Background(), sc, Config{Planner: optimizingPlanner, CheckInvariants: true})
		require.NoError(t, err, file)
		if optimized.TotalCost > karpenter.TotalCost {
			dearer = append(dearer, filepath.Base(file))
		}
		assert.Equal(t, karpenter.PendingTime.StillPending, optimized.PendingTime.StillPending, "%s: as many pods left pending", file)
		if optimized.TotalCost < karpenter.TotalCost {
			cheaper = append(cheaper, filepath.Base(file))
		}
	}
	assert.Subset(t, cheaper, []string{"optimize-batch.yaml", "optimize-consolidation.yaml", "capacity-buffer.yaml"}, "the optimizing planner saves on the scenarios made for it")
	assert.Empty(t, dearer, "the scenarios where the optimizing planner costs more over the run")
	t.Logf("cheaper with the optimizing planner: %v", cheaper)
}

// A planner that fails leaves the pass to Karpenter's: the run records why
// and costs what Karpenter's costs.
func TestFailingPlannerFallsBackToKarpenters(t *testing.T) {
	sc, err := LoadScenario("../testdata/scenarios/default.yaml")
	require.NoError(t, err)
	karpenter, err := Run(context.Background(), sc, Config{CheckInvariants: true})
	require.NoError(t, err)
	failing := func(scheduling.Input) (scheduling.Result, error) {
		return scheduling.Result{}, errors.New("out of ideas")
	}
	res, err := Run(context.Background(), sc, Config{Planner: failing, CheckInvariants: true})
	require.NoError(t, err)
	assert.Equal(t, karpenter.TotalCost, res.TotalCost)
	i := slices.IndexFunc(res.Timeline, func(d Decision) bool { return d.Kind == KindPlannerFailed })
	require.GreaterOrEqual(t, i, 0, "a planner-failed decision is recorded")
	assert.Contains(t, res.Timeline[i].Reason, "out of ideas")
}

// A provisioning pass that places only a CapacityBuffer's virtual pods is
// Karpenter's: the planner sees passes with real pods only (and
// consolidation's simulations, which always move real pods).
func TestPlannerSkipsPassesOfVirtualPodsAlone(t *testing.T) {
	sc, err := LoadScenario("../testdata/scenarios/capacity-buffer.yaml")
	require.NoError(t, err)
	calls, virtual := 0, 0
	counting := func(in scheduling.Input) (scheduling.Result, error) {
		calls++
		if !slices.ContainsFunc(in.Pods, func(p *corev1.Pod) bool { return !apis.IsBufferPod(p) }) {
			virtual++
		}
		return optimizingPlanner(in)
	}
	res, err := Run(context.Background(), sc, Config{Planner: counting, CheckInvariants: true})
	require.NoError(t, err)
	require.NoError(t, res.InvariantError())
	assert.Positive(t, calls)
	assert.Zero(t, virtual, "passes of virtual pods alone given to the planner")
	launches := 0
	for _, d := range res.Timeline {
		if d.Kind == KindLaunch && strings.Contains(d.Reason, "provisioning: 0 pending pods and") {
			launches++
		}
	}
	assert.Positive(t, launches, "the scenario has passes of virtual pods alone")
}
