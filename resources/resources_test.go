package resources

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func list(kv ...string) corev1.ResourceList {
	out := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		out[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func container(name string, requests corev1.ResourceList) corev1.Container {
	return corev1.Container{Name: name, Resources: corev1.ResourceRequirements{Requests: requests}}
}

func TestVectorArithmetic(t *testing.T) {
	a := FromList(list("cpu", "1500m", "memory", "1Gi", "example.com/foo", "2"))
	b := FromList(list("cpu", "500m", "memory", "512Mi", "example.com/bar", "1", "example.com/foo", "2"))
	assert.Equal(t, `{"cpu":"2","example.com/bar":"1","example.com/foo":"4","memory":"1536Mi"}`, a.Add(b).String())
	assert.Equal(t, `{"cpu":"1","example.com/bar":"-1","memory":"512Mi"}`, a.Sub(b).String())
	assert.Equal(t, `{"cpu":"1500m","example.com/bar":"1","example.com/foo":"2","memory":"1Gi"}`, a.Max(b).String())
	assert.Equal(t, `{"cpu":"500m","example.com/foo":"2","memory":"512Mi"}`, a.Min(b).String())
	assert.Equal(t, `{"cpu":"3","example.com/foo":"4","memory":"2Gi"}`, a.Scale(2).String())
	assert.Equal(t, `{"cpu":"1500m","example.com/foo":"2","memory":"1Gi"}`, a.String(), "operands are unchanged")
	assert.True(t, a.Sub(a).IsZero())
	assert.True(t, a.Sub(b).HasNegative())
}

func TestFits(t *testing.T) {
	capacity := FromList(list("cpu", "2", "memory", "4Gi", "pods", "10", "nvidia.com/gpu", "1", "example.com/foo", "3"))
	for _, tc := range []struct {
		name     string
		want     corev1.ResourceList
		fits     bool
		exceeded []corev1.ResourceName
	}{
		{"everything within", list("cpu", "2", "memory", "4Gi", "pods", "1"), true, nil},
		{"cpu over", list("cpu", "2001m"), false, []corev1.ResourceName{"cpu"}},
		{"gpu over", list("nvidia.com/gpu", "2"), false, []corev1.ResourceName{"nvidia.com/gpu"}},
		{"extra within", list("example.com/foo", "3"), true, nil},
		{"extra over", list("example.com/foo", "4", "memory", "5Gi"), false, []corev1.ResourceName{"example.com/foo", "memory"}},
		{"absent resource", list("example.com/bar", "1"), false, []corev1.ResourceName{"example.com/bar"}},
		{"zero of an absent resource", list("example.com/bar", "0", "amd.com/gpu", "0"), true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := FromList(tc.want)
			assert.Equal(t, tc.fits, v.Fits(capacity))
			assert.Equal(t, tc.exceeded, v.Exceeding(capacity))
		})
	}
}

func TestQuantitiesPrintCanonically(t *testing.T) {
	v := New(940, 1392*1024*1024, 8).With(corev1.ResourceEphemeralStorage, 17<<30).With("hugepages-2Mi", 4<<20).With("nvidia.com/gpu", 4)
	assert.Equal(t, map[string]string{
		"cpu": "940m", "memory": "1392Mi", "pods": "8", "ephemeral-storage": "17Gi", "hugepages-2Mi": "4Mi", "nvidia.com/gpu": "4",
	}, v.Strings())
	assert.Equal(t, v, FromList(v.List()))
}

func TestFromListRoundsUp(t *testing.T) {
	v := FromList(list("cpu", "0.0001", "memory", "1.5"))
	assert.Equal(t, int64(1), v.CPU())
	assert.Equal(t, int64(2), v.Memory())
}

func TestPodRequests(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := func(name string, requests corev1.ResourceList) corev1.Container {
		c := container(name, requests)
		c.RestartPolicy = &always
		return c
	}
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		want string
	}{
		{"containers are summed, one pod", corev1.PodSpec{Containers: []corev1.Container{
			container("a", list("cpu", "250m", "memory", "64Mi")), container("b", list("cpu", "750m")),
		}}, `{"cpu":"1","memory":"64Mi","pods":"1"}`},
		{"no requests at all", corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}}}, `{"pods":"1"}`},
		{"an init container bigger than the app wins", corev1.PodSpec{
			InitContainers: []corev1.Container{container("init", list("cpu", "2", "memory", "32Mi"))},
			Containers:     []corev1.Container{container("app", list("cpu", "500m", "memory", "1Gi"))},
		}, `{"cpu":"2","memory":"1Gi","pods":"1"}`},
		{"init containers run one at a time", corev1.PodSpec{
			InitContainers: []corev1.Container{container("i1", list("cpu", "1")), container("i2", list("cpu", "1500m"))},
			Containers:     []corev1.Container{container("app", list("cpu", "100m"))},
		}, `{"cpu":"1500m","pods":"1"}`},
		{"sidecars add to the app and to later init containers", corev1.PodSpec{
			InitContainers: []corev1.Container{
				container("before", list("cpu", "1")),
				sidecar("proxy", list("cpu", "200m", "memory", "128Mi")),
				container("after", list("cpu", "2")),
			},
			Containers: []corev1.Container{container("app", list("cpu", "500m", "memory", "256Mi"))},
		}, `{"cpu":"2200m","memory":"384Mi","pods":"1"}`},
		{"sidecar total beats the app", corev1.PodSpec{
			InitContainers: []corev1.Container{sidecar("s1", list("cpu", "1")), sidecar("s2", list("cpu", "1"))},
			Containers:     []corev1.Container{container("app", list("cpu", "100m"))},
		}, `{"cpu":"2100m","pods":"1"}`},
		{"overhead is added", corev1.PodSpec{
			Containers: []corev1.Container{container("app", list("cpu", "1"))},
			Overhead:   list("cpu", "250m", "memory", "120Mi"),
		}, `{"cpu":"1250m","memory":"120Mi","pods":"1"}`},
		{"pod-level requests replace cpu and memory only", corev1.PodSpec{
			Resources:  &corev1.ResourceRequirements{Requests: list("cpu", "3", "memory", "2Gi", "nvidia.com/gpu", "7")},
			Containers: []corev1.Container{container("app", list("cpu", "1", "memory", "1Gi", "nvidia.com/gpu", "1"))},
			Overhead:   list("cpu", "100m"),
		}, `{"cpu":"3100m","memory":"2Gi","nvidia.com/gpu":"1","pods":"1"}`},
		{"a limit without a request is the request", corev1.PodSpec{Containers: []corev1.Container{
			{Name: "app", Resources: corev1.ResourceRequirements{Requests: list("cpu", "100m"), Limits: list("cpu", "2", "memory", "1Gi")}},
		}}, `{"cpu":"100m","memory":"1Gi","pods":"1"}`},
		{"extended resources", corev1.PodSpec{Containers: []corev1.Container{
			container("train", list("nvidia.com/gpu", "4", "aws.amazon.com/neuron", "1", "vpc.amazonaws.com/efa", "1", "example.com/dongle", "1")),
		}}, `{"aws.amazon.com/neuron":"1","example.com/dongle":"1","nvidia.com/gpu":"4","pods":"1","vpc.amazonaws.com/efa":"1"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: tc.spec}
			got, err := PodRequests(pod)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.String())
		})
	}
}

func TestPodRequestsRefusesNegativeAmounts(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{container("app", list("cpu", "-1"))}}}
	_, err := PodRequests(pod)
	assert.EqualError(t, err, "spec.containers[0] (app).resources.requests.cpu: negative quantity -1")
}

func TestPodRequestsDoesNotChangeThePod(t *testing.T) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		{Name: "app", Resources: corev1.ResourceRequirements{Requests: list("cpu", "1"), Limits: list("memory", "1Gi")}},
	}}}
	_, err := PodRequests(pod)
	require.NoError(t, err)
	assert.Len(t, pod.Spec.Containers[0].Resources.Requests, 1)
}

func BenchmarkFits(b *testing.B) {
	capacity := FromList(list("cpu", "4", "memory", "16Gi", "pods", "58", "ephemeral-storage", "17Gi"))
	pod := FromList(list("cpu", "500m", "memory", "1Gi", "pods", "1"))
	b.ReportAllocs()
	for b.Loop() {
		if !pod.Fits(capacity) {
			b.Fatal("expected fit")
		}
	}
}

func BenchmarkAdd(b *testing.B) {
	total := FromList(list("cpu", "4", "memory", "16Gi", "pods", "58"))
	pod := FromList(list("cpu", "500m", "memory", "1Gi", "pods", "1"))
	b.ReportAllocs()
	for b.Loop() {
		total = total.Add(pod)
	}
}

func BenchmarkPodRequests(b *testing.B) {
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{
		container("app", list("cpu", "500m", "memory", "1Gi")), container("log", list("cpu", "50m", "memory", "64Mi")),
	}}}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = PodRequests(pod)
	}
}

func TestRaiseIsMaxInPlace(t *testing.T) {
	a := FromList(list("cpu", "1", "memory", "4Gi", "example.com/foo", "1"))
	b := FromList(list("cpu", "2", "memory", "1Gi", "example.com/foo", "3", "example.com/bar", "1"))
	want := a.Max(b)
	a.Raise(&b)
	assert.Equal(t, want, a)
}
