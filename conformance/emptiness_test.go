package conformance

import (
	"fmt"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
)

// Upstream's emptiness suite: a WhenEmpty NodePool with consolidateAfter 0s
// and a 100% budget, and nodes of the cheapest spot type.

func emptinessPool(opts ...poolOption) *apis.NodePool {
	return nodePool("default", append([]poolOption{policy(apis.ConsolidationPolicyWhenEmpty), budgets(nodes("100%"))}, opts...)...)
}

// emptyNodes is n empty nodes of instanceType in pool, named prefix-0…
func emptyNodes(c *cluster, prefix, pool, instanceType string, n int, opts ...nodeOption) {
	for i := range n {
		c.node(managedNode(fmt.Sprintf("%s-%d", prefix, i), pool, instanceType, opts...))
	}
}

// budgetCase is ten empty nodes of a WhenEmptyOrUnderutilized pool with one
// budget, and how many must go.
func budgetCase(name, budget string, removed int) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		c := (&cluster{}).pool(nodePool("default", budgets(nodes(budget))))
		emptyNodes(c, "node", "default", cheapestOnDemand, 10)
		d := c.evaluate()
		require.Len(t, deleted(d), removed)
		if removed > 0 {
			require.Len(t, d.Commands, 1)
			require.Equal(t, "emptiness", d.Commands[0].Method)
		}
	}}
}

// perPoolCase is ten WhenEmpty pools (consolidateAfter 30s) of three empty
// nodes each, every pool with one budget.
func perPoolCase(name, budget string, removedPerPool int) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		c := &cluster{}
		c.pool(nodePool("default"))
		for i := range 10 {
			pool := fmt.Sprintf("pool-%d", i)
			c.pool(nodePool(pool, policy(apis.ConsolidationPolicyWhenEmpty), consolidateAfter("30s"), budgets(nodes(budget))))
			emptyNodes(c, pool+"-node", pool, cheapestOnDemand, 3)
		}
		d := c.evaluate()
		require.Len(t, d.Commands, 1)
		perPool := map[string]int{}
		for _, v := range d.Candidates {
			if v.Disruptable {
				perPool[v.NodePool]++
			}
		}
		for i := range 10 {
			require.Equal(t, removedPerPool, perPool[fmt.Sprintf("pool-%d", i)], "pool-%d", i)
		}
	}}
}

// oneNode is the emptiness suite's pool with one node of the cheapest spot
// type.
func oneNode(opts ...nodeOption) *cluster {
	return (&cluster{}).pool(emptinessPool()).node(managedNode("node", "default", cheapestSpot, opts...))
}

func expectDeleted(t *T, c *cluster, want ...string) {
	t.Helper()
	d := c.evaluate()
	require.Equal(t, want, deleted(d), "%+v", d.Candidates)
}

var _ = register("emptiness",
	budgetCase("budget-100-percent-removes-all", "100%", 10),
	budgetCase("budget-0-percent-removes-none", "0%", 0),
	budgetCase("budget-30-percent-removes-three", "30%", 3),
	perPoolCase("budget-50-percent-rounds-up-per-pool", "50%", 2),
	perPoolCase("budget-100-percent-per-pool", "100%", 3),
	conformanceCase{Name: "deletes-empty-node", Run: func(t *T) {
		expectDeleted(t, oneNode(), "node")
	}},
	conformanceCase{Name: "deletes-empty-drifted-node", Run: func(t *T) {
		expectDeleted(t, oneNode(driftedFor(time.Minute)), "node")
	}},
	conformanceCase{Name: "not-yet-consolidatable-stays", Run: func(t *T) {
		c := (&cluster{}).pool(emptinessPool(consolidateAfter("10m"))).
			node(managedNode("node", "default", cheapestSpot, lastPodEventAgo(time.Minute)))
		expectDeleted(t, c)
	}},
	conformanceCase{Name: "node-do-not-disrupt-stays", Run: func(t *T) {
		expectDeleted(t, oneNode(nodeAnnotation(apis.AnnotationDoNotDisrupt, "true")))
	}},
	conformanceCase{Name: "node-do-not-disrupt-false-deleted", Run: func(t *T) {
		expectDeleted(t, oneNode(nodeAnnotation(apis.AnnotationDoNotDisrupt, "false")), "node")
	}},
	conformanceCase{Name: "node-with-pod-stays", Run: func(t *T) {
		expectDeleted(t, oneNode(withPods(pod("p", ""))))
	}},
	conformanceCase{Name: "recent-pod-event-stays", Run: func(t *T) {
		c := (&cluster{}).pool(emptinessPool(consolidateAfter("30s"))).
			node(managedNode("node", "default", cheapestSpot, lastPodEventAgo(time.Second)))
		expectDeleted(t, c)
	}},
	conformanceCase{Name: "two-empty-nodes-one-command", Run: func(t *T) {
		c := oneNode().node(managedNode("node-2", "default", cheapestSpot))
		d := c.evaluate()
		require.Len(t, d.Commands, 1)
		require.Equal(t, []string{"node", "node-2"}, d.Commands[0].Delete)
	}},
	conformanceCase{Name: "pending-pod-keeps-large-node", Run: func(t *T) {
		c := (&cluster{}).pool(emptinessPool()).
			node(managedNode("node", "default", "64-cpu-1-mem-amd64-linux-test-zone-1-spot", allocatable("64"), withPods(pod("small", "1")))).
			pending(pod("big", "62", pendingPod))
		expectDeleted(t, c)
	}},
	conformanceCase{Name: "daemonset-pod-counts-empty", Run: func(t *T) {
		expectDeleted(t, oneNode(withPods(pod("ds", "", ownedBy("DaemonSet")))), "node")
	}},
	conformanceCase{Name: "terminating-replicaset-pods-count-empty", Run: func(t *T) {
		expectDeleted(t, oneNode(withPods(pod("a", "", terminating), pod("b", "", terminating), pod("c", "", terminating))), "node")
	}},
	conformanceCase{Name: "terminating-statefulset-pod-not-empty", Run: func(t *T) {
		expectDeleted(t, oneNode(withPods(pod("ss", "", ownedBy("StatefulSet"), terminating))))
	}},
	conformanceCase{Name: "static-pool-nodes-stay", Run: func(t *T) {
		c := (&cluster{}).pool(nodePool("static", replicas(2)))
		emptyNodes(c, "node", "static", cheapestOnDemand, 2)
		expectDeleted(t, c)
	}},
)
