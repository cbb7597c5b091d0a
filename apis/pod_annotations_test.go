package apis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
)

func TestValidatePodDeletionCost(t *testing.T) {
	for v, ok := range map[string]bool{
		"0": true, "100": true, "-5": true, "-0": true, "-05": true, "2147483647": true, "-2147483648": true,
		"": false, "+10": false, "008": false, "1.5": false, "lots": false, " 1": false, "2147483648": false, "-2147483649": false,
	} {
		problems := ValidatePodDeletionCost(map[string]string{corev1.PodDeletionCost: v}, "metadata.annotations")
		if ok {
			assert.Empty(t, problems, "%q", v)
			continue
		}
		if assert.Len(t, problems, 1, "%q", v) {
			assert.Equal(t, "metadata.annotations[controller.kubernetes.io/pod-deletion-cost]", problems[0].Path)
		}
	}
	assert.Empty(t, ValidatePodDeletionCost(map[string]string{AnnotationDisruptionCost: "lots"}, "metadata.annotations"),
		"the disruption-cost annotation is Karpenter's, which no API server checks")
}
