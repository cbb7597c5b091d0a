package conformance

import (
	"fmt"
	"strings"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/repair"
)

// Upstream's repair_test.go at v1.15.0: node repair as a disruption method
// (the NodeRepair gate). Its suite runs a controller holding only the
// Repair method; these cases evaluate with NodeRepair set, so the other
// methods run after it, and assert only on what Repair returns (every
// command here is the repair method's). Upstream steps a fake clock after
// marking a node unhealthy; here the condition's lastTransitionTime lies
// that long before now.

// badNode is the suite's default policy: BadNode=False, 30 minutes, replace.
var badNode = repair.Policy{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, Toleration: 30 * time.Minute, Action: repair.Replace}

func durationPtr(d time.Duration) *time.Duration { return &d }

// rebootMe is the suite's reboot policy for the reason RebootMe, with its
// fallback replacing after fallback.
func rebootMe(bound *time.Duration, fallback time.Duration) []repair.Policy {
	return []repair.Policy{
		{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, ReasonRegex: "RebootMe", Toleration: 10 * time.Minute, Action: repair.Reboot, TerminationGracePeriod: bound},
		{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, Toleration: fallback, Action: repair.Replace},
	}
}

// repairPool is the suite's NodePool "default" with consolidation off:
// upstream's controller runs Repair alone, and repair does not read
// consolidateAfter.
func repairPool(opts ...poolOption) *apis.NodePool {
	return nodePool("default", append([]poolOption{consolidateAfter("Never")}, opts...)...)
}

// repairCluster is a cluster evaluated with node repair on under the
// policies (badNode when none are given), one NodePool "default".
func repairCluster(t *T, policies ...repair.Policy) *cluster {
	t.Helper()
	if len(policies) == 0 {
		policies = []repair.Policy{badNode}
	}
	m, err := repair.Compile(policies)
	require.NoError(t, err)
	c := &cluster{opts: consolidation.Options{NodeRepair: m}}
	return c
}

// repairNode is upstream's test node: an initialized on-demand node of the
// pool with its node object (created when it initialized, an hour ago
// unless the options say otherwise), and the options' conditions.
func repairNode(name, pool string, opts ...nodeOption) *consolidation.Node {
	n := managedNode(name, pool, cheapestOnDemand, opts...)
	if n.Health == nil {
		n.Health = &consolidation.NodeHealth{}
	}
	n.Health.Created = n.InitializedAt
	return n
}

// unhealthyFor adds a False condition of the type and reason that turned
// so d before now.
func unhealthyFor(condition corev1.NodeConditionType, reason string, d time.Duration) nodeOption {
	return func(n *consolidation.Node) {
		if n.Health == nil {
			n.Health = &consolidation.NodeHealth{}
		}
		n.Health.Conditions = append(n.Health.Conditions, corev1.NodeCondition{Type: condition, Status: corev1.ConditionFalse, Reason: reason,
			LastTransitionTime: metav1.NewTime(now.Add(-d))})
	}
}

// badFor is the suite's markUnhealthy(node, "BadNode") d before now.
func badFor(d time.Duration) nodeOption { return unhealthyFor("BadNode", "", d) }

// registeredOnly is upstream's registerNode: the node registered but never
// initialized.
func registeredOnly(n *consolidation.Node) {
	n.Node.Initialized = false
	delete(n.Node.Labels, apis.LabelNodeInitialized)
	n.Node.Labels[apis.LabelNodeRegistered] = "true"
}

// rebootFinishedAgo gives the NodeClaim a Rebooting=False condition: its
// last reboot finished d before now.
func rebootFinishedAgo(d time.Duration) nodeOption {
	return func(n *consolidation.Node) {
		n.NodeClaim.Status.Conditions = append(n.NodeClaim.Status.Conditions, metav1.Condition{Type: "Rebooting", Status: metav1.ConditionFalse,
			Reason: "RebootSucceeded", Message: "node rebooted and rejoined the cluster", LastTransitionTime: metav1.NewTime(now.Add(-d))})
	}
}

// healthyNodes adds n healthy nodes of the pool, named healthy-0…
func (c *cluster) healthyNodes(n int, pool string) *cluster {
	for i := range n {
		c.node(repairNode(fmt.Sprintf("healthy-%d", i), pool))
	}
	return c
}

