package simulator

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

func optimizingPlanner(in scheduling.Input) (scheduling.Result, error) {
	return optimize.Solve(in, optimize.SolveOptions{})
}

// dearerOverTheRun are the scenarios where the optimizing planner, the
// cheapest plan for each batch, costs more over the whole run than
// Karpenter's: in capacity-buffer it opens small nodes for the buffer's
// virtual pods apart from the real ones, and as the real pods land where
// the kube-scheduler puts them, buffer-only nodes empty, are deleted and are
// launched again (0.1854 against 0.1782). A planner that looks at one batch
// at a time cannot see that; the list is asserted so that a change shows.
var dearerOverTheRun = []string{"capacity-buffer.yaml"}

// The optimizing planner as Config.Planner: over every scenario of
// testdata/scenarios but dearerOverTheRun the run costs no more than with
// Karpenter's planner, and over optimize-batch (awkward pods Karpenter
// packs onto the largest types) strictly less: the saving is measured over
// the run, consolidation included, not over one batch.
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
	assert.Contains(t, cheaper, "optimize-batch.yaml", "the optimizing planner saves on the scenario made for it")
	assert.Equal(t, dearerOverTheRun, dearer, "the scenarios where the optimizing planner costs more over the run")
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
