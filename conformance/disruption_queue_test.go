package conformance

import (
	"slices"
	"strings"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/controller"
)

// Upstream's orchestration-queue specs drive the queue by hand: a command
// started, its replacements made initialized or not, the clock stepped.
// karpsim's queue is the loop's executing commands (package controller);
// each case runs a scenario of testdata/conformance/ in which a drift
// command goes through it, and reads the timeline.

// readyAt is when the timeline saw node initialize.
func readyAt(t *T, timeline []controller.Decision, node string) time.Duration {
	t.Helper()
	for _, d := range timeline {
		if d.Kind == controller.KindReady && slices.Contains(d.Nodes, node) {
			return d.At.Duration
		}
	}
	t.Fatalf("node %s never initialized: %+v", node, timeline)
	return 0
}

// expectReplacedWhenReady checks that the scenario's drift command deleted
// its candidate exactly when the last of its replacements initialized, and
// not before; it returns the replacements' ready times.
func expectReplacedWhenReady(t *T, name string, replacements int) []time.Duration {
	t.Helper()
	timeline := runScenario(t, name)
	replace, ok := firstOf(timeline, controller.KindReplace)
	require.True(t, ok, "%+v", timeline)
	require.Equal(t, "drift", replace.Method)
	require.Len(t, replace.Replacements, replacements, "%+v", replace)
	var ready []time.Duration
	for _, r := range replace.Replacements {
		ready = append(ready, readyAt(t, timeline, r))
	}
	require.Equal(t, slices.Max(ready), replace.At.Duration, "the candidate goes when its last replacement initializes: %+v", timeline)
	for _, d := range timeline {
		if d.At.Duration < replace.At.Duration && (d.Kind == controller.KindDelete || d.Kind == controller.KindDisruptionAborted) {
			t.Fatalf("%s before the replacements initialized: %+v", d.Kind, timeline)
		}
	}
	return ready
}

func retryCase(name string, queued int, want time.Duration) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		require.Equal(t, want, controller.CommandTimeout(queued))
	}}
}

var _ = register("queue",
	conformanceCase{Name: "waits-for-replacement", Run: func(t *T) {
		expectReplacedWhenReady(t, "drift-replacement-no-duplicate", 1)
	}},
	conformanceCase{Name: "waits-for-every-replacement", Run: func(t *T) {
		ready := expectReplacedWhenReady(t, "queue-two-replacements", 2)
		require.NotEqual(t, ready[0], ready[1], "the replacements must initialize apart for the case to tell")
	}},
	conformanceCase{Name: "gives-up-after-timeout", Run: func(t *T) {
		timeline := runScenario(t, "queue-timeout")
		drifted, ok := firstOf(timeline, controller.KindDrifted)
		require.True(t, ok, "%+v", timeline)
		aborted, ok := firstOf(timeline, controller.KindDisruptionAborted)
		require.True(t, ok, "the command was never given up: %+v", timeline)
		require.Equal(t, drifted.Nodes, aborted.Nodes)
		require.True(t, strings.Contains(aborted.Reason, "not initialized"), "%+v", aborted)
		// The replacement launched with the drift; ten minutes later the
		// next disruption poll (every 10 s) gives the command up.
		started := drifted.At.Duration
		require.Greater(t, aborted.At.Duration, started+controller.CommandTimeoutMin, "%+v", timeline)
		require.LessOrEqual(t, aborted.At.Duration, started+controller.CommandTimeoutMin+10*time.Second, "%+v", timeline)
		for _, d := range timeline {
			if d.At.Duration <= aborted.At.Duration && (d.Kind == controller.KindReplace || d.Kind == controller.KindDelete) {
				t.Fatalf("the candidate went before the timeout: %+v", timeline)
			}
		}
	}},
	conformanceCase{Name: "two-commands-finish-on-their-own", Run: func(t *T) {
		timeline := runScenario(t, "queue-two-commands")
		var replaces []controller.Decision
		for _, d := range timeline {
			if d.Kind == controller.KindReplace {
				replaces = append(replaces, d)
			}
		}
		require.Len(t, replaces, 2, "%+v", timeline)
		// Both commands were in the queue at once: the second started
		// before the first finished.
		var second controller.Decision
		ok := false
		for _, d := range timeline {
			if d.Kind == controller.KindLaunch && slices.Contains(d.Nodes, replaces[1].Replacements[0]) {
				second, ok = d, true
			}
		}
		require.True(t, ok)
		require.Less(t, second.At.Duration, replaces[0].At.Duration, "the commands never overlapped: %+v", timeline)
		for _, r := range replaces {
			require.Len(t, r.Replacements, 1)
			require.Equal(t, readyAt(t, timeline, r.Replacements[0]), r.At.Duration, "a command finishes when its own replacement initializes: %+v", timeline)
		}
		require.NotEqual(t, replaces[0].At.Duration, replaces[1].At.Duration, "the replacements must initialize apart for the case to tell")
	}},
	retryCase("retry-100-commands", 100, 10*time.Minute),
	retryCase("retry-4000-commands", 4000, 10*time.Minute),
	retryCase("retry-10000-commands", 10000, 13*time.Minute+20*time.Second),
	retryCase("retry-40000-commands", 40000, 53*time.Minute+20*time.Second),
	retryCase("retry-80000-commands", 80000, time.Hour),
	retryCase("retry-100000-commands", 100000, time.Hour),
)
