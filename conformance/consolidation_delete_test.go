package conformance

import (
	"fmt"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

// Upstream's consolidation "Delete" specs: two nodes of the cheapest
// on-demand type with 32 CPUs allocatable, two pods on the first and one
// on the second unless a spec says otherwise.

// twoNodes builds that cluster; podOpts apply to the pods a, b (first node)
// and c (second node) in turn.
func twoNodes(c *cluster, podOpts ...[]podOption) *cluster {
	opts := func(i int) []podOption {
		if i < len(podOpts) {
			return podOpts[i]
		}
		return nil
	}
	return c.
		node(managedNode("node-0", "default", cheapestOnDemand, withPods(pod("a", "", opts(0)...), pod("b", "", opts(1)...)))).
		node(managedNode("node-1", "default", cheapestOnDemand, withPods(pod("c", "", opts(2)...))))
}

func unowned(p *corev1.Pod) { p.OwnerReferences = nil }

func withSelector(k, v string) podOption {
	return func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{k: v} }
}

func uninitialized(n *consolidation.Node) {
	n.Node.Initialized = false
	delete(n.Node.Labels, apis.LabelNodeInitialized)
}

func unmanaged(n *consolidation.Node) {
	n.NodeClaim, n.Node.NodePool = nil, ""
	delete(n.Node.Labels, apis.LabelNodePool)
}

// sizedType is upstream's fake type with the given resources and the
// default offerings: spot in test-zone-1 and -2, on-demand in all three.
func sizedType(name string, cpu, memGi, pods int64) *instancetypes.InstanceType {
	price := float64(0.1*float64(cpu)) + float64(0.1*float64(memGi<<30)/1e9)
	var offerings []instancetypes.Offering
	for _, o := range []struct{ zone, ct string }{
		{"test-zone-1", apis.CapacityTypeSpot}, {"test-zone-2", apis.CapacityTypeSpot},
		{"test-zone-1", apis.CapacityTypeOnDemand}, {"test-zone-2", apis.CapacityTypeOnDemand}, {"test-zone-3", apis.CapacityTypeOnDemand},
	} {
		offerings = append(offerings, offering(o.zone, o.ct, price, true))
	}
	return mustType(instancetypes.Spec{
		Name:      name,
		Labels:    map[string]string{apis.LabelArch: apis.ArchitectureAmd64, apis.LabelOS: "linux"},
		Capacity:  resources.New(cpu*1000, memGi<<30, pods),
		Overhead:  fakeOverhead,
		Offerings: offerings,
	})
}

