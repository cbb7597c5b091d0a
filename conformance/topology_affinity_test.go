package conformance

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
)

var s2 = map[string]string{"security": "s2"}

// nodeNames is the set of nodes pods were bound to.
func nodeNames(pods []*corev1.Pod) map[string]bool {
	out := map[string]bool{}
	for _, p := range pods {
		out[p.Spec.NodeName] = true
	}
	return out
}

// selfAffinity makes pods labelled s2 that require to share key with one
// another.
func selfAffinity(key string) []podOption {
	return []podOption{labelled("security", "s2"), requiredAffinity(affinityTerm(key, s2))}
}

var _ = register("topology",
	conformanceCase{Name: "empty-affinity-stanzas", Run: func(t *T) {
		w := topoWorld()
		p := ppod("p", func(p *corev1.Pod) {
			p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{}, PodAntiAffinity: &corev1.PodAntiAffinity{}}
		})
		w.provision(p)
		require.True(t, scheduled(p))
	}},
	conformanceCase{Name: "affinity-hostname", Run: func(t *T) {
		w := topoWorld()
		target := ppod("target", labelled("security", "s2"))
		follower := ppod("follower", requiredAffinity(affinityTerm(apis.LabelHostname, s2)))
		w.provision(append(spreadPods(10, "p", hostnameSpread), target, follower)...)
		require.True(t, scheduled(target, follower))
		require.Equal(t, target.Spec.NodeName, follower.Spec.NodeName)
	}},
	conformanceCase{Name: "affinity-arch", Run: func(t *T) {
		w := topoWorld()
		cs := spread(apis.LabelHostname, 1, corev1.DoNotSchedule, s2)
		target := ppod("target", labelled("security", "s2"), spreads(cs), requests("cpu", "2"), nodeSelector(apis.LabelArch, apis.ArchitectureArm64))
		follower := ppod("follower", labelled("security", "s2"), spreads(cs), requests("cpu", "1"), requiredAffinity(affinityTerm(apis.LabelArch, s2)))
		w.provision(target, follower)
		require.True(t, scheduled(target, follower))
		require.Equal(t, w.nodeOf(target).Labels[apis.LabelArch], w.nodeOf(follower).Labels[apis.LabelArch])
		require.NotEqual(t, target.Spec.NodeName, follower.Spec.NodeName)
	}},
	conformanceCase{Name: "self-affinity-hostname", Run: func(t *T) {
		w := topoWorld()
		pods := ppods(3, "p", selfAffinity(apis.LabelHostname)...)
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, nodeNames(pods), 1)
	}},
	conformanceCase{Name: "self-affinity-first-empty-domain", Run: func(t *T) {
		w := topoWorld()
		pods := ppods(10, "a", selfAffinity(apis.LabelHostname)...)
		w.provision(pods...)
		require.Equal(t, 5, countScheduled(pods), "a node holds five pods")
		names := nodeNames(pods)
		delete(names, "")
		require.Len(t, names, 1)
		more := ppods(10, "b", selfAffinity(apis.LabelHostname)...)
		w.provision(more...)
		require.Equal(t, 0, countScheduled(more), "the only domain with the pods is full")
	}},
	conformanceCase{Name: "self-affinity-first-empty-domain-zones", Run: func(t *T) {
		w := topoWorld()
		w.provision(ppod("first", append(selfAffinity(apis.LabelHostname), nodeSelector(apis.LabelTopologyZone, "test-zone-1"))...))
		pods := ppods(10, "p", append(selfAffinity(apis.LabelHostname), nodeRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-2", "test-zone-3")))...)
		w.provision(pods...)
		require.Equal(t, 0, countScheduled(pods), "the pod they must join is in zone 1, which they may not use")
	}},
	conformanceCase{Name: "self-affinity-zone", Run: func(t *T) {
		w := topoWorld()
		pods := ppods(3, "p", selfAffinity(apis.LabelTopologyZone)...)
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, nodeNames(pods), 1)
	}},
	conformanceCase{Name: "self-affinity-zone-constrained", Run: func(t *T) {
		w := topoWorld()
		pods := ppods(3, "p", append(selfAffinity(apis.LabelTopologyZone), nodeRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-3")))...)
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, nodeNames(pods), 1)
		require.Equal(t, "test-zone-3", w.nodeOf(pods[0]).Labels[apis.LabelTopologyZone])
	}},
	conformanceCase{Name: "matching-affinity-incompatible-selectors", Run: func(t *T) {
		w := topoWorld()
		s1 := map[string]string{"security": "s1"}
		mk := func(name, zone string) *corev1.Pod {
			return ppod(name, labelled("security", "s1"), requiredAffinity(affinityTerm(apis.LabelTopologyZone, s1)),
				nodeRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, zone)))
		}
		a, b := mk("a", "test-zone-2"), mk("b", "test-zone-3")
		w.provision(a, b)
		require.True(t, scheduled(a, b))
		require.Equal(t, "test-zone-2", w.nodeOf(a).Labels[apis.LabelTopologyZone])
		require.Equal(t, "test-zone-3", w.nodeOf(b).Labels[apis.LabelTopologyZone])
		require.NotEqual(t, a.Spec.NodeName, b.Spec.NodeName)
	}},
	conformanceCase{Name: "preferred-affinity-broken", Run: func(t *T) {
		w := topoWorld()
		p := ppod("p", preferredAffinity(50, affinityTerm(apis.LabelHostname, s2)))
		w.provision(append(spreadPods(10, "s", hostnameSpread), p)...)
		require.True(t, scheduled(p))
	}},
	conformanceCase{Name: "preferred-anti-affinity-broken", Run: func(t *T) {
		w := topoWorld()
		aff := ppods(10, "aff", preferredAntiAffinity(50, affinityTerm(apis.LabelTopologyZone, testLabels)))
		w.provision(append(spreadPods(3, "s", zoneSpread), aff...)...)
		require.True(t, scheduled(aff...))
	}},
)
