package conformance

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
)

// Upstream's consolidation suite: a WhenEmptyOrUnderutilized NodePool with
// consolidateAfter 0s and a 100% budget, spot-to-spot consolidation on, and
// candidates of the dearest on-demand (or spot) type with 32 CPUs
// allocatable.

func consolidationCluster(pools ...*apis.NodePool) *cluster {
	c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
	if len(pools) == 0 {
		pools = []*apis.NodePool{nodePool("default", budgets(nodes("100%")))}
	}
	for _, np := range pools {
		c.pool(np)
	}
	return c
}

// dearest is the dearest type of the capacity type a case is about.
func dearest(spot bool) string {
	if spot {
		return dearestSpot
	}
	return dearestOnDemand
}

// capacityCases is the pair of cases upstream's tables run for an
// on-demand and a spot candidate.
func capacityCases(name string, run func(t *T, spot bool)) []conformanceCase {
	return []conformanceCase{
		{Name: name + "-on-demand", Run: func(t *T) { run(t, false) }},
		{Name: name + "-spot", Run: func(t *T) { run(t, true) }},
	}
}

// expectReplaced checks one command deleting node and launching one
// NodeClaim whose options exclude node's own type.
func expectReplaced(t *T, d consolidation.Decision, node, nodeType string) {
	t.Helper()
	require.Len(t, d.Commands, 1, "%+v", d.Candidates)
	cmd := d.Commands[0]
	require.Equal(t, []string{node}, cmd.Delete)
	require.Len(t, cmd.Replacements, 1)
	require.NotContains(t, cmd.Replacements[0].InstanceTypeOptions, nodeType)
}

func expectNothing(t *T, d consolidation.Decision) {
	t.Helper()
	require.Empty(t, d.Commands, "%+v", d.Candidates)
}

// tenNodes adds ten nodes of the dearest on-demand type, each with one
// pod requesting cpu ("" for none).
func tenNodes(c *cluster, pool, cpu string) {
	for i := range 10 {
		var opts []nodeOption
		if cpu != "" {
			opts = append(opts, withPods(pod(fmt.Sprintf("p-%d", i), cpu)))
		}
		c.node(managedNode(fmt.Sprintf("node-%d", i), pool, dearestOnDemand, opts...))
	}
}

func poolsOfThree(budget string) *cluster {
	c := consolidationCluster()
	for p := range 10 {
		pool := fmt.Sprintf("pool-%d", p)
		c.pool(nodePool(pool, budgets(nodes(budget))))
		for i := range 3 {
			c.node(managedNode(fmt.Sprintf("%s-node-%d", pool, i), pool, dearestOnDemand))
		}
	}
	return c
}

// spotCatalog is the first 18 spot types of the assorted catalog, priced
// 1.0, 1.1, … in that order except the 17th, at 0.001: upstream's setting
// for the spot-to-spot flexibility specs.
func spotCatalog() ([]*instancetypes.InstanceType, instancetypes.Catalog) {
	var spot []*instancetypes.InstanceType
	for _, sh := range assortedShapes() {
		if sh.capacityType != apis.CapacityTypeSpot || len(spot) == 18 {
			continue
		}
		price := 1.0 + float64(len(spot))*0.1
		if len(spot) == 16 {
			price = 0.001
		}
		spot = append(spot, sh.priced(price))
	}
	return spot, mustCatalog(spot...)
}

