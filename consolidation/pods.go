package consolidation

import (
	"math"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// The disruption rules about pods, on top of apis' pod predicates, and the
// costs of Karpenter's pkg/utils/disruption.

// isReschedulable is whether the pod needs a place when its node goes:
// active, or a terminating StatefulSet pod (its replacement cannot start
// until it is gone); never a DaemonSet or mirror pod.
func isReschedulable(p *corev1.Pod) bool {
	return (apis.IsActive(p) || (apis.IsStatefulSetPod(p) && apis.IsTerminating(p))) && !apis.IsDaemonSetPod(p) && !apis.IsMirrorPod(p)
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
