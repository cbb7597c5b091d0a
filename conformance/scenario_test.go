package conformance

import (
	"context"
	"path/filepath"
	"strings"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/simulator"
)

// Specs about the controller loop's timing run as simulator scenarios under
// testdata/conformance/, one file per spec, each saying in a comment what
// it shows.

// runScenario runs testdata/conformance/<name>.yaml and returns its
// timeline; scenarios named *-spot run with spot-to-spot consolidation on,
// as upstream's consolidation suite does.
func runScenario(t *T, name string) []controller.Decision {
	t.Helper()
	sc, err := simulator.LoadScenario(filepath.Join("..", "testdata", "conformance", name+".yaml"))
	require.NoError(t, err)
	var cfg simulator.Config
	cfg.Consolidation.SpotToSpotConsolidation = strings.HasSuffix(name, "-spot")
	res, err := simulator.Run(context.Background(), sc, cfg)
	require.NoError(t, err)
	return res.Timeline
}

// firstOf is the first decision of kind, and whether there is one.
func firstOf(timeline []controller.Decision, kind string) (controller.Decision, bool) {
	for _, d := range timeline {
		if d.Kind == kind {
			return d, true
		}
	}
	return controller.Decision{}, false
}

// expectActedAfterValidation checks that the first launch or deletion of a
// consolidation scenario comes after the validation wait, with method, and
// that it replaces nodes.
func expectActedAfterValidation(t *T, name, method string, nodes int) {
	t.Helper()
	timeline := runScenario(t, name)
	launch, ok := firstOf(timeline, "launch")
	require.True(t, ok, "%+v", timeline)
	require.GreaterOrEqual(t, launch.At.Duration, 15*time.Second, "%+v", timeline)
	if d, ok := firstOf(timeline, "delete"); ok {
		require.Greater(t, d.At.Duration, launch.At.Duration, "%+v", timeline)
	}
	replace, ok := firstOf(timeline, "replace")
	require.True(t, ok, "%+v", timeline)
	require.Equal(t, method, replace.Method)
	require.Len(t, replace.Nodes, nodes)
}

// expectInvalidated checks that a scenario's command failed validation and
// that its nodes were neither deleted nor replaced for the rest of the run.
func expectInvalidated(name, method string) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		timeline := runScenario(t, name)
		d, ok := firstOf(timeline, "validation-failed")
		require.True(t, ok, "%+v", timeline)
		require.Equal(t, method, d.Method)
		for _, kind := range []string{"launch", "delete", "replace"} {
			_, acted := firstOf(timeline, kind)
			require.False(t, acted, "%s after the failed validation: %+v", kind, timeline)
		}
	}}
}

