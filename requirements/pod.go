package requirements

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// Preferences says whether a pod's preferred node affinity counts.
type Preferences int

const (
	// StrictOnly reads required terms only; topology domains use this
	// form, and so does PreferencePolicy=Ignore.
	StrictOnly Preferences = iota
	// WithPreferences also treats the single heaviest preferred node-affinity
	// term as required, as Karpenter does until relaxation drops it.
	WithPreferences
)

// FromPod returns what a pod requires of a node's labels: its nodeSelector,
// the first term of its required node affinity (later terms are tried only
// when relaxation drops the earlier ones), and with WithPreferences the
// heaviest preferred node-affinity term (the first of equal weights).
// matchFields are not supported by Karpenter and are an error, as are
// operators that do not suit their values.
func FromPod(pod *corev1.Pod, prefs Preferences) (Requirements, error) {
	reqs := FromLabels(pod.Spec.NodeSelector)
	if pod.Spec.Affinity == nil || pod.Spec.Affinity.NodeAffinity == nil {
		return reqs, nil
	}
	affinity := pod.Spec.Affinity.NodeAffinity
	if prefs == WithPreferences {
		if term, ok := HeaviestPreferredTerm(affinity.PreferredDuringSchedulingIgnoredDuringExecution); ok {
			preferred, err := FromNodeSelectorRequirements(term.Preference.MatchExpressions...)
			if err != nil {
				return Requirements{}, fmt.Errorf("spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution: %w", err)
			}
			reqs = reqs.Intersect(preferred)
		}
	}
	if required := affinity.RequiredDuringSchedulingIgnoredDuringExecution; required != nil && len(required.NodeSelectorTerms) > 0 {
		term := required.NodeSelectorTerms[0]
		if len(term.MatchFields) > 0 {
			return Requirements{}, fmt.Errorf("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields: not supported by Karpenter")
		}
		first, err := FromNodeSelectorRequirements(term.MatchExpressions...)
		if err != nil {
			return Requirements{}, fmt.Errorf("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]: %w", err)
		}
		reqs = reqs.Intersect(first)
	}
	return reqs, nil
}

// HeaviestPreferredTerm returns the preferred term of greatest weight, the
// first one among equals, without reordering the slice.
func HeaviestPreferredTerm(terms []corev1.PreferredSchedulingTerm) (corev1.PreferredSchedulingTerm, bool) {
	if len(terms) == 0 {
		return corev1.PreferredSchedulingTerm{}, false
	}
	best := 0
	for i := range terms {
		if terms[i].Weight > terms[best].Weight {
			best = i
		}
	}
	return terms[best], true
}
