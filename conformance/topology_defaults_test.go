package conformance

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/scheduling"
	"github.com/stretchr/testify/require"
)

// The topology suite's DefaultConstraints context: pods of a ReplicaSet
// whose selector is test=test, provisioned with kube-scheduler's default
// spread constraints configured (scheduling.Options.DefaultSpread).

// defaultsWorld is topoWorld provisioning with the constraints as defaults,
// the suite's ReplicaSet "rs" (selector test=test) and any services.
func defaultsWorld(constraints []corev1.TopologySpreadConstraint, services []*corev1.Service, opts ...poolOption) *world {
	w := topoWorld(opts...)
	w.opts.DefaultSpread = &scheduling.DefaultSpread{Constraints: constraints, Services: services,
		Controllers: map[string]*metav1.LabelSelector{rsKey("rs"): {MatchLabels: testLabels}}}
	return w
}

// rsPods are n pending pods labelled test=test controlled by "rs".
func rsPods(n int, prefix string, opts ...podOption) []*corev1.Pod {
	return ppods(n, prefix, append([]podOption{labelled("test", "test"), controlledBy("apps/v1", "ReplicaSet", "rs")}, opts...)...)
}

func hostnameDefault() []corev1.TopologySpreadConstraint {
	return []corev1.TopologySpreadConstraint{{TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule, MaxSkew: 1}}
}

// singleZoneMinDomains is a zone default with minDomains 3 over a pool
// limited to one zone: with fewer eligible zones than minDomains the
// minimum counts as 0, so a second pod in the zone breaks maxSkew.
func singleZoneMinDomains(when corev1.UnsatisfiableConstraintAction) ([]corev1.TopologySpreadConstraint, poolOption) {
	three := int32(3)
	return []corev1.TopologySpreadConstraint{{TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: when, MaxSkew: 1, MinDomains: &three}},
		withRequirements(req(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1"))
}

var _ = register("topology",
	conformanceCase{Name: "default-zone-spread", Run: func(t *T) {
		w := defaultsWorld(zoneDefault(), nil)
		pods := rsPods(4, "p")
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Equal(t, []int{1, 1, 2}, w.skew(corev1.LabelTopologyZone, &metav1.LabelSelector{MatchLabels: testLabels}))
	}},
	conformanceCase{Name: "default-hostname-spread", Run: func(t *T) {
		w := defaultsWorld(hostnameDefault(), nil)
		pods := rsPods(3, "p")
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Equal(t, []int{1, 1, 1}, w.skew(corev1.LabelHostname, &metav1.LabelSelector{MatchLabels: testLabels}))
	}},
	conformanceCase{Name: "default-not-applied-to-own-spread", Run: func(t *T) {
		w := defaultsWorld(hostnameDefault(), nil)
		own := corev1.TopologySpreadConstraint{TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: testLabels}, MaxSkew: 3}
		pods := rsPods(3, "p", spreads(own))
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, nodeNames(pods), 1, "the pod's own maxSkew 3 lets the three share a node")
	}},
	conformanceCase{Name: "default-min-domains", Run: func(t *T) {
		three := int32(3)
		w := defaultsWorld([]corev1.TopologySpreadConstraint{{TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, MaxSkew: 1, MinDomains: &three}},
			nil, withRequirements(req(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2")))
		pods := rsPods(3, "p")
		w.provision(pods...)
		require.Equal(t, []int{1, 1}, w.skew(corev1.LabelTopologyZone, &metav1.LabelSelector{MatchLabels: testLabels}))
	}},
	conformanceCase{Name: "default-do-not-schedule-unsatisfiable", Run: func(t *T) {
		constraints, zone1 := singleZoneMinDomains(corev1.DoNotSchedule)
		w := defaultsWorld(constraints, nil, zone1)
		pods := rsPods(3, "p")
		w.provision(pods...)
		require.Equal(t, 1, countScheduled(pods))
	}},
	conformanceCase{Name: "default-schedule-anyway-relaxed", Run: func(t *T) {
		constraints, zone1 := singleZoneMinDomains(corev1.ScheduleAnyway)
		w := defaultsWorld(constraints, nil, zone1)
		pods := rsPods(3, "p")
		w.provision(pods...)
		require.True(t, scheduled(pods...))
	}},
	conformanceCase{Name: "default-needs-owner-or-service", Run: func(t *T) {
		w := defaultsWorld(hostnameDefault(), nil)
		pods := ppods(3, "p", labelled("test", "test"))
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Len(t, nodeNames(pods), 1, "no selector can be deduced: no default, the pods share a node")
	}},
	conformanceCase{Name: "default-counts-existing-pods", Run: func(t *T) {
		w := defaultsWorld(zoneDefault(), nil, withRequirements(req(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2")))
		running := rsPods(2, "running")
		w.existingNode("existing", map[string]string{corev1.LabelTopologyZone: "test-zone-1"}, running...)
		pods := rsPods(2, "new")
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		for _, p := range pods {
			require.Equal(t, "test-zone-2", w.nodeOf(p).Labels[corev1.LabelTopologyZone])
		}
		require.Equal(t, []int{2, 2}, w.skew(corev1.LabelTopologyZone, &metav1.LabelSelector{MatchLabels: testLabels}))
	}},
	conformanceCase{Name: "default-per-workload", Run: func(t *T) {
		w := defaultsWorld(zoneDefault(), nil)
		w.opts.DefaultSpread.Controllers[rsKey("other")] = &metav1.LabelSelector{MatchLabels: map[string]string{"test": "other"}}
		pods := append(rsPods(3, "p"), ppods(3, "o", labelled("test", "other"), controlledBy("apps/v1", "ReplicaSet", "other"))...)
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Equal(t, []int{1, 1, 1}, w.skew(corev1.LabelTopologyZone, &metav1.LabelSelector{MatchLabels: testLabels}))
		require.Equal(t, []int{1, 1, 1}, w.skew(corev1.LabelTopologyZone, &metav1.LabelSelector{MatchLabels: map[string]string{"test": "other"}}))
	}},
	conformanceCase{Name: "default-per-revision", Run: func(t *T) {
		old := map[string]string{"test": "test", "pod-template-hash": "old"}
		current := map[string]string{"test": "test", "pod-template-hash": "new"}
		w := defaultsWorld(zoneDefault(), nil)
		w.opts.DefaultSpread.Controllers = map[string]*metav1.LabelSelector{rsKey("old"): {MatchLabels: old}, rsKey("new"): {MatchLabels: current}}
		pods := append(ppods(3, "old", labelled("test", "test", "pod-template-hash", "old"), controlledBy("apps/v1", "ReplicaSet", "old")),
			ppods(3, "new", labelled("test", "test", "pod-template-hash", "new"), controlledBy("apps/v1", "ReplicaSet", "new"))...)
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Equal(t, []int{1, 1, 1}, w.skew(corev1.LabelTopologyZone, &metav1.LabelSelector{MatchLabels: old}))
		require.Equal(t, []int{1, 1, 1}, w.skew(corev1.LabelTopologyZone, &metav1.LabelSelector{MatchLabels: current}))
	}},
	conformanceCase{Name: "default-from-service", Run: func(t *T) {
		w := defaultsWorld(zoneDefault(), []*corev1.Service{service("default", "svc", testLabels)})
		pods := ppods(4, "p", labelled("test", "test"), controlledBy("batch/v1", "Job", "test-job"))
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		require.Equal(t, []int{1, 1, 2}, w.skew(corev1.LabelTopologyZone, &metav1.LabelSelector{MatchLabels: testLabels}))
	}},
)
