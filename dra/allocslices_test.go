package dra

import (
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A pod whose ResourceClaim, or whose claim's DeviceClass, does not exist
// is deferred, naming the field, as Karpenter leaves it pending; the
// objects themselves are not refused.
func TestMissingClaimsAndClassesDeferThePod(t *testing.T) {
	noClass := exact("r", 1)
	noClass.Exactly.DeviceClassName = "absent"
	tr, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{gpuClass()},
		ResourceClaims: []*resourcev1.ResourceClaim{claimOf("c", noClass)}})
	if len(problems) > 0 {
		t.Fatalf("a claim of a class not yet created is refused: %v", problems)
	}
	for _, tc := range []struct{ claim, want string }{
		{"c", `spec.resourceClaims[0]: spec.devices.requests[0].exactly.deviceClassName: DeviceClass "absent" does not exist`},
		{"later", "spec.resourceClaims[0].resourceClaimName: ResourceClaim default/later does not exist"},
	} {
		claim := tc.claim
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim}},
			Containers:     []corev1.Container{{Name: "app"}}}}
		_, err := tr.Pod(p)
		var d Deferred
		if !errors.As(err, &d) || !strings.Contains(d.Error(), tc.want) || d.Pod != "default/p" {
			t.Errorf("claim %s: %v, want a Deferred saying %q", tc.claim, err, tc.want)
		}
	}
}
