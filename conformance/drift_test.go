package conformance

import (
	"fmt"
	"time"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
)

// Upstream's drift suite: a WhenEmptyOrUnderutilized NodePool with
// consolidateAfter 1h (so consolidation stays out of the way of nodes that
// just came up) and a 100% budget; nodes of the dearest on-demand type with
// 32 CPUs allocatable, initialized a minute ago.

func driftPool(name string, opts ...poolOption) *apis.NodePool {
	return nodePool(name, append([]poolOption{consolidateAfter("1h"), budgets(nodes("100%"))}, opts...)...)
}

func driftNode(name, pool string, opts ...nodeOption) *consolidation.Node {
	return managedNode(name, pool, dearestOnDemand, append([]nodeOption{initializedAgo(time.Minute)}, opts...)...)
}

// drifted is a node that drifted a minute ago.
var drifted = driftedFor(time.Minute)

// commandsByPool counts the nodes commands delete per NodePool.
func commandsByPool(c *cluster, cmds []consolidation.Command) map[string]int {
	pool := map[string]string{}
	for _, n := range c.Nodes {
		pool[n.Node.Name] = n.Node.NodePool
	}
	out := map[string]int{}
	for _, cmd := range cmds {
		for _, name := range cmd.Delete {
			out[pool[name]]++
		}
	}
	return out
}

func deletedBy(cmds []consolidation.Command) int {
	n := 0
	for _, c := range cmds {
		n += len(c.Delete)
	}
	return n
}

// replacementCatalog mirrors the spec that replaces one node by several:
// the node's own type (4 CPUs, its only offering unavailable, 0.5/h) and a
// 3-CPU type at 0.3/h.
var replacementCatalog = mustCatalog(
	customType("current-on-demand", 4, offering("test-zone-1a", apis.CapacityTypeOnDemand, 0.5, false)),
	customType("replacement-on-demand", 3, offering("test-zone-1a", apis.CapacityTypeOnDemand, 0.3, true)),
)

