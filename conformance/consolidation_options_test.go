package conformance

import (
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
)

// reservedCatalog is the assorted catalog in which the named types also
// have a capacity reservation "r-<name>" in their zone, for ten instances,
// at a millionth of their price.
func reservedCatalog(names ...string) instancetypes.Catalog {
	var types []*instancetypes.InstanceType
	for _, it := range assortedTypes(nil) {
		for _, name := range names {
			if it.Name == name {
				o := it.Offerings[0]
				spec := instancetypes.Spec{Name: it.Name, Labels: it.Labels(), Capacity: it.Capacity, Overhead: it.Overhead,
					Offerings: []instancetypes.Offering{o, {Zone: o.Zone, CapacityType: apis.CapacityTypeReserved, Price: o.Price / 1e6,
						Available: true, ReservationID: "r-" + name, ReservationCapacity: 10}}}
				delete(spec.Labels, apis.LabelInstanceType)
				delete(spec.Labels, apis.LabelTopologyZone)
				delete(spec.Labels, apis.LabelCapacityType)
				if _, ok := it.Labels()[instancetypes.FakeLabelSpecial]; !ok {
					spec.AbsentLabels = []string{instancetypes.FakeLabelSpecial}
				}
				it = mustType(spec)
			}
		}
		types = append(types, it)
	}
	return mustCatalog(types...)
}

// reservedNode is a node of instanceType launched into its reservation.
func reservedNode(catalog instancetypes.Catalog, name, instanceType string, opts ...nodeOption) *consolidation.Node {
	n := managedNodeOf(catalog, name, "default", instanceType, opts...)
	n.Node.Labels[apis.LabelCapacityType] = apis.CapacityTypeReserved
	n.Node.Labels[apis.LabelCapacityReservationID] = "r-" + instanceType
	return n
}

func expectReservedReplacement(t *T, d consolidation.Decision, node, instanceType string) {
	t.Helper()
	require.Len(t, d.Commands, 1, "%+v", d.Candidates)
	require.Equal(t, []string{node}, d.Commands[0].Delete)
	require.Len(t, d.Commands[0].Replacements, 1)
	r := d.Commands[0].Replacements[0]
	require.Equal(t, instanceType, r.InstanceType)
	require.Equal(t, apis.CapacityTypeReserved, r.CapacityType)
}

var consolidationOptions = []conformanceCase{
	{Name: "reserved-to-cheaper-reservation", Run: func(t *T) {
		catalog := reservedCatalog(dearestOnDemand, cheapestOnDemand)
		c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
		c.poolWith(nodePool("default", budgets(nodes("100%"))), catalog).
			node(reservedNode(catalog, "node", dearestOnDemand, withPods(pod("p", ""))))
		expectReservedReplacement(t, c.evaluate(), "node", cheapestOnDemand)
	}},
	{Name: "on-demand-into-reservation", Run: func(t *T) {
		catalog := reservedCatalog(dearestOnDemand)
		c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
		c.poolWith(nodePool("default", budgets(nodes("100%"))), catalog).
			node(managedNodeOf(catalog, "node", "default", dearestOnDemand, withPods(pod("p", ""))))
		expectReservedReplacement(t, c.evaluate(), "node", dearestOnDemand)
	}},
	{Name: "spot-into-reservation", Run: func(t *T) {
		catalog := reservedCatalog(dearestOnDemand)
		c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
		c.poolWith(nodePool("default", budgets(nodes("100%"))), catalog).
			node(managedNodeOf(catalog, "node", "default", dearestSpot, withPods(pod("p", ""))))
		expectReservedReplacement(t, c.evaluate(), "node", dearestOnDemand)
	}},
	{Name: "ignored-preferences-delete", Run: func(t *T) {
		anti := func(p *corev1.Pod) {
			withAntiAffinity(apis.LabelHostname, map[string]string{"app": "foo"})(p)
			a := p.Spec.Affinity.PodAntiAffinity
			a.PreferredDuringSchedulingIgnoredDuringExecution = []corev1.WeightedPodAffinityTerm{{Weight: 1, PodAffinityTerm: a.RequiredDuringSchedulingIgnoredDuringExecution[0]}}
			a.RequiredDuringSchedulingIgnoredDuringExecution = nil
		}
		o := []podOption{podLabel("app", "foo"), anti}
		c := consolidationCluster().
			node(managedNode("node-0", "default", cheapestOnDemand, allocatable("5"), withPods(pod("a", "", o...), pod("b", "", o...)))).
			node(managedNode("node-1", "default", cheapestOnDemand, allocatable("5"), withPods(pod("c", "", o...))))
		c.opts.Scheduling.IgnorePreferences = true
		expectDeleted(t, c, "node-1")
	}},
	{Name: "ignored-preferences-replace", Run: func(t *T) {
		prefersDearest := func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
				Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
					{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{dearestOnDemand}}}}}}}}
		}
		c := consolidationCluster().node(managedNode("node", "default", dearestOnDemand, withPods(pod("p", "", prefersDearest))))
		c.opts.Scheduling.IgnorePreferences = true
		expectReplaced(t, c.evaluate(), "node", dearestOnDemand)
	}},
	{Name: "best-effort-min-values-not-relaxed", Run: func(t *T) {
		catalog := mustCatalog(assortedTypes(nil)...)
		two := []*instancetypes.InstanceType{}
		for _, name := range []string{cheapestOnDemand, dearestOnDemand} {
			it, _ := catalog.Get(name)
			two = append(two, it)
		}
		catalog = mustCatalog(two...)
		three := 3
		np := nodePool("default", budgets(nodes("100%")), func(np *apis.NodePool) {
			np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{{Key: apis.LabelInstanceType,
				Operator: corev1.NodeSelectorOpIn, Values: []string{cheapestOnDemand, dearestOnDemand}, MinValues: &three}}
		})
		c := &cluster{opts: consolidation.Options{SpotToSpotConsolidation: true}}
		c.opts.Scheduling.MinValuesBestEffort = true
		c.poolWith(np, catalog).node(managedNodeOf(catalog, "node", "default", dearestOnDemand, allocatable("5"), withPods(pod("p", ""))))
		expectNothing(t, c.evaluate())
	}},
}

var _ = register("consolidation", consolidationOptions...)
