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
func relax(pod *corev1.Pod, preferNoSchedule bool) (*corev1.Pod, bool) {
	out := pod.DeepCopy()
	a := out.Spec.Affinity
	if a != nil && a.NodeAffinity != nil {
		if r := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution; r != nil && len(r.NodeSelectorTerms) > 1 {
			r.NodeSelectorTerms = r.NodeSelectorTerms[1:]
			return out, true
		}
	}
	if a != nil && a.PodAffinity != nil && len(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = dropHeaviest(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution, podTermWeight)
		return out, true
	}
	if a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = dropHeaviest(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution, podTermWeight)
		return out, true
	}
	if a != nil && a.NodeAffinity != nil && len(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution) > 0 {
		a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution = dropHeaviest(a.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, nodeTermWeight)
		return out, true
	}
	for i, c := range out.Spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == corev1.ScheduleAnyway {
			out.Spec.TopologySpreadConstraints = slices.Delete(out.Spec.TopologySpreadConstraints, i, i+1)
			return out, true
		}
	}
	preferNoScheduleToleration := corev1.Toleration{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectPreferNoSchedule}
	if preferNoSchedule && !slices.Contains(out.Spec.Tolerations, preferNoScheduleToleration) {
		out.Spec.Tolerations = append(out.Spec.Tolerations, preferNoScheduleToleration)
		return out, true
	}
	return nil, false
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

// stripPreferences returns a copy of the pod without any preference, for
// PreferencePolicy=Ignore.
func stripPreferences(pod *corev1.Pod) *corev1.Pod {
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

func hasPreferNoSchedule(taints []corev1.Taint) bool {
	return slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectPreferNoSchedule })
}
