package conformance

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/scheduling"
	"github.com/stretchr/testify/require"
)

// Upstream's injector specs read back the constraint it adds to a pod. The
// same question asked of karpsim is scheduling.DefaultSpread.PodWithDefaults:
// the pod as every solve with those defaults reads it. The cluster objects
// the selector is deduced from (Services, controllers' selectors) are given
// to DefaultSpread as a snapshot gives them.

// zoneDefault is upstream's configured default: zone, maxSkew 1,
// DoNotSchedule, no selector.
func zoneDefault() []corev1.TopologySpreadConstraint {
	return []corev1.TopologySpreadConstraint{{TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, MaxSkew: 1}}
}

// defaults are zoneDefault with the given Services and controllers.
func defaults(services []*corev1.Service, controllers map[string]*metav1.LabelSelector) *scheduling.DefaultSpread {
	return &scheduling.DefaultSpread{Constraints: zoneDefault(), Services: services, Controllers: controllers}
}

// injected is the selector the pod's default zone constraint carries, or
// nil when the pod gets no defaults.
func injected(t *T, d *scheduling.DefaultSpread, p *corev1.Pod) *metav1.LabelSelector {
	out := d.PodWithDefaults(p)
	if len(out.Spec.TopologySpreadConstraints) == 0 {
		return nil
	}
	require.Len(t, out.Spec.TopologySpreadConstraints, 1)
	require.Equal(t, corev1.LabelTopologyZone, out.Spec.TopologySpreadConstraints[0].TopologyKey)
	return out.Spec.TopologySpreadConstraints[0].LabelSelector
}

// controlledBy sets the pod's controller reference.
func controlledBy(apiVersion, kind, name string) podOption {
	return func(p *corev1.Pod) {
		yes := true
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, UID: k8stypes.UID("uid-" + name), Controller: &yes}}
	}
}

func service(namespace, name string, selector map[string]string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Spec: corev1.ServiceSpec{Selector: selector}}
}

func rsKey(name string) string { return scheduling.ControllerKey("ReplicaSet", "default", name) }

func selectorOf(kv ...string) *metav1.LabelSelector {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return &metav1.LabelSelector{MatchLabels: m}
}

func lsIn(key string, values ...string) metav1.LabelSelectorRequirement {
	return metav1.LabelSelectorRequirement{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values}
}

