package conformance

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
)

// requiredTerms gives the pod required node-affinity terms, one per
// requirement, tried in order.
func requiredTerms(reqs ...corev1.NodeSelectorRequirement) podOption {
	return func(p *corev1.Pod) {
		for _, r := range reqs {
			nodeRequirements(r)(p)
		}
	}
}

// poolOf is the NodePool of the node p was bound to.
func poolOf(w *world, p *corev1.Pod) string {
	if n := w.nodeOf(p); n != nil {
		return n.NodePool
	}
	return ""
}

// ignoringPrefs is the suite's world with PreferencePolicy Ignore.
func ignoringPrefs() *world {
	w := provWorld()
	w.opts.IgnorePreferences = true
	return w
}

// preferenceIgnored places upstream's three pods for the preference-policy
// specs: one of 2 CPUs in zone 1 and two of 3 CPUs in zone 2 (each needing
// its own node), plus p, which prefers otherwise.
func preferenceIgnored(p *corev1.Pod) func(t *T) {
	return func(t *T) {
		w := ignoringPrefs()
		zone1 := ppod("zone1", labelled("app", "foo"), nodeSelector(apis.LabelTopologyZone, "test-zone-1"), requests("cpu", "2"))
		zone2 := ppods(2, "zone2", labelled("app", "bar"), nodeSelector(apis.LabelTopologyZone, "test-zone-2"), requests("cpu", "3"))
		w.provision(append([]*corev1.Pod{zone1, p}, zone2...)...)
		require.True(t, scheduled(append([]*corev1.Pod{zone1, p}, zone2...)...))
		require.Equal(t, zone1.Spec.NodeName, p.Spec.NodeName)
		require.NotEqual(t, zone2[0].Spec.NodeName, p.Spec.NodeName)
	}
}

// sharedOneNode checks that with preferences ignored five pods carrying
// opts share one node.
func sharedOneNode(opts ...podOption) func(t *T) {
	return func(t *T) {
		w := ignoringPrefs()
		pods := ppods(5, "p", append([]podOption{labelled("app", "foo")}, opts...)...)
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, nodeNames(pods), 1)
	}
}

func preferringNode(key string) func(t *T) {
	return func(t *T) {
		w := provWorld()
		first := ppod("first", labelled("app", "foo"), requests("cpu", "2"))
		prefers := ppod("prefers", labelled("app", "baz"), requests("cpu", "1"), nodePreference(1, in(key, "value-1")))
		w.provision(first, prefers)
		require.True(t, scheduled(first, prefers), "%v", w.last.Unschedulable)
		require.Equal(t, first.Spec.NodeName, prefers.Spec.NodeName)
	}
}

