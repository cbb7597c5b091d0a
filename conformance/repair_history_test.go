package conformance

import (
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/repair"
)

// Upstream's repair_history_test.go and validation_test.go at v1.15.0: the
// reboot history that escalates a reboot to a replacement, and the
// checks of a provider's policy set. Karpenter keeps the history in memory
// by NodeClaim UID; karpsim takes it as Options.Reboots, by NodeClaim
// name, and repair.Record adds to it.

// rebootCluster is one node whose fault a reboot policy covers, eligible
// now, with the given reboot history.
func rebootCluster(t *T, history map[string][]time.Time) *cluster {
	c := repairCluster(t, rebootMe(nil, 48*time.Hour)...).pool(repairPool()).
		node(repairNode("bad", "default", initializedAgo(48*time.Hour), unhealthyFor("BadNode", "RebootMe", 11*time.Minute)))
	c.opts.Reboots = history
	return c
}

// actionOf is what the decision does with node "bad": "reboot", "replace"
// (delete), or "" for nothing.
func actionOf(t *T, d consolidation.Decision) string {
	t.Helper()
	if len(d.Commands) == 0 {
		return ""
	}
	cmd := repairCommand(t, d)
	if cmd.Reboot == "bad" {
		return "reboot"
	}
	require.Equal(t, []string{"bad"}, cmd.Delete)
	return "replace"
}

var _ = register("repair-history",
	conformanceCase{Name: "escalates-after-two", Run: func(t *T) {
		var history []time.Time
		require.Equal(t, "reboot", actionOf(t, rebootCluster(t, map[string][]time.Time{"bad": history}).evaluate()))
		history = repair.Record(history, now.Add(-2*time.Hour))
		require.Equal(t, "reboot", actionOf(t, rebootCluster(t, map[string][]time.Time{"bad": history}).evaluate()))
		history = repair.Record(history, now.Add(-time.Hour))
		d := rebootCluster(t, map[string][]time.Time{"bad": history}).evaluate()
		require.Equal(t, "replace", actionOf(t, d))
		require.Contains(t, d.Commands[0].Reason, "BadNode=False (reason RebootMe)", "the governing condition stays")
		require.Contains(t, verdictOf(d, "bad"), "escalates to a replacement")
	}},
	conformanceCase{Name: "resolving-records-nothing", Run: func(t *T) {
		history := map[string][]time.Time{"bad": {now.Add(-time.Hour)}}
		c := rebootCluster(t, history)
		for range 3 {
			require.Equal(t, "reboot", actionOf(t, c.evaluate()))
		}
		require.Len(t, history["bad"], 1, "an evaluation does not write the history")
	}},
	conformanceCase{Name: "keyed-by-nodeclaim", Run: func(t *T) {
		original := repair.Record(repair.Record(nil, now.Add(-2*time.Hour)), now.Add(-time.Hour))
		c := rebootCluster(t, map[string][]time.Time{"original": original})
		require.Equal(t, "reboot", actionOf(t, c.evaluate()), "a successor NodeClaim starts afresh")
	}},
	conformanceCase{Name: "replacement-kept-and-healthy-ignored", Run: func(t *T) {
		history := map[string][]time.Time{"bad": repair.Record(repair.Record(nil, now.Add(-2*time.Hour)), now.Add(-time.Hour))}
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", badFor(31*time.Minute)))
		c.opts.Reboots = history
		d := c.evaluate()
		require.Equal(t, "replace", actionOf(t, d))
		require.NotContains(t, verdictOf(d, "bad"), "escalates")
		healthy := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default"))
		healthy.opts.Reboots = history
		require.Empty(t, actionOf(t, healthy.evaluate()))
	}},
	conformanceCase{Name: "sliding-window", Run: func(t *T) {
		// Reboots 25 and 12 hours ago: one is within the day.
		history := repair.Record(repair.Record(nil, now.Add(-25*time.Hour)), now.Add(-12*time.Hour))
		require.Equal(t, "reboot", actionOf(t, rebootCluster(t, map[string][]time.Time{"bad": history}).evaluate()))
		history = repair.Record(history, now)
		require.Equal(t, "replace", actionOf(t, rebootCluster(t, map[string][]time.Time{"bad": history}).evaluate()))
	}},
	conformanceCase{Name: "record-bounded", Run: func(t *T) {
		var history []time.Time
		for range 32 {
			history = repair.Record(history, now)
		}
		require.Len(t, history, repair.RebootsBeforeReplacement)
	}},
)

var _ = register("repair-validation",
	conformanceCase{Name: "valid-policies-compile", Run: func(t *T) {
		_, err := repair.Compile([]repair.Policy{badNode})
		require.NoError(t, err)
		for _, reboot := range []bool{false, true} {
			_, err := repair.Compile((&provider.AWS{RebootForRepair: reboot}).RepairPolicies())
			require.NoError(t, err, "the AWS provider's policies, RebootForRepair=%v", reboot)
		}
	}},
	conformanceCase{Name: "no-policies-refused", Run: func(t *T) {
		_, err := repair.Compile(nil)
		require.ErrorIs(t, err, repair.ErrNoPolicies)
		require.EqualError(t, err, "node repair requires the cloud provider to define repair policies, but it defines none")
	}},
	conformanceCase{Name: "invalid-set-refused", Run: func(t *T) {
		_, err := repair.Compile([]repair.Policy{
			{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, ReasonRegex: "[", Action: repair.Replace},
			{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, Action: repair.Replace},
		})
		require.ErrorContains(t, err, "invalid repair policies")
		require.ErrorContains(t, err, `reasonRegex "["`)
	}},
)
