package conformance

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
)

// Upstream's topology suite: one NodePool allowing every capacity type over
// the default fake catalog, pods labelled test=test spreading over a key.

var testLabels = map[string]string{"test": "test"}

// topoPool is the topology suite's NodePool, with opts on top.
func topoPool(opts ...poolOption) *apis.NodePool {
	return nodePool("default", append([]poolOption{withRequirements(anyCapacityType)}, opts...)...)
}

// topoWorld is a world with the suite's NodePool and the default catalog.
func topoWorld(opts ...poolOption) *world {
	return newWorld(defaultFakeCatalog(), topoPool(opts...))
}

// spreadPods are n pending pods labelled test=test carrying cs.
func spreadPods(n int, prefix string, cs corev1.TopologySpreadConstraint, opts ...podOption) []*corev1.Pod {
	return ppods(n, prefix, append([]podOption{labelled("test", "test"), spreads(cs)}, opts...)...)
}

var zoneSpread = spread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule, testLabels)

// zones requires the pool's zones to be among zs.
func zones(zs ...string) poolOption {
	return withRequirements(anyCapacityType, req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, zs...))
}

var _ = register("topology",
	conformanceCase{Name: "unknown-key-ignored", Run: func(t *T) {
		w := topoWorld()
		spreading := ppod("spreading", labelled("test", "test"), spreads(spread("unknown", 1, corev1.DoNotSchedule, testLabels)))
		plain := ppod("plain")
		w.provision(spreading, plain)
		require.False(t, scheduled(spreading), "a spread over a key no node can have is unsatisfiable")
		require.True(t, scheduled(plain))
	}},
	conformanceCase{Name: "invalid-selector-no-spread", Run: func(t *T) {
		// A selector value that is not a valid label value matches no pod,
		// so the spread does not separate the pods.
		cs := spread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule, map[string]string{"app.kubernetes.io/name": "{{ zqfmgb }}"})
		w := topoWorld()
		w.provision(spreadPods(2, "p", cs)...)
		require.Equal(t, []int{2}, w.skew(apis.LabelTopologyZone, nil), "both pods share a zone")
	}},
	conformanceCase{Name: "nil-selector-no-spread", Run: func(t *T) {
		cs := spread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule, nil)
		w := topoWorld()
		w.provision(spreadPods(2, "p", cs)...)
		require.Equal(t, []int{2}, w.skew(apis.LabelTopologyZone, nil))
	}},
	conformanceCase{Name: "zonal-match-labels", Run: func(t *T) {
		w := topoWorld()
		w.provision(spreadPods(4, "p", zoneSpread)...)
		require.Equal(t, []int{1, 1, 2}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zonal-match-expressions", Run: func(t *T) {
		cs := spread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule, nil)
		cs.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "test", Operator: metav1.LabelSelectorOpIn, Values: []string{"test"}}}}
		w := topoWorld()
		w.provision(spreadPods(4, "p", cs)...)
		require.Equal(t, []int{1, 1, 2}, w.skew(apis.LabelTopologyZone, cs.LabelSelector))
	}},
	conformanceCase{Name: "zonal-pool-zones", Run: func(t *T) {
		w := topoWorld(zones(fakeZones...))
		w.provision(spreadPods(4, "p", zoneSpread)...)
		require.Equal(t, []int{1, 1, 2}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zonal-pool-zone-subset", Run: func(t *T) {
		w := topoWorld(zones("test-zone-1", "test-zone-2"))
		w.provision(spreadPods(4, "p", zoneSpread)...)
		require.Equal(t, []int{2, 2}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zonal-pool-zone-label", Run: func(t *T) {
		w := topoWorld(withLabels(apis.LabelTopologyZone, "test-zone-1"))
		w.provision(spreadPods(4, "p", zoneSpread)...)
		require.Equal(t, []int{4}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zonal-pool-zone-requirements-and-label", Run: func(t *T) {
		w := topoWorld(zones("test-zone-1", "test-zone-2"), withLabels(apis.LabelTopologyZone, "test-zone-1"))
		w.provision(spreadPods(4, "p", zoneSpread)...)
		require.Equal(t, []int{4}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zonal-pool-zone-labels-across-pools", Run: func(t *T) {
		w := topoWorld(zones("test-zone-1", "test-zone-2"), withLabels(apis.LabelTopologyZone, "test-zone-1"))
		w.setPool(nodePool("second", withLabels(apis.LabelTopologyZone, "test-zone-2")))
		w.provision(spreadPods(4, "p", zoneSpread)...)
		require.Equal(t, []int{2, 2}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zonal-existing-pod-outside-pool", Run: func(t *T) {
		w := topoWorld()
		first := ppod("first", labelled("test", "test"), requests("cpu", "1.1"), nodeSelector(apis.LabelTopologyZone, "test-zone-3"))
		w.provision(first)
		require.True(t, scheduled(first))
		w.setPool(topoPool(zones("test-zone-1", "test-zone-2")))
		w.provision(spreadPods(6, "p", zoneSpread, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1, 2, 2}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zonal-non-minimum-domain", Run: func(t *T) {
		cs := spread(apis.LabelTopologyZone, 5, corev1.DoNotSchedule, testLabels)
		w := topoWorld(zones("test-zone-1"))
		w.provision(spreadPods(1, "a", cs, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1}, w.skew(apis.LabelTopologyZone, cs.LabelSelector))
		w.setPool(topoPool(zones("test-zone-2")))
		w.provision(spreadPods(1, "b", cs, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1, 1}, w.skew(apis.LabelTopologyZone, cs.LabelSelector))
		w.setPool(topoPool(zones("test-zone-3")))
		w.provision(spreadPods(10, "c", cs, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1, 1, 6}, w.skew(apis.LabelTopologyZone, cs.LabelSelector))
	}},
	conformanceCase{Name: "zonal-recover-from-skew", Run: func(t *T) {
		w := topoWorld()
		pods := spreadPods(9, "a", zoneSpread, requests("cpu", "1.1"))
		w.provision(pods...)
		require.Equal(t, []int{3, 3, 3}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
		for _, n := range w.nodes {
			if n.Labels[apis.LabelTopologyZone] != "test-zone-1" {
				n.Pods = nil
			}
		}
		require.Equal(t, []int{3}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
		w.provision(spreadPods(3, "b", zoneSpread, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1, 2, 3}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zonal-max-skew-kept", Run: func(t *T) {
		w := topoWorld(zones("test-zone-1"))
		w.provision(spreadPods(1, "a", zoneSpread, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
		w.setPool(topoPool(zones("test-zone-2", "test-zone-3")))
		w.provision(spreadPods(10, "b", zoneSpread, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1, 2, 2}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zonal-max-skew-kept-discovered-domain", Run: func(t *T) {
		w := topoWorld(zones("test-zone-1"))
		w.provision(ppod("first", labelled("test", "test"), requests("cpu", "1.1")))
		w.setPool(topoPool(zones("test-zone-2", "test-zone-3")))
		w.provision(spreadPods(10, "b", zoneSpread, requests("cpu", "1.1"))...)
		require.Equal(t, []int{1, 2, 2}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zonal-counts-only-bound-matching-pods", Run: func(t *T) {
		w := topoWorld()
		first := w.existingNode("first", map[string]string{apis.LabelTopologyZone: "test-zone-1"})
		second := w.existingNode("second", map[string]string{apis.LabelTopologyZone: "test-zone-2"})
		third := w.existingNode("third", nil)
		running := func(name string, n string, opts ...podOption) *corev1.Pod {
			p := pod(name, "", opts...)
			p.Labels = map[string]string{}
			for _, o := range opts {
				o(p)
			}
			p.Spec.NodeName = n
			return p
		}
		bindTo := map[string][]*corev1.Pod{
			first.Name: {
				running("unlabelled", first.Name),
				running("other-namespace", first.Name, labelled("test", "test"), inNamespace("elsewhere")),
				running("failed", first.Name, labelled("test", "test"), func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }),
				running("succeeded", first.Name, labelled("test", "test"), func(p *corev1.Pod) { p.Status.Phase = corev1.PodSucceeded }),
				running("a", first.Name, labelled("test", "test")),
				running("b", first.Name, labelled("test", "test")),
			},
			second.Name: {running("c", second.Name, labelled("test", "test"))},
			third.Name:  {running("no-domain", third.Name, labelled("test", "test"))},
		}
		for _, n := range w.nodes {
			n.Pods = bindTo[n.Name]
		}
		// Upstream also hands its provisioner a labelled pod that is merely
		// pending and one being deleted; neither is provisionable, so neither
		// is among the pods a karpsim caller passes to Solve.
		newPods := spreadPods(2, "new", zoneSpread)
		w.provision(newPods...)
		require.True(t, scheduled(newPods...))
		counts := map[string]int{}
		for _, p := range newPods {
			counts[w.nodeOf(p).Labels[apis.LabelTopologyZone]]++
		}
		require.Equal(t, map[string]int{"test-zone-3": 1, "test-zone-2": 1}, counts,
			"zone 1 already holds two counted pods and zone 2 one: the new pods go to zones 3 and 2")
	}},
	conformanceCase{Name: "zonal-no-selector-matches-all", Run: func(t *T) {
		w := topoWorld()
		w.provision(ppod("p"))
		require.Equal(t, []int{1}, w.skew(apis.LabelTopologyZone, nil))
	}},
	conformanceCase{Name: "interdependent-selectors", Run: func(t *T) {
		cs := spread(apis.LabelHostname, 1, corev1.DoNotSchedule, testLabels)
		w := topoWorld()
		pods := ppods(5, "p", spreads(cs))
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		names := map[string]bool{}
		for _, p := range pods {
			names[p.Spec.NodeName] = true
		}
		require.Len(t, names, 1, "pods outside their own selector do not count, so they may share one node")
	}},
	conformanceCase{Name: "min-domains-above-available", Run: func(t *T) {
		cs := zoneSpread
		three := int32(3)
		cs.MinDomains = &three
		w := topoWorld(zones("test-zone-1", "test-zone-2"))
		w.provision(spreadPods(3, "p", cs)...)
		require.Equal(t, []int{1, 1}, w.skew(apis.LabelTopologyZone, cs.LabelSelector))
	}},
	conformanceCase{Name: "min-domains-equal", Run: func(t *T) {
		cs := zoneSpread
		three := int32(3)
		cs.MinDomains = &three
		w := topoWorld(zones(fakeZones...))
		w.provision(spreadPods(11, "p", cs)...)
		require.Equal(t, []int{3, 4, 4}, w.skew(apis.LabelTopologyZone, cs.LabelSelector))
	}},
	conformanceCase{Name: "min-domains-below", Run: func(t *T) {
		cs := zoneSpread
		two := int32(2)
		cs.MinDomains = &two
		w := topoWorld(zones(fakeZones...))
		w.provision(spreadPods(11, "p", cs)...)
		require.Equal(t, []int{3, 4, 4}, w.skew(apis.LabelTopologyZone, cs.LabelSelector))
	}},
)
