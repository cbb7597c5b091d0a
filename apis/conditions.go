package apis

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// validateConditionStatuses checks what karpsim reads of a status's
// conditions (Initialized, Drifted, InstanceTerminating, Rebooting): each
// has a type, and a status the CRD's enum allows, True, False or Unknown.
func validateConditionStatuses(e *errs, path string, conditions []metav1.Condition) {
	for i, c := range conditions {
		p := fmt.Sprintf("%s[%d]", path, i)
		if c.Type == "" {
			e.add(p+".type", "required")
		}
		switch c.Status {
		case metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown:
		default:
			e.add(p+".status", "%q is not a condition status (use True, False or Unknown)", c.Status)
		}
	}
}
