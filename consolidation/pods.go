package consolidation

import (
	"math"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// Pod predicates of Karpenter's pkg/utils/pod, and the costs of
// pkg/utils/disruption.

func podKey(p *corev1.Pod) string {
	ns := p.Namespace
	if ns == "" {
		ns = "default"
	}
	return ns + "/" + p.Name
}

func isTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

func isTerminating(p *corev1.Pod) bool { return p.DeletionTimestamp != nil }

// isActive: neither terminal nor terminating.
func isActive(p *corev1.Pod) bool { return !isTerminal(p) && !isTerminating(p) }

// ownedBy reports an owner of the kind in apiVersion. Upstream matches the
// apiVersion exactly; an empty one is accepted too, since hand-written test
// and snapshot pods often leave it out.
func ownedBy(p *corev1.Pod, apiVersion, kind string) bool {
	for _, ref := range p.OwnerReferences {
		if ref.Kind == kind && (ref.APIVersion == apiVersion || ref.APIVersion == "") {
			return true
		}
	}
	return false
}

func isStatefulSetPod(p *corev1.Pod) bool { return ownedBy(p, "apps/v1", "StatefulSet") }

// isMirrorPod: a static pod, owned by its node.
func isMirrorPod(p *corev1.Pod) bool { return ownedBy(p, "v1", "Node") }

// isReschedulable is whether the pod needs a place when its node goes:
// active, or a terminating StatefulSet pod (its replacement cannot start
// until it is gone); never a DaemonSet or mirror pod.
func isReschedulable(p *corev1.Pod) bool {
	return (isActive(p) || (isStatefulSetPod(p) && isTerminating(p))) && !apis.IsDaemonSetPod(p) && !isMirrorPod(p)
}

// doNotDisrupt reports whether the pod's karpenter.sh/do-not-disrupt
// annotation protects it at now, and why: "true" always does; a duration
// does until the pod has run that long (always, if it has not started); any
// other value is ignored, as upstream ignores it. Only active pods are
// protected, mirror and DaemonSet pods included.
func doNotDisrupt(p *corev1.Pod, now time.Time) (bool, string) {
	value, ok := p.Annotations[apis.AnnotationDoNotDisrupt]
	if !ok || !isActive(p) {
		return false, ""
	}
	if value == "true" {
		return true, `"true"`
	}
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 {
		return false, ""
	}
	if p.Status.StartTime == nil {
		return true, strconv.Quote(value) + " and the pod has not started"
	}
	if left := p.Status.StartTime.Add(d).Sub(now); left > 0 {
		return true, strconv.Quote(value) + ", " + left.String() + " left"
	}
	return false, ""
}

// evictionCost is Karpenter's cost of evicting one pod: 1, plus its
// controller.kubernetes.io/pod-deletion-cost over 2^27 (an unparseable
// value is ignored), plus its priority over 2^25, clamped to [-10, 10].
func evictionCost(p *corev1.Pod) float64 {
	cost := 1.0
	if s, ok := p.Annotations[corev1.PodDeletionCost]; ok {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			cost += v / math.Pow(2, 27)
		}
	}
	if p.Spec.Priority != nil {
		cost += float64(*p.Spec.Priority) / math.Pow(2, 25)
	}
	return min(max(cost, -10), 10)
}

// rescheduleDisruptionCost is a node's disruption cost since v1.14: 1 for
// the node itself plus the positive eviction costs of its reschedulable
// pods. A node costing 1 is empty.
func rescheduleDisruptionCost(reschedulable []*corev1.Pod) float64 {
	cost := 1.0
	for _, p := range reschedulable {
		cost += max(0, evictionCost(p))
	}
	return cost
}
