package apis

import corev1 "k8s.io/api/core/v1"

// IsDaemonSetPod reports whether a DaemonSet owns the pod: an owner
// reference of kind DaemonSet in apps/v1 (or with no API version, as
// hand-written manifests often leave it), as Karpenter's pod utilities
// decide. DaemonSet pods are overhead on every node, never provisioned for
// and never evicted to another node.
func IsDaemonSetPod(p *corev1.Pod) bool {
	for _, ref := range p.OwnerReferences {
		if ref.Kind == "DaemonSet" && (ref.APIVersion == "apps/v1" || ref.APIVersion == "") {
			return true
		}
	}
	return false
}
