package conformance

import (
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
)

// Upstream's disruption suite: the rules on candidates, budget counting and
// eviction costs that every method shares.

func mirror(p *corev1.Pod) {
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: p.Spec.NodeName}}
}

func deletionCost(v string) podOption {
	return podAnnotation("controller.kubernetes.io/pod-deletion-cost", v)
}

func phase(ph corev1.PodPhase) podOption { return func(p *corev1.Pod) { p.Status.Phase = ph } }

// evictedFirst builds two equally priced nodes, a and b, each with one
// 20-CPU pod (a's with aOpts, b's with bOpts), and a protected node with
// room for one of them; single-node consolidation then takes the node
// whose pod costs less to evict, which it returns.
func evictedFirst(t *T, aOpts, bOpts []podOption) string {
	t.Helper()
	return evictedFirstIn(t, nodePool("default", budgets(nodes("100%"))), aOpts, bOpts)
}

// evictedFirstIn is evictedFirst with the NodePool given, which must be
// named default.
func evictedFirstIn(t *T, np *apis.NodePool, aOpts, bOpts []podOption) string {
	t.Helper()
	c := (&cluster{}).pool(np).
		node(managedNode("dest", "default", cheapestOnDemand, nodeAnnotation(apis.AnnotationDoNotDisrupt, "true"))).
		node(managedNode("a", "default", cheapestOnDemand, withPods(pod("p-a", "20", aOpts...)))).
		node(managedNode("b", "default", cheapestOnDemand, withPods(pod("p-b", "20", bOpts...))))
	d := c.evaluate()
	require.Len(t, d.Commands, 1, "%+v", d.Candidates)
	require.Len(t, d.Commands[0].Delete, 1)
	return d.Commands[0].Delete[0]
}

// budgetCount has ten empty nodes under a 50% budget, plus what extra adds,
// and checks how many emptiness deletes: half of the nodes the budget
// counts, less those already disrupting.
func budgetCount(name string, want int, extra func(c *cluster)) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		c := consolidationCluster(nodePool("default", budgets(nodes("50%"))))
		tenNodes(c, "default", "")
		extra(c)
		require.Len(t, deleted(c.evaluate()), want)
	}}
}

// candidateNode is a node of the dearest on-demand type: if it is a
// candidate for consolidation, it is replaced by a cheaper node (or, when
// empty, deleted).
func candidateNode(opts ...nodeOption) *cluster {
	return consolidationCluster().node(managedNode("node", "default", dearestOnDemand, opts...))
}

// driftCandidate is candidateNode drifted an hour ago in a NodePool that
// never consolidates, so that only drift can take it.
func driftCandidate(opts ...nodeOption) *cluster {
	c := consolidationCluster(nodePool("default", budgets(nodes("100%")), consolidateAfter("Never")))
	return c.node(managedNode("node", "default", dearestOnDemand, append([]nodeOption{driftedFor(time.Hour)}, opts...)...))
}

func blocked(t *T, c *cluster) {
	t.Helper()
	expectNothing(t, c.evaluate())
}

func disrupted(t *T, c *cluster) {
	t.Helper()
	require.Equal(t, []string{"node"}, deleted(c.evaluate()))
}

func pdbOver(c *cluster) *cluster {
	return c.pdb("pdb", intstr.FromInt32(0), map[string]string{"test": "value"})
}

var dndTrue = podAnnotation(apis.AnnotationDoNotDisrupt, "true")
var pdbLabel = podLabel("test", "value")

