package apis

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestIsDaemonSetPod(t *testing.T) {
	for _, c := range []struct {
		refs []metav1.OwnerReference
		want bool
	}{
		{nil, false},
		{[]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet"}}, true},
		{[]metav1.OwnerReference{{Kind: "DaemonSet"}}, true},
		{[]metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "DaemonSet"}}, false},
		{[]metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet"}, {APIVersion: "apps/v1", Kind: "DaemonSet"}}, true},
	} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: c.refs}}
		if got := IsDaemonSetPod(p); got != c.want {
			t.Errorf("%v: %v, want %v", c.refs, got, c.want)
		}
	}
}
