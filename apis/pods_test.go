package apis

import (
	"testing"
	"time"

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

func TestPodKey(t *testing.T) {
	for _, c := range []struct{ namespace, name, want string }{
		{"", "web", "default/web"},
		{"shop", "web", "shop/web"},
	} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: c.namespace, Name: c.name}}
		if got := PodKey(p); got != c.want {
			t.Errorf("PodKey(%q, %q) = %q, want %q", c.namespace, c.name, got, c.want)
		}
	}
}

func TestIsMirrorPod(t *testing.T) {
	for _, c := range []struct {
		name        string
		refs        []metav1.OwnerReference
		annotations map[string]string
		want        bool
	}{
		{"plain", nil, nil, false},
		{"owned by v1 Node", []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node"}}, nil, true},
		{"owned by Node, no version", []metav1.OwnerReference{{Kind: "Node"}}, nil, true},
		{"owned by another Node kind", []metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "Node"}}, nil, false},
		{"mirror annotation", nil, map[string]string{corev1.MirrorPodAnnotationKey: "abc"}, true},
	} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{OwnerReferences: c.refs, Annotations: c.annotations}}
		if got := IsMirrorPod(p); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestDoNotDisrupt(t *testing.T) {
	now := time.Date(2026, 1, 5, 12, 0, 0, 0, time.UTC)
	started := metav1.NewTime(now.Add(-time.Hour))
	deleting := metav1.NewTime(now)
	for _, c := range []struct {
		name    string
		value   string
		start   *metav1.Time
		phase   corev1.PodPhase
		deleted *metav1.Time
		want    bool
	}{
		{"true", "true", &started, corev1.PodRunning, nil, true},
		{"false", "false", &started, corev1.PodRunning, nil, false},
		{"duration not yet run", "2h", &started, corev1.PodRunning, nil, true},
		{"duration run", "30m", &started, corev1.PodRunning, nil, false},
		{"duration not started", "30m", nil, corev1.PodPending, nil, true},
		{"terminal", "true", &started, corev1.PodSucceeded, nil, false},
		{"terminating", "true", &started, corev1.PodRunning, &deleting, false},
		{"unparseable", "soon", &started, corev1.PodRunning, nil, false},
	} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{AnnotationDoNotDisrupt: c.value}, DeletionTimestamp: c.deleted},
			Status: corev1.PodStatus{Phase: c.phase, StartTime: c.start}}
		if got, why := DoNotDisrupt(p, now); got != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, got, why, c.want)
		}
	}
}

func TestWithDisruptedTaint(t *testing.T) {
	other := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	in := []corev1.Taint{other}
	on := WithDisruptedTaint(in, true)
	if !HasDisruptedTaint(on) || len(on) != 2 || HasDisruptedTaint(in) || len(in) != 1 {
		t.Fatalf("on: %v (input %v)", on, in)
	}
	if again := WithDisruptedTaint(on, true); len(again) != 2 {
		t.Errorf("added twice: %v", again)
	}
	if off := WithDisruptedTaint(on, false); HasDisruptedTaint(off) || len(off) != 1 || len(on) != 2 {
		t.Errorf("off: %v (input %v)", off, on)
	}
}
