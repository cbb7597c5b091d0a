package conformance

import (
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
)

// Upstream's disruption suite at v1.15.0: the disruption-cost annotation,
// the PodDeletionCostManagement gate, node repair's Unhealthy budget and
// rebooting nodes.

func disruptionCost(v string) podOption { return podAnnotation(apis.AnnotationDisruptionCost, v) }

// evictedFirstWith is evictedFirst evaluated with opts.
func evictedFirstWith(t *T, opts consolidation.Options, aOpts, bOpts []podOption) string {
	t.Helper()
	c := (&cluster{opts: opts}).pool(nodePool("default", budgets(nodes("100%")))).
		node(managedNode("dest", "default", cheapestOnDemand, nodeAnnotation(apis.AnnotationDoNotDisrupt, "true"))).
		node(managedNode("a", "default", cheapestOnDemand, withPods(pod("p-a", "20", aOpts...)))).
		node(managedNode("b", "default", cheapestOnDemand, withPods(pod("p-b", "20", bOpts...))))
	d := c.evaluate()
	require.Len(t, d.Commands, 1, "%+v", d.Candidates)
	require.Len(t, d.Commands[0].Delete, 1)
	return d.Commands[0].Delete[0]
}

var gateOn = consolidation.Options{PodDeletionCostManagement: true}

// allowedDisruptions is consolidation.AllowedDisruptions for the cases:
// through the door too when TestDoor runs, as evaluateCase is.
func allowedDisruptions(c *cluster, reason apis.DisruptionReason) map[string]int {
	got := consolidation.AllowedDisruptions(c.Cluster, now, reason)
	if door == nil {
		return got
	}
	view, _, err := disruptionThroughDoor(c.Cluster, now, c.opts)
	if err != nil {
		door.note(err)
		return got
	}
	door.calls++
	through := consolidation.AllowedDisruptions(view, now, reason)
	if d := diffJSON(got, through); d != "" {
		door.diverged = append(door.diverged, "budgets: "+d)
	}
	return through
}

var allReasons = []apis.DisruptionReason{apis.DisruptionReasonUnderutilized, apis.DisruptionReasonEmpty, apis.DisruptionReasonDrifted, apis.DisruptionReasonUnhealthy}

// tenCountedNodes is upstream's budget fixture: ten initialized nodes of the
// default NodePool, whose only budget is b.
func tenCountedNodes(b string) *cluster {
	c := consolidationCluster(nodePool("default", budgets(nodes(b))))
	tenNodes(c, "default", "")
	return c
}

func rebootingCondition(reason string) func(n *consolidation.Node) {
	return func(n *consolidation.Node) {
		n.NodeClaim.Status.Conditions = append(n.NodeClaim.Status.Conditions,
			metav1.Condition{Type: "Rebooting", Status: metav1.ConditionTrue, Reason: reason, Message: "rebooting", LastTransitionTime: metav1.NewTime(now)})
	}
}

var _ = register("suite",
	conformanceCase{Name: "eviction-cost-disruption-cost-over-deletion-cost", Run: func(t *T) {
		// The pod with both annotations costs more than the one with the
		// deletion cost alone: its node stays.
		both := []podOption{deletionCost("100"), disruptionCost("2000000000")}
		require.Equal(t, "b", evictedFirst(t, both, []podOption{deletionCost("100")}))
		require.Equal(t, "a", evictedFirst(t, []podOption{deletionCost("100")}, both))
	}},
	conformanceCase{Name: "eviction-cost-disruption-cost-over-deletion-cost-gate-on", Run: func(t *T) {
		// Gate on: the disruption cost still counts, above the base cost.
		both := []podOption{deletionCost("100"), disruptionCost("2000000000")}
		require.Equal(t, "b", evictedFirstWith(t, gateOn, both, nil))
		require.Equal(t, "a", evictedFirstWith(t, gateOn, nil, both))
	}},
	conformanceCase{Name: "eviction-cost-gate-on-ignores-deletion-cost", Run: func(t *T) {
		// Gate on: a deletion cost alone costs what no annotation does, so
		// the tie goes to the first node by name either way.
		high := []podOption{deletionCost("2000000000")}
		require.Equal(t, "a", evictedFirstWith(t, gateOn, high, nil))
		require.Equal(t, "a", evictedFirstWith(t, gateOn, nil, high))
	}},
	conformanceCase{Name: "eviction-cost-gate-off-reads-deletion-cost", Run: func(t *T) {
		require.Equal(t, "b", evictedFirstWith(t, consolidation.Options{PodDeletionCostManagement: false}, []podOption{deletionCost("100")}, nil))
	}},
	conformanceCase{Name: "unhealthy-budget-ignores-not-ready", Run: func(t *T) {
		c := tenCountedNodes("100%")
		c.Nodes[0].NotReady = true
		c.Nodes[1].NotReady = true
		require.Equal(t, map[string]int{"default": 10}, allowedDisruptions(c, apis.DisruptionReasonUnhealthy))
		require.Equal(t, map[string]int{"default": 8}, allowedDisruptions(c, apis.DisruptionReasonDrifted))
	}},
	conformanceCase{Name: "unhealthy-budget-counts-deleting", Run: func(t *T) {
		c := tenCountedNodes("100%")
		for _, n := range c.Nodes[:2] {
			n.Deleting = true
			n.NodeClaim.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Second)}
		}
		require.Equal(t, map[string]int{"default": 8}, allowedDisruptions(c, apis.DisruptionReasonUnhealthy))
	}},
	conformanceCase{Name: "budget-counts-rebooting-for-every-reason", Run: func(t *T) {
		c := tenCountedNodes("10")
		// Draining: Ready and initialized. Issued: NotReady, its
		// initialized label gone, yet still counted.
		rebootingCondition("RebootRequested")(c.Nodes[0])
		rebootingCondition("RebootIssued")(c.Nodes[1])
		uninitialized(c.Nodes[1])
		c.Nodes[1].NotReady = true
		for _, r := range allReasons {
			require.Equal(t, map[string]int{"default": 8}, allowedDisruptions(c, r), "%s", r)
		}
	}},
	conformanceCase{Name: "registered-uninitialized-node", Run: func(t *T) {
		blocked(t, candidateNode(uninitialized, func(n *consolidation.Node) { n.Node.Labels[apis.LabelNodeRegistered] = "true" }))
	}},
)
