package optimize

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// The local search leaves alone the pods whose move another pod's rule
// counts: those a required pod-affinity term selects, and those a
// DoNotSchedule spread selects that they do not carry themselves. Pods
// that carry the spread that selects them move under their own rule.
func TestPinnedPods(t *testing.T) {
	pod := func(name, app string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": app}}}
	}
	selector := func(app string) *metav1.LabelSelector {
		return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
	}
	spread := corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector("web")}

	follower := pod("follower", "f")
	follower.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{LabelSelector: selector("db"), TopologyKey: apis.LabelHostname}}}}
	web := pod("web", "web")
	web.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{spread}
	lax := spread
	lax.WhenUnsatisfiable = corev1.ScheduleAnyway
	lax.LabelSelector = selector("batch")
	counter := pod("counter", "c")
	counter.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{lax}
	bound := pod("bound", "x")
	bound.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: corev1.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: selector("tail")}}

	in := scheduling.Input{
		Pods:  []*corev1.Pod{follower, pod("db", "db"), web, pod("web-plain", "web"), counter, pod("batch", "batch"), pod("tail", "tail"), pod("free", "free")},
		Nodes: []*scheduling.Node{{Name: "node-a", Pods: []*corev1.Pod{bound}}},
	}
	got := slices.Sorted(maps.Keys(pinnedPods(in)))
	want := []string{"default/db", "default/tail", "default/web-plain"}
	if !slices.Equal(got, want) {
		t.Errorf("pinned %v, want %v", got, want)
	}
}