var _ = register("suite",
	budgetCount("budget-ignores-unmanaged-nodes", 5, func(c *cluster) {
		c.node(managedNode("unmanaged", "", dearestOnDemand, unmanaged))
	}),
	budgetCount("budget-ignores-uninitialized-nodes", 5, func(c *cluster) {
		c.node(managedNode("uninitialized", "default", dearestOnDemand, uninitialized))
	}),
	budgetCount("budget-ignores-terminating-instances", 5, func(c *cluster) {
		n := managedNode("terminating", "default", dearestOnDemand)
		n.NodeClaim.Status.Conditions = []metav1.Condition{{Type: "InstanceTerminating", Status: metav1.ConditionTrue}}
		c.node(n)
	}),
	conformanceCase{Name: "budget-never-negative", Run: func(t *T) {
		c := consolidationCluster(nodePool("default", budgets(nodes("10%"))))
		tenNodes(c, "default", "")
		for _, n := range c.Nodes[:5] {
			n.Deleting = true
		}
		expectNothing(t, c.evaluate())
	}},
	budgetCount("budget-counts-deleting-as-disrupting", 3, func(c *cluster) {
		c.Nodes[0].Deleting = true
		c.Nodes[1].NodeClaim.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Minute)}
	}),
	budgetCount("budget-counts-not-ready-as-disrupting", 3, func(c *cluster) {
		c.Nodes[0].NotReady = true
		c.Nodes[1].NotReady = true
	}),
	conformanceCase{Name: "eviction-cost-standard", Run: func(t *T) {
		// A pod with neither priority nor deletion cost costs what one with
		// both at zero does: the tie goes to the first node by name.
		zero := []podOption{deletionCost("0"), priority(0)}
		require.Equal(t, "a", evictedFirst(t, nil, zero))
		require.Equal(t, "a", evictedFirst(t, zero, nil))
	}},
	conformanceCase{Name: "eviction-cost-positive-deletion-cost", Run: func(t *T) {
		require.Equal(t, "b", evictedFirst(t, []podOption{deletionCost("100")}, nil))
	}},
	conformanceCase{Name: "eviction-cost-negative-deletion-cost", Run: func(t *T) {
		require.Equal(t, "b", evictedFirst(t, nil, []podOption{deletionCost("-100")}))
	}},
	conformanceCase{Name: "eviction-cost-orders-deletion-costs", Run: func(t *T) {
		require.Equal(t, "b", evictedFirst(t, []podOption{deletionCost("101")}, []podOption{deletionCost("100")}))
		require.Equal(t, "b", evictedFirst(t, []podOption{deletionCost("100")}, []podOption{deletionCost("99")}))
	}},
	conformanceCase{Name: "eviction-cost-higher-priority", Run: func(t *T) {
		require.Equal(t, "b", evictedFirst(t, []podOption{priority(1)}, nil))
	}},
	conformanceCase{Name: "eviction-cost-lower-priority", Run: func(t *T) {
		require.Equal(t, "b", evictedFirst(t, nil, []podOption{priority(-1)}))
	}},
	conformanceCase{Name: "do-not-disrupt-pod-blocks", Run: func(t *T) {
		blocked(t, candidateNode(withPods(pod("p", "", dndTrue))))
	}},
	conformanceCase{Name: "do-not-disrupt-mirror-pod-blocks", Run: func(t *T) {
		blocked(t, candidateNode(withPods(pod("p", "", dndTrue, mirror))))
	}},
	conformanceCase{Name: "do-not-disrupt-daemonset-pod-blocks", Run: func(t *T) {
		blocked(t, candidateNode(withPods(pod("p", "", dndTrue, ownedBy("DaemonSet")))))
	}},
	conformanceCase{Name: "drift-ignores-do-not-disrupt-with-grace-period", Run: func(t *T) {
		disrupted(t, driftCandidate(terminationGracePeriod(5*time.Minute), withPods(pod("p", "", dndTrue))))
	}},
	conformanceCase{Name: "drift-ignores-pdb-with-grace-period", Run: func(t *T) {
		disrupted(t, pdbOver(driftCandidate(terminationGracePeriod(5*time.Minute), withPods(pod("p", "", pdbLabel)))))
	}},
	conformanceCase{Name: "consolidation-respects-do-not-disrupt-with-grace-period", Run: func(t *T) {
		blocked(t, candidateNode(terminationGracePeriod(5*time.Minute), withPods(pod("p", "", dndTrue))))
	}},
	conformanceCase{Name: "consolidation-respects-pdb-with-grace-period", Run: func(t *T) {
		blocked(t, pdbOver(candidateNode(terminationGracePeriod(5*time.Minute), withPods(pod("p", "", pdbLabel)))))
	}},
	conformanceCase{Name: "drift-respects-do-not-disrupt-without-grace-period", Run: func(t *T) {
		blocked(t, driftCandidate(withPods(pod("p", "", dndTrue))))
	}},
	conformanceCase{Name: "drift-respects-pdb-without-grace-period", Run: func(t *T) {
		blocked(t, pdbOver(driftCandidate(withPods(pod("p", "", pdbLabel)))))
	}},
	conformanceCase{Name: "terminating-do-not-disrupt-pod-does-not-block", Run: func(t *T) {
		disrupted(t, candidateNode(withPods(pod("p", "", dndTrue, terminating))))
	}},
	conformanceCase{Name: "finished-do-not-disrupt-pods-do-not-block", Run: func(t *T) {
		disrupted(t, candidateNode(withPods(pod("ok", "", dndTrue, phase(corev1.PodSucceeded)), pod("failed", "", dndTrue, phase(corev1.PodFailed)))))
	}},
	conformanceCase{Name: "do-not-disrupt-node-blocks", Run: func(t *T) {
		blocked(t, candidateNode(nodeAnnotation(apis.AnnotationDoNotDisrupt, "true"), withPods(pod("p", ""))))
	}},
	conformanceCase{Name: "two-pdbs-on-a-pod-block", Run: func(t *T) {
		c := candidateNode(withPods(pod("p", "", pdbLabel)))
		c.pdb("pdb1", intstr.FromInt32(1), map[string]string{"test": "value"}).pdb("pdb2", intstr.FromInt32(1), map[string]string{"test": "value"})
		blocked(t, c)
	}},
	conformanceCase{Name: "fully-blocking-pdb-blocks", Run: func(t *T) {
		blocked(t, pdbOver(candidateNode(withPods(pod("p", "", pdbLabel)))))
	}},
	conformanceCase{Name: "fully-blocking-pdb-on-daemonset-pod-blocks", Run: func(t *T) {
		blocked(t, pdbOver(candidateNode(withPods(pod("p", "", pdbLabel, ownedBy("DaemonSet"))))))
	}},
	conformanceCase{Name: "fully-blocking-pdb-on-mirror-pod-does-not-block", Run: func(t *T) {
		disrupted(t, pdbOver(candidateNode(withPods(pod("p", "", pdbLabel, mirror)))))
	}},
	conformanceCase{Name: "fully-blocking-pdb-on-finished-pods-does-not-block", Run: func(t *T) {
		disrupted(t, pdbOver(candidateNode(withPods(pod("ok", "", pdbLabel, phase(corev1.PodSucceeded)), pod("failed", "", pdbLabel, phase(corev1.PodFailed))))))
	}},
	conformanceCase{Name: "fully-blocking-pdb-on-terminating-pod-does-not-block", Run: func(t *T) {
		disrupted(t, pdbOver(candidateNode(withPods(pod("p", "", pdbLabel, terminating)))))
	}},
	conformanceCase{Name: "node-without-nodeclaim", Run: func(t *T) {
		n := managedNode("node", "default", dearestOnDemand)
		n.NodeClaim = nil
		blocked(t, consolidationCluster().node(n))
	}},
	conformanceCase{Name: "nodeclaim-without-node", Run: func(t *T) {
		blocked(t, candidateNode(uninitialized, func(n *consolidation.Node) { n.Node.Labels = map[string]string{apis.LabelNodePool: "default"} }))
	}},
	conformanceCase{Name: "nominated-node", Run: func(t *T) {
		blocked(t, candidateNode(func(n *consolidation.Node) { n.NominatedAt = now.Add(-5 * time.Second) }))
	}},
	conformanceCase{Name: "deleting-node", Run: func(t *T) {
		blocked(t, candidateNode(func(n *consolidation.Node) { n.NodeClaim.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Second)} }))
	}},
	conformanceCase{Name: "marked-for-deletion-node", Run: func(t *T) {
		blocked(t, candidateNode(func(n *consolidation.Node) { n.Deleting = true }))
	}},
	conformanceCase{Name: "uninitialized-node", Run: func(t *T) {
		blocked(t, candidateNode(uninitialized))
	}},
	conformanceCase{Name: "node-without-nodepool-label", Run: func(t *T) {
		blocked(t, candidateNode(func(n *consolidation.Node) {
			delete(n.Node.Labels, apis.LabelNodePool)
			n.Node.NodePool = ""
		}))
	}},
	conformanceCase{Name: "node-of-missing-nodepool", Run: func(t *T) {
		c := consolidationCluster().node(managedNode("node", "gone", dearestOnDemand))
		blocked(t, c)
	}},
	conformanceCase{Name: "node-without-capacity-type-label", Run: func(t *T) {
		disrupted(t, candidateNode(func(n *consolidation.Node) { delete(n.Node.Labels, apis.LabelCapacityType) }))
	}},
	conformanceCase{Name: "node-without-zone-label", Run: func(t *T) {
		disrupted(t, candidateNode(func(n *consolidation.Node) { delete(n.Node.Labels, apis.LabelTopologyZone) }))
	}},
	conformanceCase{Name: "node-without-instance-type-label", Run: func(t *T) {
		disrupted(t, candidateNode(func(n *consolidation.Node) { delete(n.Node.Labels, apis.LabelInstanceType) }))
	}},
	conformanceCase{Name: "node-of-unknown-instance-type", Run: func(t *T) {
		disrupted(t, candidateNode(func(n *consolidation.Node) { n.Node.Labels[apis.LabelInstanceType] = "no-such-type" }))
	}},
)
