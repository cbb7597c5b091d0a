package conformance

import (
	"fmt"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
)

// Upstream's static drift suite: static NodePools (replicas set) with a
// 100% budget, nodes of the dearest on-demand type, all drifted unless a
// spec says otherwise.

func staticPool(name string, n int64, opts ...poolOption) *apis.NodePool {
	return nodePool(name, append([]poolOption{replicas(n), budgets(nodes("100%"))}, opts...)...)
}

func nodeLimit(n int64) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Limits = corev1.ResourceList{"nodes": *resource.NewQuantity(n, resource.DecimalSI)}
	}
}

func driftedOnly(n string) apis.Budget {
	return apis.Budget{Nodes: n, Reasons: []apis.DisruptionReason{apis.DisruptionReasonDrifted}}
}

// staticNodes adds n drifted nodes to pool.
func staticNodes(c *cluster, pool string, n int, opts ...nodeOption) {
	for i := range n {
		c.node(managedNode(fmt.Sprintf("%s-node-%d", pool, i), pool, dearestOnDemand, append([]nodeOption{drifted}, opts...)...))
	}
}

// staticCommands checks that every command is static drift replacing one
// node by one, and counts them per pool.
func staticCommands(t *T, c *cluster, d consolidation.Decision) map[string]int {
	t.Helper()
	for _, cmd := range d.Commands {
		require.Equal(t, consolidation.MethodStaticDrift, cmd.Method)
		require.Len(t, cmd.Delete, 1)
		require.Len(t, cmd.Replacements, 1)
	}
	return commandsByPool(c, d.Commands)
}

// replaceStatic does what executing static drift commands leaves: each
// deleted node gone, and a fresh, undrifted node of its pool in its place.
func replaceStatic(c *cluster, d consolidation.Decision, round int) {
	gone := map[string]bool{}
	for _, name := range deleted(d) {
		gone[name] = true
	}
	var kept []*consolidation.Node
	for _, n := range c.Nodes {
		if !gone[n.Node.Name] {
			kept = append(kept, n)
			continue
		}
		kept = append(kept, managedNode(fmt.Sprintf("%s-new-%d", n.Node.Name, round), n.Node.NodePool, dearestOnDemand))
	}
	c.Nodes = kept
}

var _ = register("staticdrift",
	conformanceCase{Name: "budget-node-count", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 5, budgets(driftedOnly("2"))))
		staticNodes(c, "static", 5)
		require.Equal(t, map[string]int{"static": 2}, staticCommands(t, c, c.evaluate()))
	}},
	conformanceCase{Name: "budget-node-percentage", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 5, budgets(driftedOnly("20%"))))
		staticNodes(c, "static", 5)
		require.Equal(t, map[string]int{"static": 1}, staticCommands(t, c, c.evaluate()))
	}},
	conformanceCase{Name: "budgets-per-pool", Run: func(t *T) {
		c := (&cluster{}).
			pool(staticPool("static-1", 4, budgets(driftedOnly("1")))).
			pool(staticPool("static-2", 3, budgets(driftedOnly("2")))).
			pool(staticPool("static-3", 2, budgets(driftedOnly("100%"))))
		staticNodes(c, "static-1", 2)
		staticNodes(c, "static-2", 2)
		staticNodes(c, "static-3", 2)
		require.Equal(t, map[string]int{"static-1": 1, "static-2": 2, "static-3": 2}, staticCommands(t, c, c.evaluate()))
	}},
	conformanceCase{Name: "no-room-under-node-limit", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 5, nodeLimit(5)))
		staticNodes(c, "static", 5)
		require.Empty(t, c.evaluate().Commands)
	}},
	conformanceCase{Name: "room-under-node-limit", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 5, nodeLimit(5)))
		staticNodes(c, "static", 2)
		require.Equal(t, map[string]int{"static": 2}, staticCommands(t, c, c.evaluate()))
	}},
	conformanceCase{Name: "partial-room-under-node-limit", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 5, nodeLimit(7)))
		staticNodes(c, "static", 5)
		require.Equal(t, map[string]int{"static": 2}, staticCommands(t, c, c.evaluate()))
	}},
	conformanceCase{Name: "one-at-a-time-under-node-limit", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 5, nodeLimit(6)))
		staticNodes(c, "static", 5)
		for round := range 5 {
			d := c.evaluate()
			require.Equal(t, map[string]int{"static": 1}, staticCommands(t, c, d), "round %d", round)
			replaceStatic(c, d, round)
		}
		require.Empty(t, c.evaluate().Commands)
	}},
	conformanceCase{Name: "waits-while-scaling-down", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 1))
		staticNodes(c, "static", 2)
		c.Nodes[0].Node.Pods = []*corev1.Pod{pod("p", "1")}
		c.Nodes[0].Node.Pods[0].Spec.NodeName = c.Nodes[0].Node.Name
		require.Empty(t, c.evaluate().Commands)
		c.Nodes = c.Nodes[:1]
		require.Equal(t, map[string]int{"static": 1}, staticCommands(t, c, c.evaluate()))
	}},
	conformanceCase{Name: "pools-independent", Run: func(t *T) {
		c := (&cluster{}).
			pool(staticPool("nodepool-1", 3)).
			pool(staticPool("nodepool-2", 2, nodeLimit(2))).
			pool(staticPool("nodepool-3", 2))
		staticNodes(c, "nodepool-1", 2)
		staticNodes(c, "nodepool-2", 2)
		staticNodes(c, "nodepool-3", 2)
		require.Equal(t, map[string]int{"nodepool-1": 2, "nodepool-3": 2}, staticCommands(t, c, c.evaluate()))
	}},
	conformanceCase{Name: "zero-replicas", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 0))
		staticNodes(c, "static", 1)
		require.Empty(t, c.evaluate().Commands)
	}},
	conformanceCase{Name: "no-limits", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 5))
		staticNodes(c, "static", 5)
		require.Equal(t, map[string]int{"static": 5}, staticCommands(t, c, c.evaluate()))
	}},
	conformanceCase{Name: "not-drifted-stays", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 1)).node(managedNode("node", "static", dearestOnDemand))
		require.Empty(t, c.evaluate().Commands)
	}},
	conformanceCase{Name: "node-do-not-disrupt-stays", Run: func(t *T) {
		c := (&cluster{}).pool(staticPool("static", 1))
		staticNodes(c, "static", 1, nodeAnnotation(apis.AnnotationDoNotDisrupt, "true"))
		require.Empty(t, c.evaluate().Commands)
	}},
)
