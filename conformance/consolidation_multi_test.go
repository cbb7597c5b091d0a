package conformance

import (
	"fmt"
	"slices"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

// cheapestOnDemandIn is the cheapest on-demand type sold in zone, and
// dearestOnDemandIn the dearest.
func cheapestOnDemandIn(zone string) string {
	return fmt.Sprintf("1-cpu-1-mem-amd64-linux-%s-on-demand", zone)
}

func dearestOnDemandIn(zone string) string {
	return fmt.Sprintf("64-cpu-128-mem-amd64-linux-%s-on-demand", zone)
}

func withSpread(key string, selector map[string]string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: selector}})
	}
}

func withAntiAffinity(key string, selector map[string]string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: selector}}}}}
	}
}

// zonalNodes are upstream's three topology nodes with 1 CPU allocatable:
// the cheapest on-demand type in test-zone-1 and -3, and in test-zone-2
// the type given.
func zonalNodes(c *cluster, zone2Type string, pods ...*corev1.Pod) *cluster {
	types := []string{cheapestOnDemandIn("test-zone-1"), zone2Type, cheapestOnDemandIn("test-zone-3")}
	for i, it := range types {
		c.node(managedNode(fmt.Sprintf("node-%d", i), "default", it, allocatable("1"), withPods(pods[i])))
	}
	return c
}

var consolidationMulti = slices.Concat(
	capacityCases("merges-three-into-one", func(t *T, spot bool) {
		c := consolidationCluster()
		for i := range 3 {
			c.node(managedNode(fmt.Sprintf("node-%d", i), "default", dearest(spot), withPods(pod(fmt.Sprintf("p-%d", i), ""))))
		}
		d := c.evaluate()
		require.Len(t, d.Commands, 1)
		require.Equal(t, []string{"node-0", "node-1", "node-2"}, d.Commands[0].Delete)
		require.Len(t, d.Commands[0].Replacements, 1)
	}),
	[]conformanceCase{{Name: "merges-mixed-capacity-types", Run: func(t *T) {
		c := consolidationCluster()
		for i, it := range []string{dearestOnDemand, dearestOnDemand, dearestSpot} {
			c.node(managedNode(fmt.Sprintf("node-%d", i), "default", it, withPods(pod(fmt.Sprintf("p-%d", i), ""))))
		}
		d := c.evaluate()
		require.Len(t, d.Commands, 1)
		require.Equal(t, []string{"node-0", "node-1", "node-2"}, d.Commands[0].Delete)
		require.Len(t, d.Commands[0].Replacements, 1)
	}}},
	capacityCases("no-merge-into-same-type", func(t *T, spot bool) {
		// Upstream's table swaps the capacity types: its on-demand entry
		// uses spot nodes of the cheapest spot type and the other way round.
		it := cheapestSpot
		if spot {
			it = cheapestOnDemand
		}
		c := consolidationCluster().
			node(managedNode("node-0", "default", it, withPods(pod("a", "")))).
			node(managedNode("node-1", "default", it, withPods(pod("b", ""), pod("c", ""))))
		d := c.evaluate()
		require.Len(t, d.Commands, 1)
		require.Equal(t, []string{"node-0"}, d.Commands[0].Delete)
		require.Zero(t, replacements(d))
	}),
	capacityCases("empty-nodes-all-go", func(t *T, spot bool) {
		c := consolidationCluster()
		for i := range 3 {
			c.node(managedNode(fmt.Sprintf("node-%d", i), "default", dearest(spot)))
		}
		require.Equal(t, []string{"node-0", "node-1", "node-2"}, deleted(c.evaluate()))
	}),
	[]conformanceCase{
		{Name: "best-savings-ratio-first", Run: func(t *T) {
			expectDeleted(t, twoNodes(consolidationCluster()), "node-1")
		}},
		{Name: "replacement-keeps-zonal-spread", Run: func(t *T) {
			spread := withSpread(apis.LabelTopologyZone, map[string]string{"app": "spread"})
			pods := []*corev1.Pod{}
			for i := range 3 {
				pods = append(pods, pod(fmt.Sprintf("p-%d", i), "1", podLabel("app", "spread"), spread))
			}
			c := zonalNodes(consolidationCluster(), dearestOnDemandIn("test-zone-2"), pods...)
			d := c.evaluate()
			expectReplaced(t, d, "node-1", dearestOnDemandIn("test-zone-2"))
			require.Equal(t, "test-zone-2", d.Commands[0].Replacements[0].Zone)
		}},
		{Name: "anti-affinity-keeps-nodes", Run: func(t *T) {
			anti := withAntiAffinity(apis.LabelHostname, map[string]string{"app": "test"})
			pods := []*corev1.Pod{}
			for i := range 3 {
				pods = append(pods, pod(fmt.Sprintf("p-%d", i), "1", anti))
			}
			c := zonalNodes(consolidationCluster(), cheapestOnDemandIn("test-zone-2"), pods...)
			expectNothing(t, c.evaluate())
		}},
		{Name: "static-pool-not-consolidated", Run: func(t *T) {
			c := consolidationCluster(nodePool("static", replicas(2), budgets(nodes("100%"))))
			for i := range 2 {
				c.node(managedNode(fmt.Sprintf("node-%d", i), "static", dearestOnDemand, withPods(pod(fmt.Sprintf("p-%d", i), ""))))
			}
			expectNothing(t, c.evaluate())
		}},
	},
)

var _ = register("consolidation", consolidationMulti...)
