package scheduling

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func controlledBy(kind, name string) podOption {
	return func(p *corev1.Pod) {
		yes := true
		apiVersion := "apps/v1"
		if kind == "ReplicationController" || kind == "Node" {
			apiVersion = "v1"
		}
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: name, Controller: &yes}}
	}
}

func service(namespace, name string, selector map[string]string) *corev1.Service {
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace}, Spec: corev1.ServiceSpec{Selector: selector}}
}

func zoneSpread() []corev1.TopologySpreadConstraint {
	return []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule}}
}

func TestDefaultSpreadSelector(t *testing.T) {
	d := &DefaultSpread{
		Constraints: zoneSpread(),
		Services: []*corev1.Service{
			service("default", "web", map[string]string{"app": "web"}),
			service("default", "headless", nil),
			service("other", "web", map[string]string{"app": "web", "tier": "x"}),
		},
		Controllers: map[string]*metav1.LabelSelector{
			ControllerKey("ReplicaSet", "default", "web-abc"):        {MatchLabels: map[string]string{"app": "web", "pod-template-hash": "abc"}},
			ControllerKey("StatefulSet", "default", "db"):            {MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"db"}}}},
			ControllerKey("ReplicationController", "default", "old"): {MatchLabels: map[string]string{"app": "old"}},
		},
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want *metav1.LabelSelector
	}{
		{"service only", newPod("a", "1", "1Gi", withLabels("app", "web")), &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		{"service and ReplicaSet", newPod("b", "1", "1Gi", withLabels("app", "web", "pod-template-hash", "abc"), controlledBy("ReplicaSet", "web-abc")),
			&metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}, MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}},
				{Key: "pod-template-hash", Operator: metav1.LabelSelectorOpIn, Values: []string{"abc"}}}}},
		{"StatefulSet expressions, not the pod's own labels", newPod("db-0", "1", "1Gi", withLabels("app", "db", "statefulset.kubernetes.io/pod-name", "db-0"), controlledBy("StatefulSet", "db")),
			&metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"db"}}}}},
		{"ReplicationController labels", newPod("old-1", "1", "1Gi", withLabels("app", "old"), controlledBy("ReplicationController", "old")),
			&metav1.LabelSelector{MatchLabels: map[string]string{"app": "old"}}},
		{"no Service, no controller", newPod("c", "1", "1Gi", withLabels("app", "lonely")), nil},
		{"a Job contributes nothing", newPod("j", "1", "1Gi", withLabels("job", "x"), controlledBy("Job", "x")), nil},
		{"a missing ReplicaSet contributes nothing", newPod("g", "1", "1Gi", withLabels("app", "gone"), controlledBy("ReplicaSet", "gone-1")), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := d.withDefaults(tc.pod, map[string]*metav1.LabelSelector{})
			if tc.want == nil {
				assert.Same(t, tc.pod, got)
				return
			}
			require.NotSame(t, tc.pod, got)
			require.Empty(t, tc.pod.Spec.TopologySpreadConstraints, "the caller's pod is not changed")
			require.Len(t, got.Spec.TopologySpreadConstraints, 1)
			assert.Equal(t, tc.want, got.Spec.TopologySpreadConstraints[0].LabelSelector)
		})
	}
	own := newPod("own", "1", "1Gi", withLabels("app", "web"))
	own.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 2, TopologyKey: corev1.LabelHostname, WhenUnsatisfiable: corev1.DoNotSchedule}}
	assert.Same(t, own, d.withDefaults(own, nil), "a pod with constraints of its own keeps only those")
}

func TestDefaultSpreadSolve(t *testing.T) {
	web := pods(3, "web", "500m", "512Mi", withLabels("app", "web"))
	in := Input{Pods: web, NodePools: []Pool{pool(newPool("default"))}}
	require.Len(t, Solve(in).NodeClaims, 1, "without defaults one node takes every pod")
	in.Options.DefaultSpread = &DefaultSpread{Constraints: zoneSpread(), Services: []*corev1.Service{service("", "web", map[string]string{"app": "web"})}}
	r := Solve(in)
	require.Len(t, r.NodeClaims, 3)
	zones := map[string]bool{}
	for _, c := range r.NodeClaims {
		zones[c.Zone] = true
	}
	assert.Len(t, zones, 3, "one claim per zone")
	in.Options.DefaultSpread.Constraints[0].WhenUnsatisfiable = corev1.ScheduleAnyway
	in.Options.IgnorePreferences = true
	require.Len(t, Solve(in).NodeClaims, 1, "PreferencePolicy=Ignore drops ScheduleAnyway defaults")
	for _, p := range web {
		require.Empty(t, p.Spec.TopologySpreadConstraints)
	}
}