// spotFlexibility runs the spot-to-spot truncation specs: a node of the
// dearest of spotCatalog's types is replaced by a NodeClaim with the want
// cheapest types, the 0.001 one among them.
func spotFlexibility(minValues, want int) func(t *T) {
	return func(t *T) {
		types, catalog := spotCatalog()
		var opts []poolOption
		if minValues > 0 {
			opts = append(opts, func(np *apis.NodePool) {
				np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, apis.NodeSelectorRequirementWithMinValues{
					Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpExists, MinValues: &minValues})
			})
		}
		c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
		c.poolWith(nodePool("default", append(opts, budgets(nodes("100%")))...), catalog)
		c.node(managedNodeOf(catalog, "node", "default", types[17].Name, withPods(pod("p", ""))))
		d := c.evaluate()
		expectReplaced(t, d, "node", types[17].Name)
		got := d.Commands[0].Replacements[0].InstanceTypeOptions
		byPrice := slices.Clone(types)
		slices.SortStableFunc(byPrice, cmpPrice)
		var wantNames []string
		for _, it := range byPrice[:want] {
			wantNames = append(wantNames, it.Name)
		}
		require.ElementsMatch(t, wantNames, got)
		require.Contains(t, got, types[16].Name)
	}
}

// cmpPrice orders single-offering types by price.
func cmpPrice(a, b *instancetypes.InstanceType) int {
	return cmp.Compare(a.Offerings[0].Price, b.Offerings[0].Price)
}

func notReadyPod(p *corev1.Pod) {
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
}

var consolidationBudgets = []conformanceCase{
	{Name: "budget-30-percent-empty", Run: func(t *T) {
		c := consolidationCluster(nodePool("default", budgets(nodes("30%"))))
		tenNodes(c, "default", "")
		require.Len(t, deleted(c.evaluate()), 3)
	}},
	{Name: "budget-100-percent-empty", Run: func(t *T) {
		c := consolidationCluster()
		tenNodes(c, "default", "")
		require.Len(t, deleted(c.evaluate()), 10)
	}},
	{Name: "budget-0-percent-empty", Run: func(t *T) {
		c := consolidationCluster(nodePool("default", budgets(nodes("0%"))))
		tenNodes(c, "default", "")
		expectNothing(t, c.evaluate())
	}},
	{Name: "budget-30-percent-multi-node", Run: func(t *T) {
		c := consolidationCluster(nodePool("default", budgets(nodes("30%"))))
		tenNodes(c, "default", "100m")
		d := c.evaluate()
		require.Len(t, d.Commands, 1)
		require.Len(t, d.Commands[0].Delete, 3)
	}},
	{Name: "budget-30-percent-single-node-passes", Run: func(t *T) {
		c := consolidationCluster(nodePool("default", budgets(nodes("30%"))))
		tenNodes(c, "default", "15")
		require.Equal(t, 3, deletedBy(c.passes(5)))
	}},
	{Name: "budget-50-percent-per-pool", Run: func(t *T) {
		c := poolsOfThree("50%")
		require.Len(t, deleted(c.evaluate()), 20)
	}},
	{Name: "budget-100-percent-per-pool", Run: func(t *T) {
		c := poolsOfThree("100%")
		require.Len(t, deleted(c.evaluate()), 30)
	}},
	{Name: "budget-0-percent-per-pool", Run: func(t *T) {
		expectNothing(t, poolsOfThree("0%").evaluate())
	}},
}

