package apis

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
)

// ValidatePodDeletionCost checks a pod's (or pod template's)
// controller.kubernetes.io/pod-deletion-cost as the API server does before
// storing the pod: a 32-bit integer that starts with a minus sign or a digit,
// and with 0 only when it is "0". path is where the annotations are, such as
// "metadata.annotations". Karpenter's karpenter.sh/disruption-cost has no
// such check: Karpenter ignores a value it cannot read.
func ValidatePodDeletionCost(annotations map[string]string, path string) FieldErrors {
	v, ok := annotations[corev1.PodDeletionCost]
	if !ok || plainInt32(v) {
		return nil
	}
	var e errs
	e.add(key(path, corev1.PodDeletionCost), "%q must be a 32-bit integer, such as \"100\" or \"-5\"", v)
	return e.list
}

// plainInt32 reports whether s is a 32-bit integer starting with a minus
// sign, a digit other than 0, or being "0".
func plainInt32(s string) bool {
	if s == "" || !(s[0] == '-' || s == "0" || ('1' <= s[0] && s[0] <= '9')) {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 32)
	return err == nil
}