// repairCommand is the decision's only command, which must be repair's.
func repairCommand(t *T, d consolidation.Decision) consolidation.Command {
	t.Helper()
	require.Len(t, d.Commands, 1, "%+v", d.Candidates)
	require.Equal(t, consolidation.MethodRepair, d.Commands[0].Method, "%+v", d.Commands[0])
	return d.Commands[0]
}

// noRepair checks the decision repairs nothing: no command of the repair
// method (the other methods may still act).
func noRepair(t *T, d consolidation.Decision) {
	t.Helper()
	for _, c := range d.Commands {
		require.NotEqual(t, consolidation.MethodRepair, c.Method, "%+v", c)
	}
}

// verdictOf is the reason the decision gives for the node.
func verdictOf(d consolidation.Decision, node string) string {
	for _, v := range d.Candidates {
		if v.Node == node {
			return v.Reason
		}
	}
	return ""
}

func boundOf(t *T, c consolidation.Command) time.Duration {
	t.Helper()
	require.NotNil(t, c.TerminationGracePeriod, "%+v", c)
	return c.TerminationGracePeriod.Duration
}

var _ = register("repair",
	conformanceCase{Name: "prespins-replacement", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", withPods(pod("p", "")), badFor(31*time.Minute)))
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, []string{"bad"}, cmd.Delete)
		require.Len(t, cmd.Replacements, 1, "replace, not a bare delete")
		require.True(t, strings.HasPrefix(cmd.Reason, "Unhealthy/replace: BadNode=False"), cmd.Reason)
	}},
	conformanceCase{Name: "empty-node-deleted", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", badFor(31*time.Minute)))
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, []string{"bad"}, cmd.Delete)
		require.Empty(t, cmd.Replacements)
		require.True(t, strings.HasPrefix(cmd.Reason, "Unhealthy/delete:"), cmd.Reason)
	}},
	conformanceCase{Name: "reboot-in-place", Run: func(t *T) {
		c := repairCluster(t, rebootMe(durationPtr(5*time.Minute), 30*time.Minute)...).pool(repairPool()).
			node(repairNode("bad", "default", unhealthyFor("BadNode", "RebootMe", 11*time.Minute)))
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, "bad", cmd.Reboot)
		require.Empty(t, cmd.Delete, "a reboot deletes nothing")
		require.Empty(t, cmd.Replacements)
		require.Equal(t, 5*time.Minute, boundOf(t, cmd))
		require.True(t, strings.HasPrefix(cmd.Reason, "Unhealthy/reboot:"), cmd.Reason)
		// The reboot is committed: the next pass does not commit it again.
		rebootingCondition("RebootRequested")(c.Nodes[0])
		noRepair(t, c.evaluate())
	}},
	conformanceCase{Name: "reboot-unbounded", Run: func(t *T) {
		c := repairCluster(t, rebootMe(nil, 30*time.Minute)...).pool(repairPool()).
			node(repairNode("bad", "default", unhealthyFor("BadNode", "RebootMe", 11*time.Minute)))
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, "bad", cmd.Reboot)
		require.Nil(t, cmd.TerminationGracePeriod, "neither the policy nor the NodeClaim bounds the drain")
	}},
	conformanceCase{Name: "reboot-inherits-nodeclaim-bound", Run: func(t *T) {
		c := repairCluster(t, rebootMe(nil, 30*time.Minute)...).pool(repairPool()).
			node(repairNode("bad", "default", terminationGracePeriod(7*time.Minute), unhealthyFor("BadNode", "RebootMe", 11*time.Minute)))
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, "bad", cmd.Reboot)
		require.Equal(t, 7*time.Minute, boundOf(t, cmd))
	}},
	conformanceCase{Name: "reboot-unbounded-ignores-stale-bound", Run: func(t *T) {
		stale := func(n *consolidation.Node) {
			n.NodeClaim.Annotations = map[string]string{"karpenter.sh/reboot-termination-grace-period": "5m0s"}
		}
		c := repairCluster(t, rebootMe(nil, 30*time.Minute)...).pool(repairPool()).
			node(repairNode("bad", "default", stale, unhealthyFor("BadNode", "RebootMe", 11*time.Minute)))
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, "bad", cmd.Reboot)
		require.Nil(t, cmd.TerminationGracePeriod, "a previous reboot's bound does not carry over")
	}},
	conformanceCase{Name: "reboot-escalates-after-two", Run: func(t *T) {
		// Two reboots committed 33 and 22 minutes ago succeeded; the fault
		// came back 11 minutes ago, when the last reboot finished.
		c := repairCluster(t, rebootMe(nil, 48*time.Hour)...).pool(repairPool()).
			node(repairNode("bad", "default", rebootFinishedAgo(11*time.Minute), unhealthyFor("BadNode", "RebootMe", 11*time.Minute)))
		c.opts.Reboots = map[string][]time.Time{"bad": {now.Add(-33 * time.Minute), now.Add(-22 * time.Minute)}}
		cmd := repairCommand(t, c.evaluate())
		require.Empty(t, cmd.Reboot, "a third occurrence replaces")
		require.Equal(t, []string{"bad"}, cmd.Delete)
	}},
	conformanceCase{Name: "reboot-again-after-window", Run: func(t *T) {
		c := repairCluster(t, rebootMe(nil, 48*time.Hour)...).pool(repairPool()).
			node(repairNode("bad", "default", initializedAgo(30*time.Hour), rebootFinishedAgo(11*time.Minute), unhealthyFor("BadNode", "RebootMe", 11*time.Minute)))
		c.opts.Reboots = map[string][]time.Time{"bad": {now.Add(-25*time.Hour - 33*time.Minute), now.Add(-25*time.Hour - 22*time.Minute)}}
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, "bad", cmd.Reboot, "reboots older than 24h no longer count")
	}},
	conformanceCase{Name: "within-toleration", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", badFor(10*time.Minute)))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "eligible in 20m0s")
	}},
	conformanceCase{Name: "reason-specific-over-fallback", Run: func(t *T) {
		c := repairCluster(t,
			repair.Policy{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, ReasonRegex: `^FastFailure$`, Toleration: 10 * time.Minute, Action: repair.Replace},
			badNode).pool(repairPool()).node(repairNode("bad", "default", unhealthyFor("BadNode", "FastFailure", 11*time.Minute)))
		repairCommand(t, c.evaluate())
	}},
	conformanceCase{Name: "reason-change-keeps-condition-age", Run: func(t *T) {
		policies := []repair.Policy{
			{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, ReasonRegex: `^ImmediateReason$`, Toleration: 30 * time.Minute, Action: repair.Replace},
			{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, Toleration: 2 * time.Hour, Action: repair.Replace},
		}
		// The condition turned False when the node was created, an hour ago.
		c := repairCluster(t, policies...).pool(repairPool()).node(repairNode("bad", "default", unhealthyFor("BadNode", "UnknownReason", time.Hour)))
		noRepair(t, c.evaluate())
		c.Nodes[0].Health.Conditions[0].Reason = "ImmediateReason"
		repairCommand(t, c.evaluate())
	}},
	conformanceCase{Name: "waiting-specific-suppresses-fallback", Run: func(t *T) {
		c := repairCluster(t,
			repair.Policy{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, ReasonRegex: `FastFailure`, Toleration: 30 * time.Minute, Action: repair.Replace},
			repair.Policy{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, Action: repair.Replace}).
			pool(repairPool()).node(repairNode("bad", "default", unhealthyFor("BadNode", "PrefixFastFailureSuffix", 10*time.Minute)))
		noRepair(t, c.evaluate())
	}},
	conformanceCase{Name: "unknown-reason-uses-fallback", Run: func(t *T) {
		c := repairCluster(t,
			repair.Policy{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, ReasonRegex: `^KnownFailure$`, Toleration: 10 * time.Minute, Action: repair.Replace},
			badNode).pool(repairPool()).node(repairNode("bad", "default", unhealthyFor("BadNode", "UnknownFailure", 31*time.Minute)))
		repairCommand(t, c.evaluate())
	}},
	conformanceCase{Name: "do-not-repair-blocks", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).
			node(repairNode("bad", "default", nodeAnnotation(apis.AnnotationDoNotRepair, "true"), badFor(31*time.Minute)))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), `blocked by the karpenter.sh/do-not-repair: "true" annotation`)
		// Reported again on the next pass.
		require.Contains(t, verdictOf(c.evaluate(), "bad"), "do-not-repair")
	}},
	conformanceCase{Name: "do-not-repair-blocks-reboot", Run: func(t *T) {
		c := repairCluster(t, rebootMe(nil, 30*time.Minute)...).pool(repairPool()).
			node(repairNode("bad", "default", nodeAnnotation(apis.AnnotationDoNotRepair, "true"), unhealthyFor("BadNode", "RebootMe", 11*time.Minute)))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "do-not-repair")
	}},
	conformanceCase{Name: "do-not-repair-before-unbounded-drain", Run: func(t *T) {
		blocking := pod("blocking", "", podAnnotation(apis.AnnotationDoNotDisrupt, "true"))
		c := repairCluster(t).pool(repairPool()).
			node(repairNode("bad", "default", nodeAnnotation(apis.AnnotationDoNotRepair, "true"), withPods(blocking), badFor(31*time.Minute)))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "do-not-repair")
		require.NotContains(t, verdictOf(d, "bad"), "terminationGracePeriod")
	}},
	conformanceCase{Name: "do-not-repair-quiet-within-toleration", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).
			node(repairNode("bad", "default", nodeAnnotation(apis.AnnotationDoNotRepair, "true"), badFor(0)))
		d := c.evaluate()
		noRepair(t, d)
		require.NotContains(t, verdictOf(d, "bad"), "do-not-repair")
		require.Contains(t, verdictOf(d, "bad"), "eligible in 30m0s")
	}},
	conformanceCase{Name: "do-not-disrupt-node-still-repaired", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).
			node(repairNode("bad", "default", nodeAnnotation(apis.AnnotationDoNotDisrupt, "true"), badFor(31*time.Minute)))
		repairCommand(t, c.evaluate())
	}},
	conformanceCase{Name: "do-not-repair-false-repaired", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).
			node(repairNode("bad", "default", nodeAnnotation(apis.AnnotationDoNotRepair, "false"), badFor(31*time.Minute)))
		repairCommand(t, c.evaluate())
	}},
	conformanceCase{Name: "zero-budget-blocks", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool(budgets(nodes("0")))).node(repairNode("bad", "default", badFor(31*time.Minute)))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "allows no Unhealthy disruption")
	}},
	conformanceCase{Name: "budget-lifts-full-decision", Run: func(t *T) {
		policy := badNode
		policy.TerminationGracePeriod = durationPtr(5 * time.Minute)
		c := repairCluster(t, policy).pool(repairPool(budgets(nodes("0")))).node(repairNode("bad", "default", badFor(31*time.Minute)))
		noRepair(t, c.evaluate())
		c.NodePools[0].NodePool.Spec.Disruption.Budgets = []apis.Budget{nodes("100%")}
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, 5*time.Minute, boundOf(t, cmd))
	}},
	conformanceCase{Name: "unhealthy-share-stops-pool", Run: func(t *T) {
		// Ten nodes: one eligible, two just turned unhealthy. Three of ten
		// is more than 20%.
		c := repairCluster(t).pool(repairPool()).
			node(repairNode("bad-0", "default", badFor(31*time.Minute))).
			node(repairNode("bad-1", "default", badFor(0))).
			node(repairNode("bad-2", "default", badFor(0))).
			healthyNodes(7, "default")
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad-0"), "more than 20% of NodePool default's nodes are unhealthy (3 of 10)")
	}},
	conformanceCase{Name: "unhealthy-share-rounds-up", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", badFor(31*time.Minute))).healthyNodes(2, "default")
		require.Equal(t, []string{"bad"}, repairCommand(t, c.evaluate()).Delete)
	}},
	conformanceCase{Name: "higher-priority-first", Run: func(t *T) {
		c := repairCluster(t,
			repair.Policy{ConditionType: "LowPriority", ConditionStatus: corev1.ConditionFalse, Toleration: 30 * time.Minute, Priority: 10, Action: repair.Replace},
			repair.Policy{ConditionType: "HighPriority", ConditionStatus: corev1.ConditionFalse, ReasonRegex: ".*", Toleration: 30 * time.Minute, Priority: 90, Action: repair.Replace}).
			pool(repairPool()).healthyNodes(8, "default").
			node(repairNode("a-low", "default", unhealthyFor("LowPriority", "", 31*time.Minute))).
			node(repairNode("b-high", "default", unhealthyFor("HighPriority", "", 31*time.Minute)))
		require.Equal(t, []string{"b-high"}, repairCommand(t, c.evaluate()).Delete)
	}},
	conformanceCase{Name: "tie-broken-by-name", Run: func(t *T) {
		// Two nodes broke at the same moment, with equal costs: the name
		// that sorts first goes, whichever is listed first.
		c := repairCluster(t).pool(repairPool()).
			node(repairNode("node-b", "default", badFor(31*time.Minute))).
			node(repairNode("node-a", "default", badFor(31*time.Minute))).
			healthyNodes(8, "default")
		require.Equal(t, []string{"node-a"}, repairCommand(t, c.evaluate()).Delete)
	}},
	conformanceCase{Name: "non-matching-specific-not-scored", Run: func(t *T) {
		c := repairCluster(t,
			repair.Policy{ConditionType: "Diagnostic", ConditionStatus: corev1.ConditionFalse, ReasonRegex: "^Critical$", Toleration: 30 * time.Minute, Priority: 90, Action: repair.Replace},
			repair.Policy{ConditionType: "Diagnostic", ConditionStatus: corev1.ConditionFalse, Toleration: 30 * time.Minute, Priority: 10, Action: repair.Replace},
			repair.Policy{ConditionType: "MediumPriority", ConditionStatus: corev1.ConditionFalse, ReasonRegex: ".*", Toleration: 30 * time.Minute, Priority: 50, Action: repair.Replace}).
			pool(repairPool()).healthyNodes(8, "default").
			node(repairNode("a-fallback", "default", unhealthyFor("Diagnostic", "Unknown", 31*time.Minute))).
			node(repairNode("b-medium", "default", unhealthyFor("MediumPriority", "", 31*time.Minute)))
		require.Equal(t, []string{"b-medium"}, repairCommand(t, c.evaluate()).Delete)
	}},
	conformanceCase{Name: "waiting-policy-not-scored", Run: func(t *T) {
		c := repairCluster(t,
			repair.Policy{ConditionType: "Diagnostic", ConditionStatus: corev1.ConditionFalse, ReasonRegex: "^failure$", Toleration: time.Hour, Priority: 100, Action: repair.Replace},
			repair.Policy{ConditionType: "Diagnostic", ConditionStatus: corev1.ConditionFalse, ReasonRegex: "failure", Action: repair.Replace},
			repair.Policy{ConditionType: "Diagnostic", ConditionStatus: corev1.ConditionFalse, Action: repair.Replace},
			repair.Policy{ConditionType: "MediumPriority", ConditionStatus: corev1.ConditionFalse, ReasonRegex: ".*", Priority: 50, Action: repair.Replace}).
			pool(repairPool()).healthyNodes(8, "default").
			node(repairNode("a-waiting", "default", unhealthyFor("Diagnostic", "failure", 0))).
			node(repairNode("b-medium", "default", unhealthyFor("MediumPriority", "", 0)))
		require.Equal(t, []string{"b-medium"}, repairCommand(t, c.evaluate()).Delete)
	}},
	conformanceCase{Name: "governing-condition-by-reason", Run: func(t *T) {
		c := repairCluster(t,
			repair.Policy{ConditionType: "Diagnostic", ConditionStatus: corev1.ConditionFalse, ReasonRegex: "^Critical$", Toleration: 30 * time.Minute, TerminationGracePeriod: durationPtr(0), Priority: 90, Action: repair.Replace},
			repair.Policy{ConditionType: "Diagnostic", ConditionStatus: corev1.ConditionFalse, Toleration: 30 * time.Minute, TerminationGracePeriod: durationPtr(10 * time.Minute), Priority: 10, Action: repair.Replace},
			repair.Policy{ConditionType: "MediumPriority", ConditionStatus: corev1.ConditionFalse, ReasonRegex: ".*", Toleration: 30 * time.Minute, TerminationGracePeriod: durationPtr(5 * time.Minute), Priority: 50, Action: repair.Replace}).
			pool(repairPool()).healthyNodes(4, "default").
			node(repairNode("bad", "default", unhealthyFor("Diagnostic", "Unknown", 31*time.Minute), unhealthyFor("MediumPriority", "", 31*time.Minute)))
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, 5*time.Minute, boundOf(t, cmd))
	}},
	conformanceCase{Name: "most-urgent-condition-orders", Run: func(t *T) {
		// A: LowPriority for 180m (5τ past toleration), HighPriority for
		// 33m (0.1τ); B: HighPriority for 120m (3τ). Ranks 0 and 1: A
		// scores 5 on its starving condition, B 4.
		c := repairCluster(t,
			repair.Policy{ConditionType: "LowPriority", ConditionStatus: corev1.ConditionFalse, Toleration: 30 * time.Minute, Priority: 10, Action: repair.Replace},
			repair.Policy{ConditionType: "HighPriority", ConditionStatus: corev1.ConditionFalse, ReasonRegex: ".*", Toleration: 30 * time.Minute, Priority: 90, Action: repair.Replace}).
			pool(repairPool()).healthyNodes(8, "default").
			node(repairNode("a", "default", initializedAgo(4*time.Hour), unhealthyFor("LowPriority", "", 180*time.Minute), unhealthyFor("HighPriority", "", 33*time.Minute))).
			node(repairNode("b", "default", initializedAgo(4*time.Hour), unhealthyFor("HighPriority", "", 120*time.Minute)))
		require.Equal(t, []string{"a"}, repairCommand(t, c.evaluate()).Delete)
	}},
	conformanceCase{Name: "forceful-drain-bound", Run: func(t *T) {
		policy := badNode
		policy.TerminationGracePeriod = durationPtr(0)
		c := repairCluster(t, policy).pool(repairPool()).node(repairNode("bad", "default", badFor(31*time.Minute)))
		require.Equal(t, time.Duration(0), boundOf(t, repairCommand(t, c.evaluate())))
	}},
	conformanceCase{Name: "drain-bound-min-of-policy-and-nodeclaim", Run: func(t *T) {
		policy := badNode
		policy.TerminationGracePeriod = durationPtr(20 * time.Minute)
		c := repairCluster(t, policy).pool(repairPool()).
			node(repairNode("bad", "default", terminationGracePeriod(5*time.Minute), badFor(31*time.Minute)))
		require.Equal(t, 5*time.Minute, boundOf(t, repairCommand(t, c.evaluate())))
	}},
	conformanceCase{Name: "highest-priority-condition-acts", Run: func(t *T) {
		c := repairCluster(t,
			repair.Policy{ConditionType: "LowPriority", ConditionStatus: corev1.ConditionFalse, Toleration: 30 * time.Minute, Priority: 10, TerminationGracePeriod: durationPtr(15 * time.Minute), Action: repair.Replace},
			repair.Policy{ConditionType: "HighPriority", ConditionStatus: corev1.ConditionFalse, ReasonRegex: ".*", Toleration: 30 * time.Minute, Priority: 90, TerminationGracePeriod: durationPtr(5 * time.Minute), Action: repair.Replace}).
			pool(repairPool()).
			node(repairNode("bad", "default", unhealthyFor("LowPriority", "", 31*time.Minute), unhealthyFor("HighPriority", "", 31*time.Minute)))
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, 5*time.Minute, boundOf(t, cmd))
		require.Contains(t, cmd.Reason, "HighPriority=False")
	}},
	conformanceCase{Name: "blocking-pod-needs-bounded-drain", Run: func(t *T) {
		blocking := pod("blocking", "", podAnnotation(apis.AnnotationDoNotDisrupt, "true"))
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", withPods(blocking), badFor(31*time.Minute)))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "terminationGracePeriod to bound the drain")
	}},
	conformanceCase{Name: "blocking-pod-gets-replacement-room", Run: func(t *T) {
		policy := badNode
		policy.TerminationGracePeriod = durationPtr(5 * time.Minute)
		blocking := pod("blocking", "", podAnnotation(apis.AnnotationDoNotDisrupt, "true"))
		c := repairCluster(t, policy).pool(repairPool()).node(repairNode("bad", "default", withPods(blocking), badFor(31*time.Minute)))
		cmd := repairCommand(t, c.evaluate())
		require.Len(t, cmd.Replacements, 1)
		require.Contains(t, cmd.Replacements[0].Pods, "default/blocking")
	}},
	conformanceCase{Name: "static-pool-one-for-one", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool(replicas(5), budgets(nodes("100%")))).
			node(repairNode("bad", "default", badFor(31*time.Minute))).healthyNodes(4, "default")
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, []string{"bad"}, cmd.Delete)
		require.Len(t, cmd.Replacements, 1)
		require.Equal(t, "default", cmd.Replacements[0].NodePool)
	}},
	conformanceCase{Name: "static-pool-node-limit", Run: func(t *T) {
		np := repairPool(replicas(5), budgets(nodes("100%")))
		np.Spec.Limits = corev1.ResourceList{"nodes": mustQuantity("5")}
		c := repairCluster(t).pool(np).node(repairNode("bad", "default", badFor(31*time.Minute))).healthyNodes(4, "default")
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "at its node limit (5) and cannot stage a replacement")
	}},
	conformanceCase{Name: "standalone-nodeclaim-excluded", Run: func(t *T) {
		standalone := repairNode("bad", "", badFor(31*time.Minute))
		delete(standalone.Node.Labels, apis.LabelNodePool)
		c := repairCluster(t).pool(repairPool()).node(standalone)
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "repair requires a NodePool to construct and budget a safe replacement")
	}},
	conformanceCase{Name: "unmatched-condition-ignored", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", unhealthyFor("SomeOtherCondition", "", 31*time.Minute)))
		noRepair(t, c.evaluate())
	}},
	conformanceCase{Name: "gate-off", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", badFor(31*time.Minute)))
		c.opts.NodeRepair = nil
		noRepair(t, c.evaluate())
	}},
	conformanceCase{Name: "uninitialized-repaired", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", registeredOnly, badFor(31*time.Minute)))
		cmd := repairCommand(t, c.evaluate())
		require.Equal(t, []string{"bad"}, cmd.Delete)
		require.Empty(t, cmd.Replacements)
	}},
	conformanceCase{Name: "unregistered-not-repaired", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", registeredOnly, badFor(31*time.Minute)))
		delete(c.Nodes[0].Node.Labels, apis.LabelNodeRegistered)
		d := c.evaluate()
		noRepair(t, d)
	}},
	conformanceCase{Name: "uninitialized-within-toleration", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", registeredOnly, badFor(29*time.Minute)))
		noRepair(t, c.evaluate())
	}},
	conformanceCase{Name: "uninitialized-needs-no-budget", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool(budgets(nodes("0")))).node(repairNode("bad", "default", registeredOnly, badFor(31*time.Minute)))
		repairCommand(t, c.evaluate())
	}},
	conformanceCase{Name: "uninitialized-uses-no-budget", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool(budgets(nodes("1")))).node(repairNode("bad", "default", registeredOnly, badFor(62*time.Minute)))
		require.Equal(t, []string{"bad"}, repairCommand(t, c.evaluate()).Delete)
		c.execute(c.evaluate())
		// Five healthy nodes join, one of them turns unhealthy: the budget
		// of one is still there for it.
		c.node(repairNode("bad-2", "default", badFor(31*time.Minute))).healthyNodes(4, "default")
		require.Equal(t, []string{"bad-2"}, repairCommand(t, c.evaluate()).Delete)
	}},
	conformanceCase{Name: "toleration-from-reboot-end", Run: func(t *T) {
		// The condition turned False 69 minutes ago; the last reboot ended
		// 29 minutes ago: the 30-minute toleration counts from then.
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", initializedAgo(2*time.Hour), registeredOnly, rebootFinishedAgo(29*time.Minute), badFor(69*time.Minute)))
		noRepair(t, c.evaluate())
		d := c.evaluateAt(now.Add(2 * time.Minute))
		repairCommand(t, d)
	}},
	conformanceCase{Name: "rebooting-not-repaired", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", registeredOnly, rebootingCondition("RebootIssued"), badFor(31*time.Minute)))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "being rebooted")
	}},
	conformanceCase{Name: "uninitialized-nominated-repaired", Run: func(t *T) {
		nominated := func(n *consolidation.Node) { n.NominatedAt = now }
		c := repairCluster(t).pool(repairPool()).node(repairNode("bad", "default", registeredOnly, nominated, badFor(31*time.Minute)))
		repairCommand(t, c.evaluate())
	}},
	conformanceCase{Name: "uninitialized-do-not-repair", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).
			node(repairNode("bad", "default", registeredOnly, nodeAnnotation(apis.AnnotationDoNotRepair, "true"), badFor(31*time.Minute)))
		noRepair(t, c.evaluate())
	}},
	conformanceCase{Name: "uninitialized-unhealthy-share-stops-pool", Run: func(t *T) {
		c := repairCluster(t).pool(repairPool()).
			node(repairNode("bad-0", "default", registeredOnly, badFor(31*time.Minute))).
			node(repairNode("bad-1", "default", registeredOnly, badFor(31*time.Minute))).
			node(repairNode("ok", "default", registeredOnly))
		d := c.evaluate()
		noRepair(t, d)
		assert.Contains(t, verdictOf(d, "bad-0"), "(2 of 3)")
	}},
)