var _ = register("defaultconstraints",
	conformanceCase{Name: "none-configured-nothing-added", Run: func(t *T) {
		w := topoWorld()
		pods := ppods(3, "web", labelled("app", "web"), ownedBy("ReplicaSet"))
		w.provision(pods...)
		require.True(t, scheduled(pods...))
		for _, p := range pods {
			require.Empty(t, p.Spec.TopologySpreadConstraints)
		}
		require.Len(t, nodeNames(pods), 1, "with no spread, the pods share a node")
		var none *scheduling.DefaultSpread
		p := ppod("web", labelled("app", "web"))
		require.Same(t, p, none.PodWithDefaults(p), "no defaults configured: the pod is read as it is")
	}},
	conformanceCase{Name: "replicaset-selector-not-pod-labels", Run: func(t *T) {
		d := defaults(nil, map[string]*metav1.LabelSelector{rsKey("web-abc123"): selectorOf("app", "web", "pod-template-hash", "abc123")})
		sel := injected(t, d, ppod("p", labelled("app", "web", "pod-template-hash", "abc123", "extra", "ignored"), controlledBy("apps/v1", "ReplicaSet", "web-abc123")))
		require.NotNil(t, sel)
		require.Empty(t, sel.MatchLabels)
		require.ElementsMatch(t, []metav1.LabelSelectorRequirement{lsIn("app", "web"), lsIn("pod-template-hash", "abc123")}, sel.MatchExpressions)
	}},
	conformanceCase{Name: "statefulset-selector-ignores-pod-labels", Run: func(t *T) {
		d := defaults(nil, map[string]*metav1.LabelSelector{scheduling.ControllerKey("StatefulSet", "default", "db"): selectorOf("app", "db")})
		sel := injected(t, d, ppod("db-0", labelled("app", "db", "controller-revision-hash", "db-6f8c", "statefulset.kubernetes.io/pod-name", "db-0",
			"apps.kubernetes.io/pod-index", "0"), controlledBy("apps/v1", "StatefulSet", "db")))
		require.NotNil(t, sel)
		require.ElementsMatch(t, []metav1.LabelSelectorRequirement{lsIn("app", "db")}, sel.MatchExpressions)
	}},
	conformanceCase{Name: "replicaset-expressions-verbatim", Run: func(t *T) {
		notOther := metav1.LabelSelectorRequirement{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"other"}}
		d := defaults(nil, map[string]*metav1.LabelSelector{rsKey("web"): {MatchExpressions: []metav1.LabelSelectorRequirement{notOther}}})
		sel := injected(t, d, ppod("p", labelled("app", "web"), controlledBy("apps/v1", "ReplicaSet", "web")))
		require.NotNil(t, sel)
		require.Equal(t, []metav1.LabelSelectorRequirement{notOther}, sel.MatchExpressions)
	}},
	conformanceCase{Name: "replicationcontroller-selector", Run: func(t *T) {
		d := defaults(nil, map[string]*metav1.LabelSelector{scheduling.ControllerKey("ReplicationController", "default", "legacy"): selectorOf("app", "legacy")})
		sel := injected(t, d, ppod("p", labelled("app", "legacy"), controlledBy("v1", "ReplicationController", "legacy")))
		require.NotNil(t, sel)
		require.Equal(t, map[string]string{"app": "legacy"}, sel.MatchLabels)
		require.Empty(t, sel.MatchExpressions)
	}},
	conformanceCase{Name: "unsupported-owner-no-selector", Run: func(t *T) {
		d := defaults(nil, nil)
		require.Nil(t, injected(t, d, ppod("p", labelled("app", "batch"), controlledBy("batch/v1", "Job", "test-job"))))
	}},
	conformanceCase{Name: "non-controller-owner-ignored", Run: func(t *T) {
		d := defaults(nil, map[string]*metav1.LabelSelector{rsKey("web"): selectorOf("app", "web")})
		p := ppod("p", labelled("app", "web"), controlledBy("apps/v1", "ReplicaSet", "web"))
		no := false
		p.OwnerReferences[0].Controller = &no
		require.Nil(t, injected(t, d, p))
	}},
	conformanceCase{Name: "missing-owner-tolerated", Run: func(t *T) {
		d := defaults(nil, map[string]*metav1.LabelSelector{})
		require.Nil(t, injected(t, d, ppod("p", labelled("app", "web"), controlledBy("apps/v1", "ReplicaSet", "does-not-exist"))))
	}},
	conformanceCase{Name: "service-selector", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("default", "web", map[string]string{"app": "web"})}, nil)
		sel := injected(t, d, ppod("p", labelled("app", "web", "extra", "ignored")))
		require.NotNil(t, sel)
		require.Equal(t, map[string]string{"app": "web"}, sel.MatchLabels)
		require.Empty(t, sel.MatchExpressions)
	}},
	conformanceCase{Name: "services-merged", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("default", "a", map[string]string{"app": "web"}), service("default", "b", map[string]string{"tier": "frontend"})}, nil)
		sel := injected(t, d, ppod("p", labelled("app", "web", "tier", "frontend")))
		require.NotNil(t, sel)
		require.Equal(t, map[string]string{"app": "web", "tier": "frontend"}, sel.MatchLabels)
	}},
	conformanceCase{Name: "non-matching-service", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("default", "other", map[string]string{"app": "other"})}, nil)
		require.Nil(t, injected(t, d, ppod("p", labelled("app", "web"))))
	}},
	conformanceCase{Name: "nil-selector-service-skipped", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("default", "headless", nil)}, nil)
		require.Nil(t, injected(t, d, ppod("p", labelled("app", "web"))))
	}},
	conformanceCase{Name: "empty-selector-service-contributes-nothing", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("default", "all", map[string]string{})}, nil)
		require.Nil(t, injected(t, d, ppod("p", labelled("app", "web"))))
	}},
	conformanceCase{Name: "other-namespace-service-ignored", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("elsewhere", "web", map[string]string{"app": "web"})}, nil)
		require.Nil(t, injected(t, d, ppod("p", labelled("app", "web"))))
	}},
	conformanceCase{Name: "service-and-owner-combined", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("default", "front", map[string]string{"tier": "frontend"})},
			map[string]*metav1.LabelSelector{rsKey("web-abc123"): selectorOf("app", "web", "pod-template-hash", "abc123")})
		sel := injected(t, d, ppod("p", labelled("app", "web", "pod-template-hash", "abc123", "tier", "frontend"), controlledBy("apps/v1", "ReplicaSet", "web-abc123")))
		require.NotNil(t, sel)
		require.Equal(t, map[string]string{"tier": "frontend"}, sel.MatchLabels)
		require.ElementsMatch(t, []metav1.LabelSelectorRequirement{lsIn("app", "web"), lsIn("pod-template-hash", "abc123")}, sel.MatchExpressions)
	}},
	conformanceCase{Name: "replicationcontroller-overrides-service", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("default", "web", map[string]string{"app": "web"})},
			map[string]*metav1.LabelSelector{scheduling.ControllerKey("ReplicationController", "default", "legacy"): selectorOf("app", "legacy")})
		sel := injected(t, d, ppod("p", labelled("app", "web"), controlledBy("v1", "ReplicationController", "legacy")))
		require.NotNil(t, sel)
		require.Equal(t, map[string]string{"app": "legacy"}, sel.MatchLabels)
		require.Empty(t, sel.MatchExpressions)
	}},
	conformanceCase{Name: "replicaset-conflict-selects-nothing", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("default", "web", map[string]string{"app": "web"})},
			map[string]*metav1.LabelSelector{rsKey("other"): selectorOf("app", "other")})
		sel := injected(t, d, ppod("p", labelled("app", "web"), controlledBy("apps/v1", "ReplicaSet", "other")))
		require.NotNil(t, sel)
		require.Equal(t, map[string]string{"app": "web"}, sel.MatchLabels)
		require.Equal(t, []metav1.LabelSelectorRequirement{lsIn("app", "other")}, sel.MatchExpressions)
		compiled, err := metav1.LabelSelectorAsSelector(sel)
		require.NoError(t, err)
		require.False(t, compiled.Matches(labels.Set{"app": "web"}))
		require.False(t, compiled.Matches(labels.Set{"app": "other"}))
	}},
	conformanceCase{Name: "same-owner-different-labels", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("default", "front", map[string]string{"tier": "frontend"})},
			map[string]*metav1.LabelSelector{rsKey("web"): selectorOf("app", "web")})
		frontend := ppod("frontend", labelled("app", "web", "tier", "frontend"), controlledBy("apps/v1", "ReplicaSet", "web"))
		plain := ppod("plain", labelled("app", "web"), controlledBy("apps/v1", "ReplicaSet", "web"))
		require.Equal(t, map[string]string{"tier": "frontend"}, injected(t, d, frontend).MatchLabels)
		require.Empty(t, injected(t, d, plain).MatchLabels)
		// In one solve both are read with their own selectors: they spread
		// as two groups, so each zone may hold one of each.
		w := topoWorld()
		w.opts.DefaultSpread = d
		w.provision(frontend, plain)
		require.True(t, scheduled(frontend, plain))
	}},
	conformanceCase{Name: "namespaces-not-shared", Run: func(t *T) {
		d := defaults([]*corev1.Service{service("default", "web", map[string]string{"app": "web"})}, nil)
		selected := ppod("selected", labelled("app", "web"))
		other := ppod("other", labelled("app", "web"), inNamespace("elsewhere"))
		require.NotNil(t, injected(t, d, selected))
		require.Nil(t, injected(t, d, other))
	}},
	conformanceCase{Name: "own-constraints-untouched", Run: func(t *T) {
		own := []corev1.TopologySpreadConstraint{{TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector: selectorOf("app", "web"), MaxSkew: 5}}
		d := defaults(nil, map[string]*metav1.LabelSelector{rsKey("web"): selectorOf("app", "web")})
		p := ppod("p", labelled("app", "web"), controlledBy("apps/v1", "ReplicaSet", "web"), spreads(own...))
		require.Equal(t, own, d.PodWithDefaults(p).Spec.TopologySpreadConstraints)
	}},
	conformanceCase{Name: "each-pod-own-copy", Run: func(t *T) {
		d := defaults(nil, map[string]*metav1.LabelSelector{rsKey("web"): selectorOf("app", "web")})
		a := d.PodWithDefaults(ppod("a", labelled("app", "web"), controlledBy("apps/v1", "ReplicaSet", "web")))
		b := d.PodWithDefaults(ppod("b", labelled("app", "web"), controlledBy("apps/v1", "ReplicaSet", "web")))
		require.Len(t, a.Spec.TopologySpreadConstraints, 1)
		require.Len(t, b.Spec.TopologySpreadConstraints, 1)
		a.Spec.TopologySpreadConstraints[0].MaxSkew = 99
		a.Spec.TopologySpreadConstraints[0].LabelSelector.MatchLabels = map[string]string{"mutated": "true"}
		require.Equal(t, int32(1), b.Spec.TopologySpreadConstraints[0].MaxSkew)
		require.NotContains(t, b.Spec.TopologySpreadConstraints[0].LabelSelector.MatchLabels, "mutated")
		require.Equal(t, int32(1), d.Constraints[0].MaxSkew, "nor are the configured defaults changed")
	}},
	conformanceCase{Name: "configured-fields-preserved", Run: func(t *T) {
		minDomains := int32(3)
		honor := corev1.NodeInclusionPolicyHonor
		d := &scheduling.DefaultSpread{
			Constraints: []corev1.TopologySpreadConstraint{{TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.ScheduleAnyway,
				MaxSkew: 4, MinDomains: &minDomains, NodeTaintsPolicy: &honor}},
			Controllers: map[string]*metav1.LabelSelector{rsKey("web"): selectorOf("app", "web")},
		}
		p := d.PodWithDefaults(ppod("p", labelled("app", "web"), controlledBy("apps/v1", "ReplicaSet", "web")))
		require.Len(t, p.Spec.TopologySpreadConstraints, 1)
		tsc := p.Spec.TopologySpreadConstraints[0]
		require.Equal(t, int32(4), tsc.MaxSkew)
		require.Equal(t, corev1.ScheduleAnyway, tsc.WhenUnsatisfiable)
		require.Equal(t, int32(3), *tsc.MinDomains)
		require.Equal(t, corev1.NodeInclusionPolicyHonor, *tsc.NodeTaintsPolicy)
		require.NotNil(t, tsc.LabelSelector)
	}},
	conformanceCase{Name: "independent-workloads-one-pass", Run: func(t *T) {
		d := defaults(nil, map[string]*metav1.LabelSelector{rsKey("web"): selectorOf("app", "web"), rsKey("api"): selectorOf("app", "api")})
		web := ppod("web", labelled("app", "web"), controlledBy("apps/v1", "ReplicaSet", "web"))
		api := ppod("api", labelled("app", "api"), controlledBy("apps/v1", "ReplicaSet", "api"))
		orphan := ppod("orphan", labelled("app", "orphan"))
		require.Equal(t, []metav1.LabelSelectorRequirement{lsIn("app", "web")}, injected(t, d, web).MatchExpressions)
		require.Equal(t, []metav1.LabelSelectorRequirement{lsIn("app", "api")}, injected(t, d, api).MatchExpressions)
		require.Nil(t, injected(t, d, orphan))
	}},
)
