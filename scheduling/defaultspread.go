package scheduling

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/karpsim/karpsim/apis"
)

// DefaultSpread is kube-scheduler's PodTopologySpread defaultConstraints,
// and what a pod's selector for them is deduced from. kube-scheduler
// applies the constraints to every pod that states no spread constraint of
// its own; Karpenter mirrors them (unreleased upstream after v1.14.1, its
// SCHEDULER_CONFIG option) so that it provisions for the spread the
// scheduler will enforce. A default constraint states no selector: each pod
// gets one deduced as kube-scheduler deduces it, and a pod for which none
// can be deduced gets no defaults at all.
type DefaultSpread struct {
	// Constraints are the defaults, without label selectors.
	Constraints []corev1.TopologySpreadConstraint
	// Services are the cluster's Services: those in a pod's namespace whose
	// selector matches the pod contribute their selector's labels.
	Services []*corev1.Service
	// Controllers are the label selectors of the ReplicaSets, StatefulSets
	// and ReplicationControllers pods may be controlled by, by
	// ControllerKey: a pod's controller of one of these kinds adds its
	// selector. Other controllers (Jobs, DaemonSets, ...) add nothing.
	Controllers map[string]*metav1.LabelSelector
}

// ControllerKey keys DefaultSpread.Controllers: "Kind/namespace/name".
func ControllerKey(kind, namespace, name string) string {
	return kind + "/" + apis.NamespaceOf(namespace) + "/" + name
}

// PodWithDefaults returns the pod as a solve with these defaults reads it:
// with the default constraints it gets, each carrying the selector deduced
// for it (see withDefaults). The pod is not changed.
func (d *DefaultSpread) PodWithDefaults(p *corev1.Pod) *corev1.Pod { return d.withDefaults(p, nil) }

// withDefaults returns the pod with the default constraints it gets, each
// carrying its deduced selector: the pod itself when it states spread
// constraints, when no selector can be deduced, or when d is nil; else a
// shallow copy whose spec has the constraints (nothing else is changed, and
// the caller's pod is not). Selectors are remembered in cache, by the
// inputs they are deduced from.
func (d *DefaultSpread) withDefaults(p *corev1.Pod, cache map[string]*metav1.LabelSelector) *corev1.Pod {
	if d == nil || len(d.Constraints) == 0 || len(p.Spec.TopologySpreadConstraints) > 0 {
		return p
	}
	sel := d.selectorFor(p, cache)
	if sel == nil {
		return p
	}
	out := *p
	out.Spec.TopologySpreadConstraints = make([]corev1.TopologySpreadConstraint, len(d.Constraints))
	for i := range d.Constraints {
		d.Constraints[i].DeepCopyInto(&out.Spec.TopologySpreadConstraints[i])
		// Each constraint its own selector: nothing of one pod's
		// constraints is shared with another's.
		out.Spec.TopologySpreadConstraints[i].LabelSelector = sel.DeepCopy()
	}
	return &out
}

// selectorFor deduces the pod's selector as kube-scheduler does: the
// labels of the selectors of the Services in its namespace that select it
// (a later Service's value winning a key), then its controller's selector
// (a ReplicationController's labels overwrite; a ReplicaSet's or
// StatefulSet's requirements are added). Nil when the result selects on
// nothing: the pod then gets no default constraints.
func (d *DefaultSpread) selectorFor(p *corev1.Pod, cache map[string]*metav1.LabelSelector) *metav1.LabelSelector {
	owner := controllerOf(p)
	key := apis.NamespaceOf(p.Namespace) + "\x00" + owner + "\x00" + labels.Set(p.Labels).String()
	if sel, ok := cache[key]; ok {
		return sel
	}
	matchLabels := map[string]string{}
	for _, svc := range d.Services {
		if svc.Spec.Selector == nil || apis.NamespaceOf(svc.Namespace) != apis.NamespaceOf(p.Namespace) {
			continue
		}
		if labels.SelectorFromSet(svc.Spec.Selector).Matches(labels.Set(p.Labels)) {
			maps.Copy(matchLabels, svc.Spec.Selector)
		}
	}
	var exprs []metav1.LabelSelectorRequirement
	if owner != "" {
		if ctrl := d.Controllers[owner]; ctrl != nil {
			if strings.HasPrefix(owner, "ReplicationController/") {
				maps.Copy(matchLabels, ctrl.MatchLabels)
			} else {
				exprs = selectorRequirements(ctrl)
			}
		}
	}
	var sel *metav1.LabelSelector
	if len(matchLabels) > 0 || len(exprs) > 0 {
		sel = &metav1.LabelSelector{MatchExpressions: exprs}
		if len(matchLabels) > 0 {
			sel.MatchLabels = matchLabels
		}
	}
	if cache != nil {
		cache[key] = sel
	}
	return sel
}

// controllerOf returns the ControllerKey of the pod's controller when it
// is of a kind kube-scheduler deduces selectors from, else "".
func controllerOf(p *corev1.Pod) string {
	ref := metav1.GetControllerOfNoCopy(p)
	if ref == nil {
		return ""
	}
	switch {
	case ref.Kind == "ReplicationController" && (ref.APIVersion == "v1" || ref.APIVersion == ""),
		(ref.Kind == "ReplicaSet" || ref.Kind == "StatefulSet") && (ref.APIVersion == "apps/v1" || ref.APIVersion == ""):
		return ControllerKey(ref.Kind, p.Namespace, ref.Name)
	}
	return ""
}

// selectorRequirements are a selector's labels as In requirements, sorted
// by key, then its expressions; the selector is not shared.
func selectorRequirements(sel *metav1.LabelSelector) []metav1.LabelSelectorRequirement {
	var out []metav1.LabelSelectorRequirement
	for _, k := range slices.Sorted(maps.Keys(sel.MatchLabels)) {
		out = append(out, metav1.LabelSelectorRequirement{Key: k, Operator: metav1.LabelSelectorOpIn, Values: []string{sel.MatchLabels[k]}})
	}
	for _, e := range sel.MatchExpressions {
		out = append(out, *e.DeepCopy())
	}
	return out
}
