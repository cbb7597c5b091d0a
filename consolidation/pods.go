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

// evictionCost is Karpenter's cost of evicting one pod (v1.15): 1, plus
// its karpenter.sh/disruption-cost over 2^27, or without that annotation
// its controller.kubernetes.io/pod-deletion-cost over 2^27 unless the
// PodDeletionCostManagement gate is on (Karpenter then writes that
// annotation itself, so it says nothing about the user's wishes); plus its
// priority over 2^25; clamped to [-10, 10]. Both annotations are read as
// 32-bit integers: a value that is not one ("1.5", "lots") adds nothing,
// and a present but unreadable disruption-cost still hides the
// pod-deletion-cost.
func evictionCost(p *corev1.Pod, podDeletionCostManagement bool) float64 {
	cost := 1.0
	if s, ok := p.Annotations[apis.AnnotationDisruptionCost]; ok {
		cost += annotatedCost(s)
	} else if s, ok := p.Annotations[corev1.PodDeletionCost]; ok && !podDeletionCostManagement {
		cost += annotatedCost(s)
	}
	if p.Spec.Priority != nil {
		cost += float64(*p.Spec.Priority) / math.Pow(2, 25)
	}
	return min(max(cost, -10), 10)
}

// EvictionCost is Karpenter's cost of evicting the pod (its
// pkg/utils/disruption.EvictionCost at v1.15.0), with the
// PodDeletionCostManagement feature gate as given; see evictionCost. A
// node's disruption cost sums the positive costs of its reschedulable pods.
func EvictionCost(p *corev1.Pod, podDeletionCostManagement bool) float64 {
	return evictionCost(p, podDeletionCostManagement)
}

// annotatedCost is a cost annotation's share of the eviction cost: the
// value, a 32-bit integer, over 2^27; 0 when it is not one.
func annotatedCost(s string) float64 {
	v, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0
	}
	return float64(v) / math.Pow(2, 27)
}

// rescheduleDisruptionCost is a node's disruption cost since v1.14: 1 for
// the node itself plus the positive eviction costs of its reschedulable
// pods. A node costing 1 is empty.
func rescheduleDisruptionCost(reschedulable []*corev1.Pod, podDeletionCostManagement bool) float64 {
	cost := 1.0
	for _, p := range reschedulable {
		cost += max(0, evictionCost(p, podDeletionCostManagement))
	}
	return cost
}
