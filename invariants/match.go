package invariants

import (
	"maps"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/karpsim/karpsim/apis"
)

// The Kubernetes matching rules, written for this package: a node's labels
// against a pod's selectors, a node's taints against a pod's tolerations,
// a pod's labels against an affinity term.

// tolerated reports whether a toleration tolerates a taint: effects equal
// or the toleration's empty; keys equal or the toleration's empty with
// Exists; with Equal (or no operator) the values equal.
func tolerated(t corev1.Toleration, taint corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	switch t.Operator {
	case corev1.TolerationOpExists:
		return t.Key == "" || t.Key == taint.Key
	case corev1.TolerationOpEqual, "":
		return t.Key != "" && t.Key == taint.Key && t.Value == taint.Value
	}
	return false
}

// untolerated returns the first NoSchedule or NoExecute taint the pod does
// not tolerate, and whether there is one. PreferNoSchedule taints never
// forbid a placement.
func untolerated(pod *corev1.Pod, taints []corev1.Taint) (corev1.Taint, bool) {
	for _, taint := range taints {
		if taint.Effect != corev1.TaintEffectNoSchedule && taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if !slices.ContainsFunc(pod.Spec.Tolerations, func(t corev1.Toleration) bool { return tolerated(t, taint) }) {
			return taint, true
		}
	}
	return corev1.Taint{}, false
}

// startingTaints are the taints a node carries while it starts, which a
// placement on a node not yet initialized may ignore: they will go away.
var startingTaints = map[string]bool{
	corev1.TaintNodeNotReady:                         true,
	corev1.TaintNodeUnreachable:                      true,
	"node.cloudprovider.kubernetes.io/uninitialized": true,
	apis.Group + "/unregistered":                     true,
}

// requirementHolds evaluates one node selector requirement on a node's
// labels, as the API server defines each operator (and Karpenter's Gte and
// Lte: inclusive integer bounds).
func requirementHolds(r corev1.NodeSelectorRequirement, nodeLabels map[string]string) bool {
	v, ok := nodeLabels[r.Key]
	switch r.Operator {
	case corev1.NodeSelectorOpIn:
		return ok && slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpNotIn:
		return !ok || !slices.Contains(r.Values, v)
	case corev1.NodeSelectorOpExists:
		return ok
	case corev1.NodeSelectorOpDoesNotExist:
		return !ok
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt, apis.NodeSelectorOpGte, apis.NodeSelectorOpLte:
		if !ok || len(r.Values) != 1 {
			return false
		}
		have, err1 := strconv.ParseInt(v, 10, 64)
		bound, err2 := strconv.ParseInt(r.Values[0], 10, 64)
		if err1 != nil || err2 != nil {
			return false
		}
		switch r.Operator {
		case corev1.NodeSelectorOpGt:
			return have > bound
		case corev1.NodeSelectorOpLt:
			return have < bound
		case apis.NodeSelectorOpGte:
			return have >= bound
		default:
			return have <= bound
		}
	}
	return false
}

// termMatches evaluates a node selector term: every expression and field
// holds. A term with neither matches no node.
func termMatches(term corev1.NodeSelectorTerm, nodeName string, nodeLabels map[string]string) bool {
	if len(term.MatchExpressions) == 0 && len(term.MatchFields) == 0 {
		return false
	}
	for _, r := range term.MatchExpressions {
		if !requirementHolds(r, nodeLabels) {
			return false
		}
	}
	for _, f := range term.MatchFields {
		if f.Key != "metadata.name" || !requirementHolds(corev1.NodeSelectorRequirement{Key: f.Key, Operator: f.Operator, Values: f.Values},
			map[string]string{f.Key: nodeName}) {
			return false
		}
	}
	return true
}

// selectorMismatch returns the rule a node breaks of the pod's nodeSelector
// and required node affinity, "" when it breaks neither.
func selectorMismatch(pod *corev1.Pod, nodeName string, nodeLabels map[string]string) (rule, detail string) {
	for _, k := range slices.Sorted(maps.Keys(pod.Spec.NodeSelector)) {
		if v, ok := nodeLabels[k]; !ok || v != pod.Spec.NodeSelector[k] {
			return RuleNodeSelector, "nodeSelector " + k + "=" + pod.Spec.NodeSelector[k] + " but the node has " + labelOrNone(nodeLabels, k)
		}
	}
	a := pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return "", ""
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if !slices.ContainsFunc(terms, func(t corev1.NodeSelectorTerm) bool { return termMatches(t, nodeName, nodeLabels) }) {
		return RuleNodeAffinity, "none of the pod's " + strconv.Itoa(len(terms)) + " required node affinity terms matches the node's labels"
	}
	return "", ""
}

func labelOrNone(m map[string]string, k string) string {
	if v, ok := m[k]; ok {
		return k + "=" + v
	}
	return "no " + k + " label"
}

// podTerm is a pod affinity or anti-affinity term read for matching: the
// namespaces it looks in (all of them when any is true) and its selector,
// with the owner's matchLabelKeys and mismatchLabelKeys folded in.
type podTerm struct {
	key        string
	namespaces map[string]bool
	any        bool
	selector   labels.Selector
}

// readTerm reads an affinity term of owner. A namespaceSelector is read as
// every namespace when loose (affinity: more pods may satisfy it) and as
// none beyond the listed ones otherwise (anti-affinity: fewer pods
// conflict), since namespace labels are not part of a decision's input: a
// violation is then always real. A selector that cannot be read matches
// nothing.
func readTerm(owner *corev1.Pod, t corev1.PodAffinityTerm, loose bool) podTerm {
	pt := podTerm{key: t.TopologyKey, namespaces: map[string]bool{}}
	for _, ns := range t.Namespaces {
		pt.namespaces[ns] = true
	}
	switch {
	case t.NamespaceSelector != nil && (loose || len(t.NamespaceSelector.MatchLabels)+len(t.NamespaceSelector.MatchExpressions) == 0):
		pt.any = true
	case len(t.Namespaces) == 0 && t.NamespaceSelector == nil:
		pt.namespaces[apis.NamespaceOf(owner.Namespace)] = true
	}
	sel, err := metav1.LabelSelectorAsSelector(t.LabelSelector)
	if err != nil || t.LabelSelector == nil {
		pt.selector = labels.Nothing()
		return pt
	}
	for _, k := range t.MatchLabelKeys {
		if v, ok := owner.Labels[k]; ok {
			if r, err := labels.NewRequirement(k, selection.In, []string{v}); err == nil {
				sel = sel.Add(*r)
			}
		}
	}
	for _, k := range t.MismatchLabelKeys {
		if v, ok := owner.Labels[k]; ok {
			if r, err := labels.NewRequirement(k, selection.NotIn, []string{v}); err == nil {
				sel = sel.Add(*r)
			}
		}
	}
	pt.selector = sel
	return pt
}

func (t podTerm) matches(p *corev1.Pod) bool {
	if !t.any && !t.namespaces[apis.NamespaceOf(p.Namespace)] {
		return false
	}
	return t.selector.Matches(labels.Set(p.Labels))
}

// requiredTerms returns a pod's required affinity and anti-affinity terms.
func requiredTerms(p *corev1.Pod) (affinity, anti []corev1.PodAffinityTerm) {
	a := p.Spec.Affinity
	if a == nil {
		return nil, nil
	}
	if a.PodAffinity != nil {
		affinity = a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if a.PodAntiAffinity != nil {
		anti = a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	return affinity, anti
}
