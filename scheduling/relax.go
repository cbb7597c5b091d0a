package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/requirements"
)

// relax returns a copy of the pod with one preference dropped, in
// Karpenter's order, or false when there is nothing left to relax:
//
//  1. the first required node-affinity term, unless it is the last one;
//  2. the heaviest preferred pod-affinity term;
//  3. the heaviest preferred pod-anti-affinity term;
//  4. the heaviest preferred node-affinity term;
//  5. the first ScheduleAnyway topology spread constraint;
//  6. a toleration of every PreferNoSchedule taint, if some NodePool has
//     one and the pod does not tolerate them all yet.
//
// Steps 2 to 5 drop preferences, which count only WithPreferences: with
// PreferencePolicy=Ignore the solver reads pods StrictOnly, and relax
// skips those steps, rather than copy every pod without its preferences.
//
// The copy is shallow: it copies only the structs and lists on the way to
// what it changes and shares the rest with the pod. Neither is ever
// changed in place, by relax or by the solver.
func relax(pod *corev1.Pod, preferNoSchedule bool, prefs requirements.Preferences) (*corev1.Pod, bool) {
	a := pod.Spec.Affinity
	if a != nil && a.NodeAffinity != nil {
		if r := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil && len(r.NodeSelectorTerms) > 1 {
			out, na := withNodeAffinity(pod)
			required := *r
			required.NodeSelectorTerms = r.NodeSelectorTerms[1:]
			na.RequiredDuringSchedulingIgnoredDuringExecution = &required
			return out, true
		}
	}
	if prefs == requirements.WithPreferences {
		if out, ok := relaxPreference(pod); ok {
			return out, true
		}
	}
	preferNoScheduleToleration := corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule}
	if preferNoSchedule && !slices.Contains(pod.Spec.Tolerations, preferNoScheduleToleration) {
		out := shallowCopy(pod)
		// Clipped, the shared list is copied rather than appended to.
		out.Spec.Tolerations = append(slices.Clip(pod.Spec.Tolerations), preferNoScheduleToleration)
		return out, true
	}
	return nil, false
}

// relaxPreference is relax's steps 2 to 5.
func relaxPreference(pod *corev1.Pod) (*corev1.Pod, bool) {
	a := pod.Spec.Affinity
	if a != nil && a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		out, oa := withAffinity(pod)
		pa := *a.PodAffinity
		pa.PreferredDuringSchedulingIgnoredDuringExecution = dropHeaviest(pa.PreferredDuringSchedulingIgnoredDuringExecution, podTermWeight)
		oa.PodAffinity = &pa
		return out, true
	}
	if a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		out, oa := withAffinity(pod)
		paa := *a.PodAntiAffinity
		paa.PreferredDuringSchedulingIgnoredDuringExecution = dropHeaviest(paa.PreferredDuringSchedulingIgnoredDuringExecution, podTermWeight)
		oa.PodAntiAffinity = &paa
		return out, true
	}
	if a != nil && a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		out, na := withNodeAffinity(pod)
		na.PreferredDuringSchedulingIgnoredDuringExecution = dropHeaviest(na.PreferredDuringSchedulingIgnoredDuringExecution, nodeTermWeight)
		return out, true
	}
	for i, c := range pod.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == corev1.ScheduleAnyway {
			out := shallowCopy(pod)
			out.Spec.TopologySpreadConstraints = slices.Delete(slices.Clone(pod.Spec.TopologySpreadConstraints), i, i+1)
			return out, true
		}
	}
	return nil, false
}

// shallowCopy copies the pod's struct, spec included, sharing everything
// its pointers, maps and slices point to.
func shallowCopy(pod *corev1.Pod) *corev1.Pod {
	out := *pod
	return &out
}

// withAffinity returns a shallow copy of the pod with a copy of its
// (non-nil) affinity, to change.
func withAffinity(pod *corev1.Pod) (*corev1.Pod, *corev1.Affinity) {
	out := shallowCopy(pod)
	a := *pod.Spec.Affinity
	out.Spec.Affinity = &a
	return out, &a
}

// withNodeAffinity returns a shallow copy of the pod with copies of its
// (non-nil) affinity and node affinity, to change.
func withNodeAffinity(pod *corev1.Pod) (*corev1.Pod, *corev1.NodeAffinity) {
	out, a := withAffinity(pod)
	na := *a.NodeAffinity
	a.NodeAffinity = &na
	return out, &na
}

func podTermWeight(t corev1.WeightedPodAffinityTerm) int32  { return t.Weight }
func nodeTermWeight(t corev1.PreferredSchedulingTerm) int32 { return t.Weight }

// dropHeaviest returns the terms without the heaviest one (the first of
// equal weights), keeping the others in order.
func dropHeaviest[T any](terms []T, weight func(T) int32) []T {
	heaviest := 0
	for i := range terms {
		if weight(terms[i]) > weight(terms[heaviest]) {
			heaviest = i
		}
	}
	return slices.Delete(slices.Clone(terms), heaviest, heaviest+1)
}

func hasPreferNoSchedule(taints []corev1.Taint) bool {
	return slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectPreferNoSchedule })
}
