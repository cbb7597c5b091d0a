package conformance

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// zonePods are three pods requesting 2 CPUs, one pinned to each zone,
// each built with opts.
func zonePods(opts ...podOption) []*corev1.Pod {
	var out []*corev1.Pod
	for _, z := range fakeZones {
		out = append(out, ppod("in-"+z, append([]podOption{requests("cpu", "2"), nodeSelector(apis.LabelTopologyZone, z)}, opts...)...))
	}
	return out
}

var zoneAntiS2 = requiredAntiAffinity(affinityTerm(apis.LabelTopologyZone, s2))

var _ = register("topology",
	conformanceCase{Name: "anti-affinity-hostname", Run: func(t *T) {
		w := topoWorld()
		for i := range 10 {
			target := ppod(fmt.Sprintf("target-%d", i), labelled("security", "s2"))
			avoider := ppod(fmt.Sprintf("avoider-%d", i), requiredAntiAffinity(affinityTerm(apis.LabelHostname, s2)))
			w.provision(avoider, target)
			require.True(t, scheduled(target, avoider), "round %d", i)
			require.NotEqual(t, target.Spec.NodeName, avoider.Spec.NodeName, "round %d", i)
		}
	}},
	conformanceCase{Name: "anti-affinity-zone", Run: func(t *T) {
		w := topoWorld()
		pinned := zonePods(labelled("security", "s2"))
		avoider := ppod("avoider", zoneAntiS2)
		w.provision(append(pinned, avoider)...)
		require.True(t, scheduled(pinned...))
		require.False(t, scheduled(avoider))
	}},
	conformanceCase{Name: "anti-affinity-zone-other-first", Run: func(t *T) {
		w := topoWorld()
		target := ppod("target", labelled("security", "s2"), requests("cpu", "2"))
		avoider := ppod("avoider", zoneAntiS2)
		w.provision(target, avoider)
		require.True(t, scheduled(target))
		require.False(t, scheduled(avoider), "the target's zone is undecided, so every zone is blocked")
	}},
	conformanceCase{Name: "anti-affinity-arch", Run: func(t *T) {
		w := topoWorld()
		cs := spread(apis.LabelHostname, 1, corev1.DoNotSchedule, s2)
		a := ppod("a", labelled("security", "s2"), spreads(cs), requests("cpu", "2"), nodeSelector(apis.LabelArch, apis.ArchitectureArm64))
		b := ppod("b", labelled("security", "s2"), spreads(cs), requests("cpu", "1"), requiredAntiAffinity(affinityTerm(apis.LabelArch, s2)))
		w.provision(a, b)
		require.True(t, scheduled(a, b))
		require.NotEqual(t, w.nodeOf(a).Labels[apis.LabelArch], w.nodeOf(b).Labels[apis.LabelArch])
	}},
	conformanceCase{Name: "inverse-preferred-anti-affinity", Run: func(t *T) {
		w := topoWorld()
		pinned := zonePods(preferredAntiAffinity(10, affinityTerm(apis.LabelTopologyZone, s2)))
		target := ppod("target", labelled("security", "s2"))
		w.provision(append(pinned, target)...)
		require.True(t, scheduled(pinned...))
		require.True(t, scheduled(target))
	}},
	conformanceCase{Name: "inverse-anti-affinity-zone", Run: func(t *T) {
		w := topoWorld()
		pinned := zonePods(zoneAntiS2)
		target := ppod("target", labelled("security", "s2"))
		w.provision(append(pinned, target)...)
		require.True(t, scheduled(pinned...))
		require.False(t, scheduled(target))
	}},
	conformanceCase{Name: "anti-affinity-undecided-zone", Run: func(t *T) {
		w := topoWorld()
		anywhere := ppod("anywhere", zoneAntiS2, requests("cpu", "2"))
		target := ppod("target", labelled("security", "s2"))
		w.provision(anywhere, target)
		require.True(t, scheduled(anywhere))
		require.False(t, scheduled(target))
		w.provision(target)
		require.True(t, scheduled(target), "once the node exists its zone is known")
		require.NotEqual(t, w.nodeOf(anywhere).Labels[apis.LabelTopologyZone], w.nodeOf(target).Labels[apis.LabelTopologyZone])
	}},
	conformanceCase{Name: "inverse-anti-affinity-existing-nodes", Run: func(t *T) {
		w := topoWorld()
		pinned := zonePods(zoneAntiS2)
		w.provision(pinned...)
		require.True(t, scheduled(pinned...))
		target := ppod("target", labelled("security", "s2"))
		w.provision(target)
		require.False(t, scheduled(target))
	}},
	conformanceCase{Name: "inverse-preferred-anti-affinity-existing-nodes", Run: func(t *T) {
		w := topoWorld()
		pinned := zonePods(preferredAntiAffinity(10, affinityTerm(apis.LabelTopologyZone, s2)))
		w.provision(pinned...)
		require.True(t, scheduled(pinned...))
		target := ppod("target", labelled("security", "s2"))
		w.provision(target)
		require.True(t, scheduled(target))
	}},
	conformanceCase{Name: "affinity-preference-against-required", Run: func(t *T) {
		w := topoWorld()
		target := ppod("target", labelled("security", "s2"))
		pods := spreadPods(3, "p", hostnameSpread, preferredAffinity(50, affinityTerm(apis.LabelHostname, s2)))
		w.provision(append(pods, target)...)
		require.True(t, scheduled(append(pods, target)...))
		require.Equal(t, []int{1, 1, 1}, w.skew(apis.LabelHostname, hostnameSpread.LabelSelector))
	}},
	conformanceCase{Name: "anti-affinity-zone-one-per-zone", Run: func(t *T) {
		w := topoWorld()
		for i, want := range [][]int{{1}, {1, 1}, {1, 1, 1}, {1, 1, 1}} {
			// The pods a round leaves pending are dropped before the next,
			// as upstream deletes them.
			w.provision(ppods(3, fmt.Sprintf("r%d", i), labelled("security", "s2"), zoneAntiS2)...)
			require.Equal(t, want, w.skew(apis.LabelTopologyZone, nil), "round %d", i)
		}
	}},
	conformanceCase{Name: "affinity-to-missing-pod", Run: func(t *T) {
		w := topoWorld()
		pods := ppods(10, "p", requiredAffinity(affinityTerm(apis.LabelTopologyZone, s2)))
		w.provision(pods...)
		require.Equal(t, 0, countScheduled(pods))
	}},
	conformanceCase{Name: "zone-affinity-unconstrained-target", Run: func(t *T) {
		w := topoWorld()
		target := ppod("target", labelled("security", "s2"))
		followers := ppods(10, "f", requiredAffinity(affinityTerm(apis.LabelTopologyZone, s2)))
		w.provision(append(followers, target)...)
		require.Equal(t, 0, countScheduled(followers), "the target's zone is not decided yet")
		require.Equal(t, []int{1}, w.skew(apis.LabelTopologyZone, nil))
		w.provision(followers...)
		require.True(t, scheduled(followers...))
		require.Equal(t, []int{11}, w.skew(apis.LabelTopologyZone, nil))
	}},
	conformanceCase{Name: "zone-affinity-constrained-target", Run: func(t *T) {
		w := topoWorld()
		target := ppod("target", labelled("security", "s2"), nodeRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1")))
		followers := ppods(10, "f", requiredAffinity(affinityTerm(apis.LabelTopologyZone, s2)))
		w.provision(append(followers, target)...)
		require.Equal(t, []int{11}, w.skew(apis.LabelTopologyZone, nil))
	}},
	conformanceCase{Name: "dependent-affinity-chain", Run: func(t *T) {
		tier := func(name string) map[string]string { return map[string]string{"type": name, "spread": "spread"} }
		for i := range 50 {
			w := topoWorld()
			pods := []*corev1.Pod{ppod(fmt.Sprintf("db-%d", i), labelled("type", "db", "spread", "spread"))}
			prev := "db"
			for _, name := range []string{"web", "cache", "ui"} {
				pods = append(pods, ppod(fmt.Sprintf("%s-%d", name, i), labelled("type", name, "spread", "spread"),
					requiredAffinity(affinityTerm(apis.LabelHostname, tier(prev)))))
				prev = name
			}
			w.provision(pods...)
			require.True(t, scheduled(pods...), "round %d", i)
		}
	}},
	conformanceCase{Name: "unsatisfiable-dependency", Run: func(t *T) {
		w := topoWorld()
		p := ppod("db", labelled("type", "db", "spread", "spread"),
			requiredAffinity(affinityTerm(apis.LabelHostname, map[string]string{"type": "web", "spread": "spread"})))
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "affinity-other-namespace-not-matched", Run: func(t *T) {
		w := topoWorld()
		target := ppod("target", labelled("security", "s2"), inNamespace("other-ns-no-match"))
		follower := ppod("follower", requiredAffinity(affinityTerm(apis.LabelHostname, s2)))
		w.provision(append(spreadPods(10, "s", hostnameSpread), target, follower)...)
		require.True(t, scheduled(target))
		require.False(t, scheduled(follower))
	}},
	conformanceCase{Name: "affinity-namespace-list", Run: func(t *T) {
		w := topoWorld()
		target := ppod("target", labelled("security", "s2"), inNamespace("other-ns-list"))
		term := affinityTerm(apis.LabelHostname, s2)
		term.Namespaces = []string{"other-ns-list"}
		follower := ppod("follower", requiredAffinity(term))
		w.provision(append(spreadPods(10, "s", hostnameSpread), target, follower)...)
		require.True(t, scheduled(target, follower))
		require.Equal(t, target.Spec.NodeName, follower.Spec.NodeName)
	}},
	conformanceCase{Name: "affinity-empty-namespace-selector", Run: func(t *T) {
		w := topoWorld()
		target := ppod("target", labelled("security", "s2"), inNamespace("empty-ns-selector"))
		term := affinityTerm(apis.LabelHostname, s2)
		term.NamespaceSelector = &metav1.LabelSelector{MatchLabels: map[string]string{}}
		follower := ppod("follower", requiredAffinity(term))
		w.provision(append(spreadPods(10, "s", hostnameSpread), target, follower)...)
		require.True(t, scheduled(target, follower))
		require.Equal(t, target.Spec.NodeName, follower.Spec.NodeName)
	}},
	conformanceCase{Name: "no-default-spread-configured", Run: func(t *T) {
		w := topoWorld()
		pods := ppods(3, "p", labelled("test", "test"), ownedBy("ReplicaSet"))
		for _, p := range pods {
			pendingPod(p)
		}
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, nodeNames(pods), 1)
	}},
	conformanceCase{Name: "tolerating-pods-placed", Run: func(t *T) {
		w := topoWorld(withTaints(corev1.Taint{Key: "test-key", Value: "test-value", Effect: corev1.TaintEffectNoSchedule}))
		ok := []*corev1.Pod{
			ppod("exists", tolerates(corev1.Toleration{Key: "test-key", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})),
			ppod("equal", tolerates(corev1.Toleration{Key: "test-key", Value: "test-value", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule})),
		}
		w.provision(ok...)
		require.True(t, scheduled(ok...))
		refused := []*corev1.Pod{
			ppod("none"),
			ppod("other-key", tolerates(corev1.Toleration{Key: "invalid", Operator: corev1.TolerationOpExists})),
			ppod("other-value", tolerates(corev1.Toleration{Key: "test-key", Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoSchedule})),
		}
		w.provision(refused...)
		require.Equal(t, 0, countScheduled(refused))
	}},
	conformanceCase{Name: "startup-taint-only", Run: func(t *T) {
		w := topoWorld(func(np *apis.NodePool) {
			np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "ignore-me", Value: "nothing-to-see-here", Effect: corev1.TaintEffectNoSchedule}}
		})
		p := ppod("p")
		w.provision(p)
		require.True(t, scheduled(p))
	}},
	conformanceCase{Name: "volume-zone-with-min-domains", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("default", capacityTypes(apis.CapacityTypeOnDemand)))
		three := int32(3)
		app := map[string]string{"app": "test"}
		cs := spread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule, app)
		cs.MinDomains = &three
		first := ppods(3, "p", labelled("app", "test"), spreads(cs))
		w.provision(first...)
		require.True(t, scheduled(first...))
		require.Equal(t, []int{1, 1, 1}, w.skew(apis.LabelTopologyZone, cs.LabelSelector))

		pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "test-pv"}, Spec: corev1.PersistentVolumeSpec{
			Capacity: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("10Gi")},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1")}}}}},
		}}
		pvc := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "test-pvc", Namespace: "default",
			Annotations: map[string]string{scheduling.AnnotationBindCompleted: "yes"}},
			Spec: corev1.PersistentVolumeClaimSpec{VolumeName: pv.Name}}
		withPVC := ppod("with-pvc", labelled("app", "test"), spreads(cs), func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: pvc.Name}}}}
		})
		res := solveCase(scheduling.Input{Pods: []*corev1.Pod{withPVC}, Nodes: w.nodes, NodePools: w.pools,
			PersistentVolumeClaims: []*corev1.PersistentVolumeClaim{pvc}, PersistentVolumes: []*corev1.PersistentVolume{pv}})
		require.Empty(t, res.Unschedulable)
		zone := ""
		for _, b := range res.Bindings {
			zone = w.node(b.Node).Labels[apis.LabelTopologyZone]
		}
		for _, nc := range res.NodeClaims {
			zone = nc.Zone
		}
		require.Equal(t, "test-zone-1", zone)
	}},
)