var _ = register("scenario",
	conformanceCase{Name: "emptiness-waits-for-validation", Run: func(t *T) {
		timeline := runScenario(t, "emptiness-validation-wait")
		d, ok := firstOf(timeline, "delete")
		require.True(t, ok, "%+v", timeline)
		require.Equal(t, "emptiness", d.Method)
		_, failed := firstOf(timeline, "delete-failed")
		require.False(t, failed, "%+v", timeline)
		// Polls run every 10 s; the first that sees the empty node decides,
		// and the node goes 15 s later.
		require.GreaterOrEqual(t, d.At.Duration, 15*time.Second, "%+v", timeline)
		require.LessOrEqual(t, d.At.Duration, 40*time.Second, "%+v", timeline)
	}},
	conformanceCase{Name: "consolidation-waits-for-validation", Run: func(t *T) {
		expectActedAfterValidation(t, "consolidation-validation-wait", "single-node-consolidation", 1)
	}},
	conformanceCase{Name: "multi-node-waits-for-validation", Run: func(t *T) {
		expectActedAfterValidation(t, "multi-node-validation-wait", "multi-node-consolidation", 2)
	}},
	conformanceCase{Name: "multi-node-spot-waits-for-validation", Run: func(t *T) {
		expectActedAfterValidation(t, "multi-node-validation-wait-spot", "multi-node-consolidation", 2)
	}},
	conformanceCase{Name: "churn-spares-one-empty-node", Run: func(t *T) {
		timeline := runScenario(t, "churn-spares-one-empty-node")
		bind, ok := firstOf(timeline, "bind")
		require.True(t, ok, "%+v", timeline)
		d, ok := firstOf(timeline, "delete")
		require.True(t, ok, "%+v", timeline)
		// The node the pod landed on stays; the other goes when the
		// command is validated, not a poll later.
		require.Len(t, d.Nodes, 1)
		require.NotEqual(t, bind.Nodes[0], d.Nodes[0])
		require.Equal(t, 25*time.Second, d.At.Duration, "%+v", timeline)
		_, failed := firstOf(timeline, "validation-failed")
		require.False(t, failed, "%+v", timeline)
	}},
	conformanceCase{Name: "pending-pod-joins-replacement", Run: func(t *T) {
		timeline := runScenario(t, "pending-pod-during-replacement")
		launches := 0
		for _, d := range timeline {
			if d.Kind == "launch" {
				launches++
			}
		}
		require.Equal(t, 1, launches, "%+v", timeline)
		launch, _ := firstOf(timeline, "launch")
		bind, ok := firstOf(timeline, "bind")
		require.True(t, ok, "%+v", timeline)
		require.Equal(t, launch.Nodes, bind.Nodes)
		require.Equal(t, 2, bind.Pods, "the moved pod and the new one")
	}},
	conformanceCase{Name: "single-node-after-failed-multi-node", Run: singleNodeAfterFailedMultiNode("multi-node-invalid-single-node-continues")},
	conformanceCase{Name: "single-node-after-failed-multi-node-spot", Run: singleNodeAfterFailedMultiNode("multi-node-invalid-single-node-continues-spot")},
	expectInvalidated("bigger-pod-invalidates-replace", "single-node-consolidation"),
	expectInvalidated("churn-invalidates-emptiness", "emptiness"),
	expectInvalidated("do-not-disrupt-invalidates-replace", "single-node-consolidation"),
	expectInvalidated("pdb-invalidates-replace", "single-node-consolidation"),
	expectInvalidated("do-not-disrupt-invalidates-delete", "multi-node-consolidation"),
	expectInvalidated("pdb-invalidates-delete", "multi-node-consolidation"),
)

// singleNodeAfterFailedMultiNode checks that single-node consolidation
// removes the third node in the pass where the multi-node command failed
// validation.
func singleNodeAfterFailedMultiNode(name string) func(t *T) {
	return func(t *T) {
		timeline := runScenario(t, name)
		failed, ok := firstOf(timeline, "validation-failed")
		require.True(t, ok, "%+v", timeline)
		require.Equal(t, "multi-node-consolidation", failed.Method)
		d, ok := firstOf(timeline, "delete")
		require.True(t, ok, "%+v", timeline)
		require.Equal(t, "single-node-consolidation", d.Method)
		require.Equal(t, []string{"ip-10-0-1-12.ec2.internal"}, d.Nodes)
		// Single-node decided in the pass that found the multi-node command
		// invalid, and its own command was validated 15 s later.
		require.Equal(t, failed.At.Duration+15*time.Second, d.At.Duration, "%+v", timeline)
		if launch, ok := firstOf(timeline, "launch"); ok {
			require.Greater(t, launch.At.Duration, d.At.Duration, "%+v", timeline)
		}
	}
}

var _ = register("scenario",
	conformanceCase{Name: "drift-replacement-not-duplicated", Run: func(t *T) {
		timeline := runScenario(t, "drift-replacement-no-duplicate")
		drifted, ok := firstOf(timeline, "drifted")
		require.True(t, ok, "%+v", timeline)
		replace, ok := firstOf(timeline, "replace")
		require.True(t, ok, "%+v", timeline)
		launches := 0
		for _, d := range timeline {
			if d.Kind == "launch" && d.At.Duration >= drifted.At.Duration && d.At.Duration <= replace.At.Duration {
				launches++
				require.True(t, strings.HasPrefix(d.Reason, "replacement for drift"), "a launch besides the replacement: %+v", d)
			}
		}
		require.Equal(t, 1, launches, "%+v", timeline)
	}},
)
