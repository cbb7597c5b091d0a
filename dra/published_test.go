package dra

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func clusterSlice(name, pool string, generation, count int64, devices ...string) *resourcev1.ResourceSlice {
	all := true
	s := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourcev1.ResourceSliceSpec{
		Driver: "x.example.com", AllNodes: &all, Pool: resourcev1.ResourcePool{Name: pool, Generation: generation, ResourceSliceCount: count}}}
	for _, d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: d})
	}
	return s
}

// given is what one pending pod claiming n devices of the driver is given
// of the slices.
func given(t *testing.T, n int64, slices ...*resourcev1.ResourceSlice) []string {
	t.Helper()
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "x"}, Spec: resourcev1.DeviceClassSpec{
		Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "x.example.com"`}}}}}
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"}, Spec: resourcev1.ResourceClaimSpec{
		Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "r", Exactly: &resourcev1.ExactDeviceRequest{
			DeviceClassName: "x", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: n}}}}}}
	tr, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{class}, ResourceClaims: []*resourcev1.ResourceClaim{claim}, ResourceSlices: slices})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	name := "c"
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{
		ResourceClaims: []corev1.PodResourceClaim{{Name: "x", ResourceClaimName: &name}}, Containers: []corev1.Container{{Name: "c"}}}}
	tr.UseState(State{Pods: []*corev1.Pod{p}})
	tr.Reserve([]*corev1.Pod{p})
	return tr.Allocated()["default/c"]
}

func TestPoolsCountTheirNewestCompleteValidGeneration(t *testing.T) {
	for _, tc := range []struct {
		name   string
		slices []*resourcev1.ResourceSlice
		want   []string
	}{
		{"one slice", []*resourcev1.ResourceSlice{clusterSlice("a", "p", 1, 1, "d0")}, []string{"x.example.com/p/d0"}},
		{"the newest generation replaces the older",
			[]*resourcev1.ResourceSlice{clusterSlice("a", "p", 1, 1, "old"), clusterSlice("b", "p", 2, 1, "new")}, []string{"x.example.com/p/new"}},
		{"an older generation is dropped whatever the order",
			[]*resourcev1.ResourceSlice{clusterSlice("b", "p", 2, 1, "new"), clusterSlice("a", "p", 1, 1, "old")}, []string{"x.example.com/p/new"}},
		{"an incomplete pool gives nothing", []*resourcev1.ResourceSlice{clusterSlice("a", "p", 1, 2, "d0")}, nil},
		{"a pool of two slices", []*resourcev1.ResourceSlice{clusterSlice("a", "p", 1, 2, "d0"), clusterSlice("b", "p", 1, 2, "d1")},
			[]string{"x.example.com/p/d0", "x.example.com/p/d1"}},
		{"a device named twice in a pool makes it invalid",
			[]*resourcev1.ResourceSlice{clusterSlice("a", "p", 1, 2, "d0"), clusterSlice("b", "p", 1, 2, "d0")}, nil},
	} {
		if got := given(t, 2, tc.slices...); !slices.Equal(got, tc.want) {
			t.Errorf("%s: given %v, want %v", tc.name, got, tc.want)
		}
	}
	per := clusterSlice("a", "p", 1, 1, "d0")
	per.Spec.AllNodes, per.Spec.PerDeviceNodeSelection = nil, new(bool)
	*per.Spec.PerDeviceNodeSelection = true
	if got := given(t, 1, per); got != nil {
		t.Errorf("a perDeviceNodeSelection slice gave %v; Karpenter never allocates from one", got)
	}
}