var _ = register("provisioning",
	conformanceCase{Name: "volume-zone-not-relaxed", Run: func(t *T) {
		w := volumeWorld()
		w.pvs = []*corev1.PersistentVolume{pv("vol", zonalClass, in(apis.LabelTopologyZone, "test-zone-3"))}
		w.pvcs = []*corev1.PersistentVolumeClaim{pvc("claim", strPtr(zonalClass), "vol")}
		p := ppod("p", mountsClaim("claim"), requiredTerms(in("example.com/label", "unsupported"), in(apis.LabelCapacityType, apis.CapacityTypeOnDemand)))
		w.provision(p)
		require.Equal(t, "test-zone-3", zoneOf(w, p), "%v", w.last.Unschedulable)
	}},
	conformanceCase{Name: "last-required-term-kept", Run: func(t *T) {
		w := provWorld(withRequirements(in(apis.LabelTopologyZone, "test-zone-1")))
		p := ppod("p", requiredTerms(in(apis.LabelTopologyZone, "invalid")))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "required-terms-relaxed-in-turn", Run: func(t *T) {
		w := provWorld()
		p := ppod("p", requiredTerms(in(apis.LabelTopologyZone, "invalid"), in(apis.LabelTopologyZone, "invalid"),
			in(apis.LabelTopologyZone, "test-zone-1"), in(apis.LabelTopologyZone, "test-zone-2")))
		w.provision(p)
		require.Equal(t, "test-zone-1", zoneOf(w, p))
	}},
	conformanceCase{Name: "preferences-all-relaxed", Run: func(t *T) {
		w := provWorld()
		p := ppod("p", nodePreference(1, in(apis.LabelTopologyZone, "invalid")), nodePreference(1, in(apis.LabelInstanceType, "invalid")))
		w.provision(p)
		require.True(t, scheduled(p))
	}},
	conformanceCase{Name: "preferences-heaviest-first", Run: func(t *T) {
		w := provWorld(withRequirements(in(apis.LabelTopologyZone, "test-zone-1", "test-zone-2")))
		p := ppod("p", nodePreference(100, in(apis.LabelInstanceType, "test-zone-3")), nodePreference(50, in(apis.LabelTopologyZone, "test-zone-2")),
			nodePreference(1, in(apis.LabelTopologyZone, "test-zone-1")))
		w.provision(p)
		require.Equal(t, "test-zone-2", zoneOf(w, p))
	}},
	conformanceCase{Name: "prefer-no-schedule-tolerated-last", Run: func(t *T) {
		w := provWorld(withTaints(corev1.Taint{Key: "foo", Value: "bar", Effect: corev1.TaintEffectPreferNoSchedule}))
		p := ppod("p", nodePreference(1, in(apis.LabelTopologyZone, "invalid")), nodePreference(1, in(apis.LabelInstanceType, "invalid")))
		w.provision(p)
		require.True(t, scheduled(p))
		require.Contains(t, w.nodeOf(p).Taints, corev1.Taint{Key: "foo", Value: "bar", Effect: corev1.TaintEffectPreferNoSchedule})
	}},
	conformanceCase{Name: "node-preference-zone-dropped", Run: preferringNode(apis.LabelTopologyZone)},
	conformanceCase{Name: "node-preference-hostname-dropped", Run: preferringNode(apis.LabelHostname)},
	conformanceCase{Name: "ignore-node-affinity-preferences", Run: preferenceIgnored(ppod("p", labelled("app", "baz"), requests("cpu", "1"),
		nodePreference(1, in(apis.LabelTopologyZone, "test-zone-2"))))},
	conformanceCase{Name: "ignore-zone-spread-preference", Run: sharedOneNode(spreads(spread(apis.LabelTopologyZone, 1, corev1.ScheduleAnyway, map[string]string{"app": "foo"})))},
	conformanceCase{Name: "ignore-hostname-spread-preference", Run: sharedOneNode(spreads(spread(apis.LabelHostname, 1, corev1.ScheduleAnyway, map[string]string{"app": "foo"})))},
	conformanceCase{Name: "ignore-zone-anti-affinity-preference", Run: sharedOneNode(preferredAntiAffinity(1, affinityTerm(apis.LabelTopologyZone, map[string]string{"app": "foo"})))},
	conformanceCase{Name: "ignore-hostname-anti-affinity-preference", Run: sharedOneNode(preferredAntiAffinity(1, affinityTerm(apis.LabelHostname, map[string]string{"app": "foo"})))},
	conformanceCase{Name: "ignore-zone-affinity-preference", Run: preferenceIgnored(ppod("p", labelled("app", "baz"), requests("cpu", "1"),
		preferredAffinity(1, affinityTerm(apis.LabelTopologyZone, map[string]string{"app": "bar"}))))},
	conformanceCase{Name: "ignore-hostname-affinity-preference", Run: preferenceIgnored(ppod("p", labelled("app", "baz"), requests("cpu", "1"),
		preferredAffinity(1, affinityTerm(apis.LabelHostname, map[string]string{"app": "bar"}))))},
	conformanceCase{Name: "pool-selected-by-name", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("a"), nodePool("b"))
		for _, name := range []string{"a", "b"} {
			p := ppod("p-"+name, nodeSelector(apis.LabelNodePool, name))
			w.provision(p)
			require.Equal(t, name, poolOf(w, p))
		}
	}},
	conformanceCase{Name: "pool-selected-by-label", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("a", withLabels("foo", "bar")), nodePool("z"))
		p := ppod("p", nodeSelector("foo", "bar"))
		w.provision(p)
		require.Equal(t, "a", poolOf(w, p))
	}},
	conformanceCase{Name: "prefer-no-schedule-pool-avoided", Run: func(t *T) {
		// The tainted pool's name sorts first among equal weights, so only
		// its taint sends the pod elsewhere.
		w := newWorld(defaultFakeCatalog(), nodePool("z-tainted", withTaints(corev1.Taint{Key: "foo", Value: "bar", Effect: corev1.TaintEffectPreferNoSchedule})),
			nodePool("a-plain"))
		p := ppod("p")
		w.provision(p)
		require.Equal(t, "a-plain", poolOf(w, p))
	}},
	conformanceCase{Name: "heaviest-pool-wins", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("zero"), nodePool("twenty", withWeight(20)), nodePool("hundred", withWeight(100)))
		pods := ppods(3, "p")
		w.provision(pods...)
		for _, p := range pods {
			require.Equal(t, "hundred", poolOf(w, p))
		}
	}},
	conformanceCase{Name: "selected-pool-beats-heavier", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("target"), nodePool("twenty", withWeight(20)), nodePool("hundred", withWeight(100)))
		p := ppod("p", nodeSelector(apis.LabelNodePool, "target"))
		w.provision(p)
		require.Equal(t, "target", poolOf(w, p))
	}},
	conformanceCase{Name: "static-pool-no-claims", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("static", replicas(2)))
		p := ppod("p")
		res := w.provision(p)
		require.False(t, scheduled(p))
		require.Empty(t, res.NodeClaims)
	}},
	conformanceCase{Name: "dynamic-pool-beside-static", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("target"), nodePool("static", replicas(1)))
		p := ppod("p")
		w.provision(p)
		require.Equal(t, "target", poolOf(w, p))
	}},
)
