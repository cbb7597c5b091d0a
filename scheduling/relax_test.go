package scheduling

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/workloads"
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
		next, ok := relax(chain[len(chain)-1], true, requirements.WithPreferences)
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
}

// Read StrictOnly, as PreferencePolicy=Ignore reads pods, relax only drops
// the required term and adds the toleration: preferences do not count.
func TestRelaxStrictOnlySkipsPreferences(t *testing.T) {
	pod := everyPreference()
	first, ok := relax(pod, true, requirements.StrictOnly)
	require.True(t, ok)
	assert.Len(t, first.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, 1)
	second, ok := relax(first, true, requirements.StrictOnly)
	require.True(t, ok)
	assert.Len(t, second.Spec.Tolerations, 2)
	_, ok = relax(second, true, requirements.StrictOnly)
	assert.False(t, ok)
}

// stripped is the naive PreferencePolicy=Ignore: a deep copy of the pod
// without its preferred terms and ScheduleAnyway spread constraints.
func stripped(pod *corev1.Pod) *corev1.Pod {
	out := pod.DeepCopy()
	if a := out.Spec.Affinity; a != nil {
		if a.NodeAffinity != nil {
			a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
		}
		if a.PodAffinity != nil {
			a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
		}
		if a.PodAntiAffinity != nil {
			a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
		}
	}
	out.Spec.TopologySpreadConstraints = slices.DeleteFunc(out.Spec.TopologySpreadConstraints, func(c corev1.TopologySpreadConstraint) bool {
		return c.WhenUnsatisfiable == corev1.ScheduleAnyway
	})
	return out
}

// A solve with PreferencePolicy=Ignore, which reads the pods without their
// preferences, decides and explains what a solve of the pods stripped of
// them does.
func TestIgnorePreferencesIsSolvingStrippedPods(t *testing.T) {
	nginx := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}
	restricted := newPod("restricted-preference", "1", "1Gi", withPreferredNodeAffinity(1, "kubernetes.io/made-up", corev1.NodeSelectorOpIn, "x"))
	anyway := newPod("spread-anyway", "1", "1Gi")
	anyway.Labels = map[string]string{"app": "nginx"}
	anyway.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: apis.LabelHostname, WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: nginx}}
	second := everyPreference()
	second.Name = "second"
	pending := append(workloads.NewGenerator(workloads.DefaultSeed).Preferences(60), everyPreference(), second, restricted, anyway)
	soft := newPool("soft", withTaint("team", corev1.TaintEffectPreferNoSchedule))
	for _, pools := range [][]Pool{{pool(newPool("default"))}, {pool(soft)}} {
		ignoring := Input{Pods: pending, NodePools: pools, Options: Options{IgnorePreferences: true}}
		naive := Input{Pods: make([]*corev1.Pod, len(pending)), NodePools: pools}
		for i, p := range pending {
			naive.Pods[i] = stripped(p)
		}
		for _, pod := range []string{"default/everything", "default/restricted-preference", "default/spread-anyway", apis.PodKey(pending[0])} {
			got, gotWhy, err := Explain(ignoring, pod)
			require.NoError(t, err)
			want, wantWhy, err := Explain(naive, pod)
			require.NoError(t, err)
			assert.Equal(t, want, got, "pools %s, pod %s", pools[0].NodePool.Name, pod)
			assert.Equal(t, wantWhy, gotWhy, "pools %s, pod %s", pools[0].NodePool.Name, pod)
		}
	}
}

// A solve that relaxes pods, or ignores their preferences, leaves them as
// they were.
func TestRelaxingSolvesLeaveTheirPodsAlone(t *testing.T) {
	soft := newPool("soft", withTaint("team", corev1.TaintEffectPreferNoSchedule))
	for _, ignore := range []bool{false, true} {
		in := Input{Pods: []*corev1.Pod{everyPreference(), everyPreference()}, NodePools: []Pool{pool(soft)}, Options: Options{IgnorePreferences: ignore}}
		in.Pods[1].Name = "second"
		before := []*corev1.Pod{in.Pods[0].DeepCopy(), in.Pods[1].DeepCopy()}
		r := Solve(in)
		assert.Equal(t, before, in.Pods, "IgnorePreferences %v", ignore)
		assert.Equal(t, r, Solve(Input{Pods: before, NodePools: in.NodePools, Options: in.Options}))
	}
}
