package apis

import (
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The pod rules every decision package shares: a pod's identity, and the
// predicates of Karpenter's pod utilities that say which pods count where.
// Each is written once, here.

// PodKey is a pod's identity in karpsim: "namespace/name", with an empty
// namespace read as "default", where the API server would create the pod.
// Every sort, map and message that names a pod uses it.
func PodKey(p *corev1.Pod) string {
	return NamespaceOf(p.Namespace) + "/" + p.Name
}

// ComparePodKeys orders pods as their PodKeys compare, without building
// the keys: sorting tens of thousands of pods by key would otherwise
// allocate two strings a comparison.
func ComparePodKeys(a, b *corev1.Pod) int {
	return compareKeys(NamespaceOf(a.Namespace), a.Name, NamespaceOf(b.Namespace), b.Name)
}

// compareKeys compares ns1+"/"+name1 with ns2+"/"+name2.
func compareKeys(ns1, name1, ns2, name2 string) int {
	if ns1 == ns2 {
		return strings.Compare(name1, name2)
	}
	l := min(len(ns1), len(ns2))
	if c := strings.Compare(ns1[:l], ns2[:l]); c != 0 {
		return c
	}
	// One namespace is a prefix of the other: the shorter key goes on with
	// '/', the longer with its next byte (which a namespace never makes '/',
	// but compare all the same).
	if len(ns1) < len(ns2) {
		return compareAfter(name1, ns2[l:]+"/"+name2)
	}
	return -compareAfter(name2, ns1[l:]+"/"+name1)
}

// compareAfter compares "/"+name with rest.
func compareAfter(name, rest string) int {
	if rest[0] != '/' {
		if '/' < rest[0] {
			return -1
		}
		return 1
	}
	return strings.Compare(name, rest[1:])
}

// IsDaemonSetPod reports whether a DaemonSet owns the pod: an owner
// reference of kind DaemonSet in apps/v1 (or with no API version, as
// hand-written manifests often leave it), as Karpenter's pod utilities
// decide. DaemonSet pods are overhead on every node, never provisioned for
// and never evicted to another node.
func IsDaemonSetPod(p *corev1.Pod) bool { return ownedBy(p, "apps/v1", "DaemonSet") }

// IsMirrorPod reports whether the kubelet runs the pod from a static
// manifest: its API-server copy is owned by the node (v1 Node, or no API
// version given) or carries the kubelet's mirror annotation. Mirror pods
// live and die with their node: never provisioned for, never evicted.
func IsMirrorPod(p *corev1.Pod) bool {
	_, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]
	return mirror || ownedBy(p, "v1", "Node")
}

// IsStatefulSetPod reports whether an apps/v1 StatefulSet owns the pod.
func IsStatefulSetPod(p *corev1.Pod) bool { return ownedBy(p, "apps/v1", "StatefulSet") }

// IsTerminal reports whether the pod has finished: Succeeded or Failed.
func IsTerminal(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// ClaimsDevices reports whether the pod claims devices through dynamic
// resource allocation: its own resourceClaims, or a claim named in any
// container's or init container's resources (Karpenter's test of a pod's
// DRA requirements).
func ClaimsDevices(p *corev1.Pod) bool {
	if len(p.Spec.ResourceClaims) > 0 {
		return true
	}
	for _, cs := range [][]corev1.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for _, c := range cs {
			if len(c.Resources.Claims) > 0 {
				return true
			}
		}
	}
	return false
}

// IsTerminating reports whether the pod is being deleted.
func IsTerminating(p *corev1.Pod) bool { return p.DeletionTimestamp != nil }

// IsActive reports whether the pod is neither terminal nor terminating.
func IsActive(p *corev1.Pod) bool { return !IsTerminal(p) && !IsTerminating(p) }

// ownedBy reports an owner of the kind in apiVersion. Karpenter matches the
// API version exactly; an empty one is accepted too, since hand-written
// manifests and test pods often leave it out.
func ownedBy(p *corev1.Pod, apiVersion, kind string) bool {
	return slices.ContainsFunc(p.OwnerReferences, func(ref metav1.OwnerReference) bool {
		return ref.Kind == kind && (ref.APIVersion == apiVersion || ref.APIVersion == "")
	})
}

// DoNotDisrupt reports whether the pod's karpenter.sh/do-not-disrupt
// annotation protects it at now, and why: "true" always does; a duration
// does until the pod has run that long (always, if it has not started); any
// other value is ignored, as Karpenter ignores it. Only active pods are
// protected, mirror and DaemonSet pods included.
func DoNotDisrupt(p *corev1.Pod, now time.Time) (bool, string) {
	value, ok := p.Annotations[AnnotationDoNotDisrupt]
	if !ok || !IsActive(p) {
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

// DisruptedTaint is the taint Karpenter puts on a node it is disrupting, so
// that no new pod lands there; pods that tolerate it are not evicted. It is
// returned by value: callers cannot change it.
func DisruptedTaint() corev1.Taint {
	return corev1.Taint{Key: Group + "/disrupted", Effect: corev1.TaintEffectNoSchedule}
}

// IsDisruptedTaint reports whether t is DisruptedTaint.
func IsDisruptedTaint(t corev1.Taint) bool {
	return t.Key == Group+"/disrupted" && t.Effect == corev1.TaintEffectNoSchedule
}

// HasDisruptedTaint reports whether the taints include DisruptedTaint.
func HasDisruptedTaint(taints []corev1.Taint) bool {
	return slices.ContainsFunc(taints, IsDisruptedTaint)
}

// WithDisruptedTaint returns a copy of taints with DisruptedTaint added (on)
// or removed; taints itself is not changed.
func WithDisruptedTaint(taints []corev1.Taint, on bool) []corev1.Taint {
	out := slices.DeleteFunc(slices.Clone(taints), IsDisruptedTaint)
	if on {
		out = append(out, DisruptedTaint())
	}
	return out
}

// NamespaceOf is the namespace an object given without one is created in:
// "default".
func NamespaceOf(ns string) string {
	if ns == "" {
		return corev1.NamespaceDefault
	}
	return ns
}
