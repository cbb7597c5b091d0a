package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
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
// The copy is shallow: it copies only the structs and lists on the way to
// what it changes and shares the rest with the pod. Neither is ever
// changed in place, by relax or by the solver.
func relax(pod *corev1.Pod, preferNoSchedule bool) (*corev1.Pod, bool) {
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
	preferNoScheduleToleration := corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule}
	if preferNoSchedule && !slices.Contains(pod.Spec.Tolerations, preferNoScheduleToleration) {
		out := shallowCopy(pod)
		// Clipped, the shared list is copied rather than appended to.
		out.Spec.Tolerations = append(slices.Clip(pod.Spec.Tolerations), preferNoScheduleToleration)
		return out, true
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

// stripped is a pod without its preferences and the structs stripping
// changes, allocated together: PreferencePolicy=Ignore strips every pod
// that has one, and one allocation per pod rather than five keeps the
// solve's setup cheap.
type stripped struct {
	pod             corev1.Pod
	affinity        corev1.Affinity
	nodeAffinity    corev1.NodeAffinity
	podAffinity     corev1.PodAffinity
	podAntiAffinity corev1.PodAntiAffinity
}

// stripPreferences returns the pod without any preference, for
// PreferencePolicy=Ignore: the pod itself when it has none, else a copy
// that, like relax's, is shallow.
func stripPreferences(pod *corev1.Pod) *corev1.Pod {
	if !hasPreferences(pod) {
		return pod
	}
	out := &stripped{pod: *pod}
	if a := pod.Spec.Affinity; a != nil {
		out.affinity = *a
		out.pod.Spec.Affinity = &out.affinity
		if a.NodeAffinity != nil {
			out.nodeAffinity = *a.NodeAffinity
			out.nodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
			out.affinity.NodeAffinity = &out.nodeAffinity
		}
		if a.PodAffinity != nil {
			out.podAffinity = *a.PodAffinity
			out.podAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
			out.affinity.PodAffinity = &out.podAffinity
		}
		if a.PodAntiAffinity != nil {
			out.podAntiAffinity = *a.PodAntiAffinity
			out.podAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = nil
			out.affinity.PodAntiAffinity = &out.podAntiAffinity
		}
	}
	if slices.ContainsFunc(pod.Spec.TopologySpreadConstraints, scheduleAnyway) {
		out.pod.Spec.TopologySpreadConstraints = slices.DeleteFunc(slices.Clone(pod.Spec.TopologySpreadConstraints), scheduleAnyway)
	}
	return &out.pod
}

// hasPreferences reports whether stripPreferences would change the pod.
func hasPreferences(pod *corev1.Pod) bool {
	if slices.ContainsFunc(pod.Spec.TopologySpreadConstraints, scheduleAnyway) {
		return true
	}
	a := pod.Spec.Affinity
	return a != nil && (a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 ||
		a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 ||
		a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0)
}

func scheduleAnyway(c corev1.TopologySpreadConstraint) bool {
	return c.WhenUnsatisfiable == corev1.ScheduleAnyway
}

func hasPreferNoSchedule(taints []corev1.Taint) bool {
	return slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectPreferNoSchedule })
}