var consolidationDelete = []conformanceCase{
	{Name: "deletes-emptier-node", Run: func(t *T) {
		expectDeleted(t, twoNodes(consolidationCluster()), "node-1")
	}},
	{Name: "deletes-with-pool-lacking-node-class", Run: func(t *T) {
		noClass := nodePool("no-class")
		noClass.Spec.Template.Spec.NodeClassRef = nil
		expectDeleted(t, twoNodes(consolidationCluster(nodePool("default", budgets(nodes("100%"))), noClass)), "node-1")
	}},
	{Name: "deletes-onto-unmanaged-capacity", Run: func(t *T) {
		c := consolidationCluster().
			node(managedNode("node-0", "default", cheapestOnDemand, withPods(pod("a", ""), pod("b", ""), pod("c", "")))).
			node(managedNode("unmanaged", "", cheapestOnDemand, unmanaged))
		expectDeleted(t, c, "node-0")
	}},
	{Name: "pdb-keeps-its-node", Run: func(t *T) {
		c := twoNodes(consolidationCluster(), nil, nil, []podOption{podLabel("app", "pdb")}).
			pdb("pdb", intstr.FromInt32(0), map[string]string{"app": "pdb"})
		expectDeleted(t, c, "node-0")
	}},
	{Name: "do-not-disrupt-node-kept", Run: func(t *T) {
		c := twoNodes(consolidationCluster())
		nodeAnnotation(apis.AnnotationDoNotDisrupt, "true")(c.Nodes[1])
		expectDeleted(t, c, "node-0")
	}},
	{Name: "do-not-disrupt-pod-keeps-its-node", Run: func(t *T) {
		c := twoNodes(consolidationCluster(), nil, nil, []podOption{podAnnotation(apis.AnnotationDoNotDisrupt, "true")})
		expectDeleted(t, c, "node-0")
	}},
	{Name: "do-not-disrupt-pods-block-despite-grace-period", Run: func(t *T) {
		dnd := []podOption{podAnnotation(apis.AnnotationDoNotDisrupt, "true")}
		c := twoNodes(consolidationCluster(), dnd, dnd, dnd)
		for _, n := range c.Nodes {
			terminationGracePeriod(5 * time.Minute)(n)
		}
		expectNothing(t, c.evaluate())
	}},
	{Name: "pdb-blocks-despite-grace-period", Run: func(t *T) {
		l := []podOption{podLabel("app", "pdb")}
		c := twoNodes(consolidationCluster(), l, l, l).pdb("pdb", intstr.FromInt32(0), map[string]string{"app": "pdb"})
		for _, n := range c.Nodes {
			terminationGracePeriod(5 * time.Minute)(n)
		}
		expectNothing(t, c.evaluate())
	}},
	{Name: "do-not-disrupt-duration-running-keeps-node", Run: func(t *T) {
		c := twoNodes(consolidationCluster(), nil, nil, []podOption{startedAgo(0), podAnnotation(apis.AnnotationDoNotDisrupt, "2m")})
		expectDeleted(t, c, "node-0")
	}},
	{Name: "do-not-disrupt-duration-expires", Run: func(t *T) {
		d := []podOption{startedAgo(0), podAnnotation(apis.AnnotationDoNotDisrupt, "2m")}
		c := twoNodes(consolidationCluster(), d, d, d)
		expectNothing(t, c.evaluate())
		require.Len(t, c.evaluateAt(now.Add(3*time.Minute)).Commands, 1)
	}},
	{Name: "invalid-do-not-disrupt-does-not-block", Run: func(t *T) {
		c := twoNodes(consolidationCluster(), nil, nil, []podOption{podAnnotation(apis.AnnotationDoNotDisrupt, "invalid-format")})
		expectDeleted(t, c, "node-1")
	}},
	{Name: "pods-without-owner", Run: func(t *T) {
		u := []podOption{unowned}
		expectDeleted(t, twoNodes(consolidationCluster(), u, u, u), "node-1")
	}},
	{Name: "no-move-onto-uninitialized-node", Run: func(t *T) {
		c := twoNodes(consolidationCluster())
		uninitialized(c.Nodes[0])
		expectNothing(t, c.evaluate())
	}},
	{Name: "no-move-onto-node-inside-consolidate-after", Run: func(t *T) {
		c := twoNodes(consolidationCluster(nodePool("default", budgets(nodes("100%")), consolidateAfter("1m"))))
		for _, n := range c.Nodes {
			lastPodEventAgo(0)(n)
		}
		expectNothing(t, c.evaluate())
		require.Equal(t, []string{"node-1"}, deleted(c.evaluateAt(now.Add(2*time.Minute))))
		// And the rule itself: node-1 may go, but its pod may not move to
		// node-0 while node-0 is inside its window.
		c.Nodes[0].LastPodEventAt = now.Add(time.Minute)
		c.Nodes[1].LastPodEventAt = now.Add(-2 * time.Minute)
		d := c.evaluateAt(now.Add(90 * time.Second))
		require.NotContains(t, deleted(d), "node-1", "%+v", d.Candidates)
	}},
	{Name: "moves-onto-node-of-pool-never-consolidating", Run: func(t *T) {
		c := consolidationCluster(nodePool("default", budgets(nodes("100%"))), nodePool("destination", budgets(nodes("100%")), consolidateAfter("Never"))).
			node(managedNode("node-0", "default", cheapestOnDemand, withPods(pod("a", "")))).
			node(managedNode("destination", "destination", cheapestOnDemand))
		expectDeleted(t, c, "node-0")
	}},
	{Name: "replaces-although-consolidate-after-not-passed-for-new-node", Run: func(t *T) {
		c := consolidationCluster(nodePool("default", budgets(nodes("100%")), consolidateAfter("1m"))).
			node(managedNode("node", "default", dearestOnDemand, lastPodEventAgo(0), withPods(pod("p", ""))))
		expectReplaced(t, c.evaluateAt(now.Add(2*time.Minute)), "node", dearestOnDemand)
	}},
	{Name: "initialized-destinations-first", Run: func(t *T) {
		catalog := mustCatalog(sizedType("default-instance-type", 3, 3, 110), sizedType("small-instance-type", 1, 1, 10))
		c := &cluster{opts: consolidationCluster().opts}
		c.poolWith(nodePool("default", budgets(nodes("100%"))), catalog)
		big := func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = mustQuantity("2Gi")
		}
		for i := range 100 {
			opts := []nodeOption{allocatable("3"), memory("3Gi"), withPods(pod(fmt.Sprintf("p-%d", i), "2", big))}
			if i == 42 {
				opts = append(opts, uninitialized)
			}
			c.node(managedNodeOf(catalog, fmt.Sprintf("node-%03d", i), "default", "default-instance-type", opts...))
		}
		small := func(p *corev1.Pod) {
			p.Spec.Containers[0].Resources.Requests[corev1.ResourceMemory] = mustQuantity("1Gi")
		}
		c.node(managedNodeOf(catalog, "small", "default", "small-instance-type", allocatable("1"), memory("1Gi"), withPods(pod("s", "1", small))))
		d := c.evaluate()
		require.Equal(t, []string{"small"}, deleted(d), "%+v", d.Candidates)
		require.Zero(t, replacements(d))
	}},
	{Name: "pending-pod-that-fits-nowhere-does-not-block", Run: func(t *T) {
		c := twoNodes(consolidationCluster()).pending(pod("pending", "", pendingPod, withSelector("non-existent", "node-label")))
		expectDeleted(t, c, "node-1")
	}},
	{Name: "running-pod-would-go-pending", Run: func(t *T) {
		c := twoNodes(consolidationCluster(), []podOption{withSelector("foo", "1")}, []podOption{withSelector("foo", "1")}, []podOption{withSelector("foo", "2")})
		c.Nodes[0].Node.Labels["foo"] = "1"
		c.Nodes[1].Node.Labels["foo"] = "2"
		expectNothing(t, c.evaluate())
	}},
	{Name: "deletes-while-invalid-pool-exists", Run: func(t *T) {
		c := twoNodes(consolidationCluster())
		c.poolWith(nodePool("bad-nodepool"), mustCatalog())
		expectDeleted(t, c, "node-1")
	}},
}

var _ = register("consolidation", consolidationDelete...)