var _ = register("drift",
	conformanceCase{Name: "budget-30-percent-three-of-ten", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default", budgets(nodes("30%"))))
		for i := range 10 {
			c.node(driftNode(fmt.Sprintf("node-%d", i), "default", drifted))
		}
		require.Equal(t, 3, deletedBy(c.passes(20)))
	}},
	conformanceCase{Name: "budget-counts-commands-in-progress", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default", budgets(nodes("30%"))))
		for i := range 10 {
			var opts []nodeOption
			if i < 5 {
				opts = append(opts, drifted, withPods(pod(fmt.Sprintf("p-%d", i), "1")))
			}
			c.node(driftNode(fmt.Sprintf("node-%d", i), "default", opts...))
		}
		require.Equal(t, 3, deletedBy(c.passes(5)))
	}},
	conformanceCase{Name: "budget-one-per-pool", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default"))
		for p := range 10 {
			pool := fmt.Sprintf("pool-%d", p)
			c.pool(driftPool(pool, consolidateAfter("Never"), budgets(nodes("1"))))
			for i := range 3 {
				opts := []nodeOption{drifted}
				if i < 2 {
					opts = append(opts, withPods(pod(fmt.Sprintf("%s-p-%d", pool, i), "1")))
				}
				c.node(driftNode(fmt.Sprintf("%s-node-%d", pool, i), pool, opts...))
			}
		}
		cmds := c.passes(30)
		require.Len(t, cmds, 10, "one command per node, one node per pool")
		for p, n := range commandsByPool(c, cmds) {
			require.Equal(t, 1, n, p)
		}
	}},
	conformanceCase{Name: "skips-node-whose-pods-fit-nowhere", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", driftedFor(2*time.Minute), withPods(pod("huge", "150")))).
			node(driftNode("node-2", "default", drifted, allocatable("1"), withPods(pod("small", "1"))))
		d := c.evaluate()
		require.Equal(t, []string{"node-2"}, deleted(d))
	}},
	conformanceCase{Name: "not-drifted-stays", Run: func(t *T) {
		expectDeleted(t, (&cluster{}).pool(driftPool("default")).node(driftNode("node", "default")))
	}},
	conformanceCase{Name: "node-do-not-disrupt-stays", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, nodeAnnotation(apis.AnnotationDoNotDisrupt, "true")))
		expectDeleted(t, c)
	}},
	conformanceCase{Name: "node-do-not-disrupt-false-deleted", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, nodeAnnotation(apis.AnnotationDoNotDisrupt, "false"), withPods(pod("p", "")))).
			node(driftNode("node-2", "default"))
		d := c.evaluate()
		require.Equal(t, []string{"node"}, deleted(d))
		require.Zero(t, replacements(d))
	}},
	conformanceCase{Name: "do-not-disrupt-pod-blocks", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, withPods(pod("p", "", podAnnotation(apis.AnnotationDoNotDisrupt, "true")))))
		d := c.evaluate()
		require.Empty(t, deleted(d))
		require.Zero(t, replacements(d))
	}},
	conformanceCase{Name: "do-not-disrupt-pod-with-grace-period-no-replacement", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, terminationGracePeriod(5*time.Minute),
				withPods(pod("p", "", podAnnotation(apis.AnnotationDoNotDisrupt, "true")))))
		require.Zero(t, replacements(c.evaluate()))
	}},
	conformanceCase{Name: "pdb-blocked-pod-with-grace-period-no-replacement", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, terminationGracePeriod(5*time.Minute),
				withPods(pod("p", "", podLabel("test", "value"))))).
			pdb("pdb", intstr.FromInt32(0), map[string]string{"test": "value"})
		require.Zero(t, replacements(c.evaluate()))
	}},
	conformanceCase{Name: "do-not-disrupt-duration-then-drifts", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, withPods(pod("p", "", startedAgo(0), podAnnotation(apis.AnnotationDoNotDisrupt, "2m")))))
		require.Empty(t, deleted(c.evaluate()))
		later := c.evaluateAt(now.Add(3 * time.Minute))
		require.Equal(t, []string{"node"}, deleted(later))
		require.Equal(t, 1, replacements(later))
	}},
	conformanceCase{Name: "invalid-do-not-disrupt-does-not-block", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, withPods(pod("p", "", podAnnotation(apis.AnnotationDoNotDisrupt, "invalid-format"))))).
			node(driftNode("node-2", "default"))
		require.Equal(t, []string{"node"}, deleted(c.evaluate()))
	}},
	conformanceCase{Name: "longest-do-not-disrupt-duration-wins", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, withPods(
				pod("p1", "", startedAgo(0), podAnnotation(apis.AnnotationDoNotDisrupt, "1m")),
				pod("p2", "", startedAgo(0), podAnnotation(apis.AnnotationDoNotDisrupt, "3m")))))
		require.Empty(t, deleted(c.evaluateAt(now.Add(2*time.Minute))))
		later := c.evaluateAt(now.Add(4 * time.Minute))
		require.Equal(t, []string{"node"}, deleted(later))
		require.Equal(t, 1, replacements(later))
	}},
	conformanceCase{Name: "replaces-drifted-node", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, withPods(pod("p", ""))))
		d := c.evaluate()
		require.Equal(t, []string{"node"}, deleted(d))
		require.Equal(t, 1, replacements(d))
	}},
	conformanceCase{Name: "deletes-drifted-node-when-pods-fit", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, withPods(pod("p", "")))).
			node(driftNode("node-2", "default"))
		d := c.evaluate()
		require.Equal(t, []string{"node"}, deleted(d))
		require.Zero(t, replacements(d))
	}},
	conformanceCase{Name: "empty-drifted-consolidation-disabled", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default", consolidateAfter("Never"))).node(driftNode("node", "default", drifted))
		expectDeleted(t, c, "node")
	}},
	conformanceCase{Name: "empty-before-non-empty", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default", consolidateAfter("Never"))).
			node(driftNode("node", "default", driftedFor(2*time.Minute), withPods(pod("p", "")))).
			node(driftNode("node-2", "default", drifted))
		expectDeleted(t, c, "node-2")
	}},
	conformanceCase{Name: "empty-drifted-and-consolidatable", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).node(driftNode("node", "default", drifted, initializedAgo(2*time.Hour)))
		expectDeleted(t, c, "node")
	}},
	conformanceCase{Name: "replaces-one-node-by-three", Run: func(t *T) {
		c := (&cluster{}).poolWith(driftPool("default"), replacementCatalog).
			node(managedNodeOf(replacementCatalog, "node", "default", "current-on-demand", initializedAgo(time.Minute), drifted,
				allocatable("8"), withPods(pod("a", "2"), pod("b", "2"), pod("c", "2"))))
		d := c.evaluate()
		require.Equal(t, []string{"node"}, deleted(d))
		require.Equal(t, 3, replacements(d))
	}},
	conformanceCase{Name: "one-non-empty-at-a-time-oldest-first", Run: func(t *T) {
		c := (&cluster{}).pool(driftPool("default")).
			node(driftNode("node", "default", drifted, withPods(pod("a", "30")))).
			node(driftNode("node-2", "default", driftedFor(time.Hour), withPods(pod("b", "30"))))
		d := c.evaluate()
		require.Len(t, d.Commands, 1)
		require.Equal(t, []string{"node-2"}, deleted(d))
	}},
	conformanceCase{Name: "static-pool-not-drift-candidate", Run: func(t *T) {
		c := (&cluster{}).pool(nodePool("static", replicas(2))).
			node(driftNode("node", "static", drifted)).node(driftNode("node-2", "static", drifted))
		for _, cmd := range c.evaluate().Commands {
			require.NotEqual(t, consolidation.MethodDrift, cmd.Method, "the drift method took a static NodePool's node")
		}
	}},
)
