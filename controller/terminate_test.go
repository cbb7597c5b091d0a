package controller

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestEvictionGroupsFollowGracefulShutdownOrder(t *testing.T) {
	pod := func(name string, daemon bool, class string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PodSpec{PriorityClassName: class}}
		if daemon {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "ds"}}
		}
		return p
	}
	in := []*corev1.Pod{
		pod("critical-ds", true, "system-node-critical"), pod("app", false, ""), pod("critical", false, "system-cluster-critical"),
		pod("ds", true, ""), pod("app-2", false, "high"),
	}
	want := [4][]string{{"app", "app-2"}, {"ds"}, {"critical"}, {"critical-ds"}}
	got := EvictionGroups(in)
	for i := range want {
		var names []string
		for _, p := range got[i] {
			names = append(names, p.Name)
		}
		if !slices.Equal(names, want[i]) {
			t.Errorf("group %d: %v, want %v", i, names, want[i])
		}
	}
}
