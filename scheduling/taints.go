package scheduling

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// ephemeralTaints are set on nodes while they start; Karpenter ignores them
// on nodes that are not initialized yet, since they will go away.
var ephemeralTaints = []corev1.Taint{
	{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule},
	{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoExecute},
	{Key: corev1.TaintNodeUnreachable, Effect: corev1.TaintEffectNoSchedule},
	{Key: "node.cloudprovider.kubernetes.io/uninitialized", Value: "true", Effect: corev1.TaintEffectNoSchedule},
	{Key: apis.Group + "/unregistered", Effect: corev1.TaintEffectNoExecute},
}

// ephemeralTaintPrefix is the key prefix of the taints Kubernetes' Node
// Readiness Controller sets until a node meets its readiness rules
// ("readiness.k8s.io/<rule>"): ephemeral too, whatever their effect
// (Karpenter v1.13).
const ephemeralTaintPrefix = "readiness.k8s.io/"

// withoutEphemeral returns taints less the ephemeral ones.
func withoutEphemeral(taints []corev1.Taint) []corev1.Taint {
	return slices.DeleteFunc(withoutTaints(taints, ephemeralTaints), func(t corev1.Taint) bool {
		return strings.HasPrefix(t.Key, ephemeralTaintPrefix)
	})
}

// tolerates returns an error naming the first taint the tolerations do not
// tolerate. Every effect counts, PreferNoSchedule included: Karpenter only
// tolerates PreferNoSchedule taints as its last relaxation.
func tolerates(taints []corev1.Taint, tolerations []corev1.Toleration) error {
	for i := range taints {
		if !toleratesTaint(&taints[i], tolerations) {
			return (*untolerated)(&taints[i])
		}
	}
	return nil
}

// untolerated is the error of a taint a pod does not tolerate, printed only
// when read: most refusals in a solve are never explained.
type untolerated corev1.Taint

func (t *untolerated) Error() string {
	return "did not tolerate taint " + taintString(corev1.Taint(*t))
}

func toleratesTaint(taint *corev1.Taint, tolerations []corev1.Toleration) bool {
	for i := range tolerations {
		if ToleratesTaint(&tolerations[i], taint) {
			return true
		}
	}
	return false
}

// ToleratesTaint is Kubernetes' rule for one toleration and one taint: the
// effect matches or is empty, the key matches or is empty (empty with
// Exists tolerates every taint), and with Equal (the default operator) the
// values are equal.
func ToleratesTaint(t *corev1.Toleration, taint *corev1.Taint) bool {
	if t.Effect != "" && t.Effect != taint.Effect {
		return false
	}
	if t.Key != "" && t.Key != taint.Key {
		return false
	}
	switch t.Operator {
	case corev1.TolerationOpExists:
		return true
	case corev1.TolerationOpEqual, "":
		return t.Key != "" && t.Value == taint.Value
	default:
		return false
	}
}

// taintString prints a taint as kubectl does: key=value:Effect.
func taintString(t corev1.Taint) string {
	if t.Value == "" {
		return fmt.Sprintf("%s:%s", t.Key, t.Effect)
	}
	return fmt.Sprintf("%s=%s:%s", t.Key, t.Value, t.Effect)
}

// withoutTaints returns taints less any that match one of drop by key and
// effect.
func withoutTaints(taints, drop []corev1.Taint) []corev1.Taint {
	var out []corev1.Taint
	for _, t := range taints {
		matched := false
		for _, d := range drop {
			if t.Key == d.Key && t.Effect == d.Effect {
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, t)
		}
	}
	return out
}

// rebootingTaint fences a node while Karpenter's node repair reboots it
// (v1.15).
var rebootingTaint = corev1.Taint{Key: apis.Group + "/rebooting", Effect: corev1.TaintEffectNoSchedule}

// WithoutTransientTaints returns taints less those Karpenter ignores on a
// managed node that is not initialized or is rebooting, since they will go
// away: the ephemeral taints, the reboot's karpenter.sh/rebooting:NoSchedule
// and the startup taints.
func WithoutTransientTaints(taints, startup []corev1.Taint) []corev1.Taint {
	return withoutTaints(withoutEphemeral(taints), append(slices.Clone(startup), rebootingTaint))
}