var consolidationReplace = slices.Concat(
	capacityCases("replaces-with-cheaper", func(t *T, spot bool) {
		c := consolidationCluster().node(managedNode("node", "default", dearest(spot), withPods(pod("p", ""))))
		expectReplaced(t, c.evaluate(), "node", dearest(spot))
	}),
	[]conformanceCase{
		{Name: "spot-to-spot-needs-15-cheaper-types", Run: func(t *T) {
			types := assortedTypes(map[int]float64{0: 0.001})[:5]
			catalog := mustCatalog(types...)
			c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
			c.poolWith(nodePool("default", budgets(nodes("100%"))), catalog).
				node(managedNodeOf(catalog, "node", "default", types[3].Name, withPods(pod("p", ""))))
			expectNothing(t, c.evaluate())
		}},
		{Name: "spot-to-spot-disabled", Run: func(t *T) {
			c := consolidationCluster().node(managedNode("node", "default", dearestSpot, withPods(pod("p", ""))))
			c.opts.SpotToSpotConsolidation = false
			expectNothing(t, c.evaluate())
		}},
		{Name: "spot-to-spot-among-15-cheapest", Run: func(t *T) {
			types := assortedTypes(map[int]float64{0: 0.001})[:20]
			catalog := mustCatalog(types...)
			c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
			c.poolWith(nodePool("default", budgets(nodes("100%"))), catalog).
				node(managedNodeOf(catalog, "node", "default", types[1].Name, withPods(pod("p", ""))))
			expectNothing(t, c.evaluate())
		}},
		{Name: "spot-to-spot-15-cheapest-by-price", Run: spotFlexibility(0, 15)},
		{Name: "spot-to-spot-min-values-above-15", Run: spotFlexibility(16, 16)},
		{Name: "spot-to-spot-min-values-below-15", Run: spotFlexibility(10, 15)},
		{Name: "same-type-filter-breaks-min-values", Run: func(t *T) {
			catalog := mustCatalog(
				customType("current-on-demand", 5, offering("test-zone-1a", apis.CapacityTypeOnDemand, 0.5, true)),
				customType("other-on-demand", 5, offering("test-zone-1a", apis.CapacityTypeOnDemand, 0.4, true)))
			two := 2
			np := nodePool("default", budgets(nodes("100%")), func(np *apis.NodePool) {
				np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
					{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpExists, MinValues: &two},
					{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.CapacityTypeOnDemand}},
				}
			})
			c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
			c.poolWith(np, catalog)
			for i, pods := range [][]string{{"a"}, {"b"}, {"c", "d"}} {
				var ps []*corev1.Pod
				for _, name := range pods {
					ps = append(ps, pod(name, "2"))
				}
				c.node(managedNodeOf(catalog, fmt.Sprintf("node-%d", i), "default", "current-on-demand", allocatable("4"), withPods(ps...)))
			}
			d := c.evaluate()
			require.Len(t, d.Commands, 1)
			require.Len(t, d.Commands[0].Delete, 1)
			require.Zero(t, replacements(d))
		}},
	},
	capacityCases("price-filter-breaks-min-values", func(t *T, _ bool) {
		sixteen := 16
		np := nodePool("default", budgets(nodes("100%")), func(np *apis.NodePool) {
			np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
				{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpExists, MinValues: &sixteen}}
		})
		// Upstream binds the pod to the spot node in both entries: a node of
		// the 16th cheapest spot type (the on-demand entry only adds
		// on-demand types the catalog already has). Only the twelve 1-CPU
		// 1Gi spot types are cheaper, fewer than minValues.
		var spot []*instancetypes.InstanceType
		for _, it := range assortedTypes(nil) {
			if it.Offerings[0].CapacityType == apis.CapacityTypeSpot {
				spot = append(spot, it)
			}
		}
		slices.SortStableFunc(spot, cmpPrice)
		c := consolidationCluster(np).node(managedNode("node", "default", spot[15].Name, withPods(pod("p", ""))))
		expectNothing(t, c.evaluate())
	}),
	capacityCases("other-pool-without-types", func(t *T, spot bool) {
		c := consolidationCluster().node(managedNode("node", "default", dearest(spot), withPods(pod("p", ""))))
		c.poolWith(nodePool("empty-pool"), mustCatalog())
		expectReplaced(t, c.evaluate(), "node", dearest(spot))
	}),
	capacityCases("pdb-blocks-replacement", func(t *T, spot bool) {
		c := consolidationCluster().node(managedNode("node", "default", dearest(spot),
			withPods(pod("a", "", podLabel("app", "pdb")), pod("b", "", podLabel("app", "pdb")), pod("c", "", podLabel("app", "pdb"))))).
			pdb("pdb", intstr.FromInt32(0), map[string]string{"app": "pdb"})
		expectNothing(t, c.evaluate())
	}),
	capacityCases("pdb-always-allow-unhealthy", func(t *T, spot bool) {
		c := consolidationCluster().node(managedNode("node", "default", dearest(spot),
			withPods(pod("a", "", podLabel("app", "pdb"), notReadyPod), pod("b", "", podLabel("app", "pdb"), notReadyPod),
				pod("c", "", podLabel("app", "pdb"), notReadyPod)))).
			pdb("pdb", intstr.FromInt32(0), map[string]string{"app": "pdb"})
		always := policyv1.AlwaysAllow
		c.PDBs[0].Spec.UnhealthyPodEvictionPolicy = &always
		expectReplaced(t, c.evaluate(), "node", dearest(spot))
	}),
	capacityCases("pdb-other-namespace", func(t *T, spot bool) {
		c := consolidationCluster().node(managedNode("node", "default", dearest(spot), withPods(pod("a", "", podLabel("app", "pdb"))))).
			pdb("pdb", intstr.FromInt32(0), map[string]string{"app": "pdb"})
		c.PDBs[0].Namespace = "elsewhere"
		expectReplaced(t, c.evaluate(), "node", dearest(spot))
	}),
	capacityCases("do-not-disrupt-node-not-replaced", func(t *T, spot bool) {
		c := consolidationCluster().
			node(managedNode("node", "default", dearest(spot), withPods(pod("a", "2"), pod("b", "2")))).
			node(managedNode("annotated", "default", dearest(spot), allocatable("5"), nodeAnnotation(apis.AnnotationDoNotDisrupt, "true"),
				withPods(pod("c", "2"))))
		expectReplaced(t, c.evaluate(), "node", dearest(spot))
	}),
	capacityCases("do-not-disrupt-pod-node-not-replaced", func(t *T, spot bool) {
		c := consolidationCluster().
			node(managedNode("node", "default", dearest(spot), withPods(pod("a", "2"), pod("b", "2")))).
			node(managedNode("node-2", "default", dearest(spot), allocatable("5"),
				withPods(pod("c", "2", podAnnotation(apis.AnnotationDoNotDisrupt, "true")))))
		expectReplaced(t, c.evaluate(), "node", dearest(spot))
	}),
	[]conformanceCase{
		{Name: "no-replacement-if-any-spot-offering-dearer", Run: func(t *T) {
			catalog := mustCatalog(
				customType("current-on-demand", 4, offering("test-zone-1a", apis.CapacityTypeOnDemand, 0.5, false)),
				customType("potential-spot-replacement", 4, offering("test-zone-1a", apis.CapacityTypeSpot, 1.0, true),
					offering("test-zone-1b", apis.CapacityTypeSpot, 0.2, true), offering("test-zone-1c", apis.CapacityTypeSpot, 0.4, true)))
			c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
			c.poolWith(nodePool("default", budgets(nodes("100%"))), catalog).
				node(managedNodeOf(catalog, "node", "default", "current-on-demand", withPods(pod("p", ""))))
			expectNothing(t, c.evaluate())
		}},
		{Name: "no-replacement-if-on-demand-dearer", Run: func(t *T) {
			catalog := mustCatalog(
				customType("current-on-demand", 4, offering("test-zone-1a", apis.CapacityTypeOnDemand, 0.5, false)),
				customType("on-demand-replacement", 4, offering("test-zone-1a", apis.CapacityTypeOnDemand, 0.6, true),
					offering("test-zone-1b", apis.CapacityTypeOnDemand, 0.6, true), offering("test-zone-1b", apis.CapacityTypeSpot, 0.2, true),
					offering("test-zone-1c", apis.CapacityTypeSpot, 0.3, true)))
			np := nodePool("default", budgets(nodes("100%")), func(np *apis.NodePool) {
				np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
					{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.CapacityTypeOnDemand}}}
			})
			c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
			c.poolWith(np, catalog).node(managedNodeOf(catalog, "node", "default", "current-on-demand", withPods(pod("p", ""))))
			expectNothing(t, c.evaluate())
		}},
	},
)

var _ = register("consolidation", slices.Concat(consolidationBudgets, consolidationReplace)...)

var _ = time.Second
