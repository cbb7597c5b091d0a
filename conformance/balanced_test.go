package conformance

import (
	"fmt"
	"slices"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// Upstream's Balanced integration specs: a Balanced NodePool with
// consolidateAfter 0s and a 100% budget.

func balancedPool(name string, opts ...poolOption) *apis.NodePool {
	return nodePool(name, append([]poolOption{policy(apis.ConsolidationPolicyBalanced), budgets(nodes("100%"))}, opts...)...)
}

func balancedCluster(opts ...poolOption) *cluster {
	return consolidationCluster(balancedPool("default", opts...))
}

// onDemandByPrice is the assorted catalog's on-demand types, cheapest first,
// as upstream's suite lists them.
func onDemandByPrice() []*instancetypes.InstanceType {
	var out []*instancetypes.InstanceType
	for _, it := range assortedTypes(nil) {
		if it.Offerings[0].CapacityType == apis.CapacityTypeOnDemand {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, cmpPrice)
	return out
}

// withManyPods binds n pods named prefix-0… requesting cpu.
func withManyPods(prefix string, n int, cpu string) nodeOption {
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		pods[i] = pod(fmt.Sprintf("%s-%d", prefix, i), cpu)
	}
	return withPods(pods...)
}

var _ = register("balanced",
	conformanceCase{Name: "replaces-oversized-node", Run: func(t *T) {
		c := balancedCluster().node(managedNode("node", "default", dearestOnDemand, withPods(pod("p", "500m"))))
		expectReplaced(t, c.evaluate(), "node", dearestOnDemand)
	}},
	conformanceCase{Name: "keeps-well-packed-node", Run: func(t *T) {
		c := balancedCluster().node(managedNode("node", "default", cheapestOnDemand, withManyPods("p", 8, "3500m")))
		expectNothing(t, c.evaluate())
	}},
	conformanceCase{Name: "merges-underutilized-nodes", Run: func(t *T) {
		c := balancedCluster()
		for i := range 3 {
			c.node(managedNode(fmt.Sprintf("node-%d", i), "default", dearestOnDemand, withPods(pod(fmt.Sprintf("p-%d", i), "1"))))
		}
		d := c.evaluate()
		require.Len(t, d.Commands, 1)
		require.GreaterOrEqual(t, len(d.Commands[0].Delete), 2)
	}},
	conformanceCase{Name: "zero-budget-blocks", Run: func(t *T) {
		c := balancedCluster(budgets(nodes("0%"))).node(managedNode("node", "default", dearestOnDemand, withPods(pod("p", "500m"))))
		expectNothing(t, c.evaluate())
	}},
	conformanceCase{Name: "empty-before-underutilized", Run: func(t *T) {
		c := balancedCluster(budgets(nodes("1"))).
			node(managedNode("empty", "default", dearestOnDemand)).
			node(managedNode("underutilized", "default", dearestOnDemand, withPods(pod("p", "500m"))))
		d := c.evaluate()
		require.Len(t, d.Commands, 1)
		require.Equal(t, []string{"empty"}, d.Commands[0].Delete)
	}},
	conformanceCase{Name: "deletes-when-pods-fit", Run: func(t *T) {
		od := onDemandByPrice()
		source := od[len(od)/2]
		c := balancedCluster().
			node(managedNode("a", "default", source.Name, withPods(pod("pa", "1")))).
			node(managedNode("b", "default", source.Name, withManyPods("pb", 30, "1")))
		d := c.evaluate()
		require.Len(t, d.Commands, 1, "%+v", d.Candidates)
		cmd := d.Commands[0]
		require.Equal(t, []string{"a"}, cmd.Delete)
		require.Empty(t, cmd.Replacements)
		require.InDelta(t, source.Offerings[0].Price, cmd.SavingsPerHour, 0.01)
	}},
	conformanceCase{Name: "replaces-with-cheaper-node", Run: func(t *T) {
		c := balancedCluster().node(managedNode("a", "default", dearestOnDemand, withPods(pod("p", "2"))))
		d := c.evaluate()
		expectReplaced(t, d, "a", dearestOnDemand)
		dearestPrice := onDemandByPrice()[len(onDemandByPrice())-1].Offerings[0].Price
		require.Greater(t, d.Commands[0].SavingsPerHour, 0.0)
		require.Less(t, d.Commands[0].SavingsPerHour, dearestPrice)
	}},
	conformanceCase{Name: "highest-ratio-first", Run: func(t *T) {
		od := onDemandByPrice()
		c := balancedCluster().
			node(managedNode("a", "default", od[len(od)-1].Name, withManyPods("pa", 10, "100m"))).
			node(managedNode("b", "default", od[len(od)/2].Name, withPods(pod("pb", "100m")))).
			node(managedNode("c", "default", od[0].Name, allocatable("4"), withManyPods("pc", 8, "100m")))
		d := c.evaluate()
		require.NotEmpty(t, d.Commands, "%+v", d.Candidates)
		require.Contains(t, d.Commands[0].Delete, "b")
	}},
	conformanceCase{Name: "savings-ratio-order", Run: func(t *T) {
		// Of two nodes at the same price, the one whose pod costs less to
		// evict (here b) has the higher savings ratio and goes first.
		dear := []podOption{priority(1 << 25)}
		require.Equal(t, "b", evictedFirstIn(t, balancedPool("default"), dear, nil))
		require.Equal(t, "a", evictedFirstIn(t, balancedPool("default"), nil, dear))
	}},
	conformanceCase{Name: "mixed-policies", Run: func(t *T) {
		c := consolidationCluster(balancedPool("balanced"), nodePool("default", budgets(nodes("100%")))).
			node(managedNode("balanced-node", "balanced", dearestOnDemand, withPods(pod("pb", "500m")))).
			node(managedNode("default-node", "default", dearestOnDemand, withPods(pod("pd", "500m"))))
		cmds := c.passes(3)
		var gone []string
		for _, cmd := range cmds {
			gone = append(gone, cmd.Delete...)
		}
		require.Contains(t, gone, "balanced-node")
	}},
)
