package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// everyPreference is a pod with something for each step of relax.
func everyPreference() *corev1.Pod {
	nginx := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}
	term := func(key string) corev1.WeightedPodAffinityTerm {
		return corev1.WeightedPodAffinityTerm{Weight: 5, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: nginx}}
	}
	p := newPod("everything", "1", "1Gi",
		withRequiredTerms(
			corev1.NodeSelectorRequirement{Key: instancetypes.FakeLabelInteger, Operator: corev1.NodeSelectorOpIn, Values: []string{"999"}},
			corev1.NodeSelectorRequirement{Key: instancetypes.FakeLabelInteger, Operator: corev1.NodeSelectorOpIn, Values: []string{"998"}}),
		withPreferredNodeAffinity(1, instancetypes.FakeLabelInteger, corev1.NodeSelectorOpIn, "997"),
		withPreferredNodeAffinity(2, instancetypes.FakeLabelInteger, corev1.NodeSelectorOpIn, "996"))
	p.Labels = map[string]string{"app": "nginx"}
	p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{term(apis.LabelTopologyZone), term(apis.LabelHostname)}}
	p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{term(apis.LabelTopologyZone)}}
	p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{
		{MaxSkew: 1, TopologyKey: apis.LabelTopologyZone, WhenUnsatisfiable: corev1.DoNotSchedule, LabelSelector: nginx},
		{MaxSkew: 1, TopologyKey: apis.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: nginx},
	}
	p.Spec.Tolerations = []corev1.Toleration{{Key: "team", Operator: corev1.TolerationOpExists}}
	return p
}

// relax copies only what it changes: every copy it makes, and the pod it
// started from, stay as they were while the copies are relaxed further.
func TestRelaxLeavesEveryEarlierPodAlone(t *testing.T) {
	pod := everyPreference()
	chain := []*corev1.Pod{pod}
	snapshots := []*corev1.Pod{pod.DeepCopy()}
	for {
		next, ok := relax(chain[len(chain)-1], true)
		if !ok {
			break
		}
		chain, snapshots = append(chain, next), append(snapshots, next.DeepCopy())
		for i := range chain {
			require.Equal(t, snapshots[i], chain[i], "pod %d after relaxation step %d", i, len(chain)-1)
		}
	}
	// One step each: a required term, two pod-affinity terms, one
	// anti-affinity term, two node preferences, a spread constraint and
	// the PreferNoSchedule toleration.
	require.Len(t, chain, 9)
	last := chain[len(chain)-1]
	assert.Len(t, last.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, 1)
	assert.Empty(t, last.Spec.Affinity.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	assert.Empty(t, last.Spec.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	assert.Empty(t, last.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	assert.Len(t, last.Spec.TopologySpreadConstraints, 1)
	assert.Len(t, last.Spec.Tolerations, 2)

	stripped := stripPreferences(pod)
	assert.Equal(t, snapshots[0], pod, "stripPreferences leaves the pod alone")
	assert.Empty(t, stripped.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution)
	assert.Len(t, stripped.Spec.TopologySpreadConstraints, 1)
}

// A solve that relaxes pods, or ignores their preferences, leaves them as
// they were.
func TestRelaxingSolvesLeaveTheirPodsAlone(t *testing.T) {
	soft := newPool("soft", withTaint("team", corev1.TaintEffectPreferNoSchedule))
	for _, ignore := range []bool{false, true} {
		in := Input{Pods: []*corev1.Pod{everyPreference(), everyPreference()}, NodePools: []NodePool{pool(soft)}, Options: Options{IgnorePreferences: ignore}}
		in.Pods[1].Name = "second"
		before := []*corev1.Pod{in.Pods[0].DeepCopy(), in.Pods[1].DeepCopy()}
		r := Solve(in)
		assert.Equal(t, before, in.Pods, "IgnorePreferences %v", ignore)
		assert.Equal(t, r, Solve(Input{Pods: before, NodePools: in.NodePools, Options: in.Options}))
	}
}
