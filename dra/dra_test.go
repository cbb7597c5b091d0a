package dra

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/instancetypes"
)

func gpu(product string, memGi int64) Device {
	return Device{Driver: "gpu.nvidia.com", Name: "gpu-0", Attributes: map[string]any{"type": "gpu", "productName": product, "index": int64(0)},
		Capacity: map[string]resource.Quantity{"memory": *resource.NewQuantity(memGi<<30, resource.BinarySI)}}
}

func TestSelectorsEvaluateTheirForms(t *testing.T) {
	l40s, t4 := gpu("l40s", 45), gpu("t4", 16)
	for _, tc := range []struct {
		expr     string
		l40s, t4 bool
	}{
		{`device.driver == "gpu.nvidia.com"`, true, true},
		{`device.driver != 'gpu.nvidia.com'`, false, false},
		{`device.attributes["gpu.nvidia.com"].productName == "t4"`, false, true},
		{`device.attributes["gpu.nvidia.com"].index == 0 && device.attributes["gpu.nvidia.com"].type == "gpu"`, true, true},
		{`device.capacity["gpu.nvidia.com"].memory.compareTo(quantity("40Gi")) >= 0`, true, false},
		{`(device.driver == "gpu.nvidia.com") && true`, true, true},
		{`device.attributes["other.com"].productName == "t4"`, false, false},
	} {
		m, err := compileCEL(tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if m(l40s) != tc.l40s || m(t4) != tc.t4 {
			t.Errorf("%s: l40s %v t4 %v, want %v %v", tc.expr, m(l40s), m(t4), tc.l40s, tc.t4)
		}
	}
	if _, err := compileCEL(`device.attributes["gpu.nvidia.com"].productName.startsWith("a")`); err == nil || !strings.Contains(err.Error(), "not an expression karpsim evaluates") {
		t.Errorf("an unsupported expression: %v", err)
	}
}

func TestGPUInstanceTypesOfferOneDevicePerGPU(t *testing.T) {
	cat, err := instancetypes.NewAWS(instancetypes.EmbeddedFacts(), instancetypes.AWSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"g4dn.12xlarge": 4, "g6e.xlarge": 1, "m5.large": 0} {
		it, ok := cat.Get(name)
		if !ok {
			t.Fatalf("no %s", name)
		}
		if got := len(InstanceTypeDevices(it)); got != want {
			t.Errorf("%s: %d devices, want %d", name, got, want)
		}
	}
}

func objects() Objects {
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu.nvidia.com"},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "gpu.nvidia.com"`}}}}}
	spec := func() resourcev1.ResourceClaimSpec {
		return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.nvidia.com", Count: 2}}}}}
	}
	return Objects{DeviceClasses: []*resourcev1.DeviceClass{class},
		ResourceClaims:         []*resourcev1.ResourceClaim{{ObjectMeta: metav1.ObjectMeta{Name: "shared", Namespace: "ml"}, Spec: spec()}},
		ResourceClaimTemplates: []*resourcev1.ResourceClaimTemplate{{ObjectMeta: metav1.ObjectMeta{Name: "two", Namespace: "ml"}, Spec: resourcev1.ResourceClaimTemplateSpec{Spec: spec()}}}}
}

func claimPod(name string, claim corev1.PodResourceClaim) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ml"}, Spec: corev1.PodSpec{
		ResourceClaims: []corev1.PodResourceClaim{claim}, Containers: []corev1.Container{{Name: "c"}}}}
}

// TestPodsOfASharedClaimGoTogether: the first pod of a shared claim
// requests its devices; the next requires that pod's node and requests
// none; a template claim is each pod's own.
func TestPodsOfASharedClaimGoTogether(t *testing.T) {
	tr, problems := New(objects())
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	shared := "shared"
	first, err := tr.Pod(claimPod("a", corev1.PodResourceClaim{Name: "gpu", ResourceClaimName: &shared}))
	if err != nil {
		t.Fatal(err)
	}
	second, err := tr.Pod(claimPod("b", corev1.PodResourceClaim{Name: "gpu", ResourceClaimName: &shared}))
	if err != nil {
		t.Fatal(err)
	}
	sel := corev1.ResourceName(ResourcePrefix + "gpu.nvidia.com")
	if q := first.Spec.Containers[0].Resources.Requests[sel]; q.Value() != 2 || len(first.Spec.ResourceClaims) != 0 {
		t.Errorf("first pod requests %v, claims %v", first.Spec.Containers[0].Resources.Requests, first.Spec.ResourceClaims)
	}
	if len(second.Spec.Containers[0].Resources.Requests) != 0 || second.Spec.Affinity == nil || len(second.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) != 1 {
		t.Errorf("second pod: requests %v, affinity %v", second.Spec.Containers[0].Resources.Requests, second.Spec.Affinity)
	}
	term := second.Spec.Affinity.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution[0]
	for k, v := range term.LabelSelector.MatchLabels {
		if first.Labels[k] != v {
			t.Errorf("the second pod's affinity %s=%s does not select the first pod (labels %v)", k, v, first.Labels)
		}
	}
	two := "two"
	own, err := tr.Pod(claimPod("c", corev1.PodResourceClaim{Name: "gpu", ResourceClaimTemplateName: &two}))
	if err != nil {
		t.Fatal(err)
	}
	if q := own.Spec.Containers[0].Resources.Requests[ResourceDevices]; q.Value() != 2 || own.Spec.Affinity != nil {
		t.Errorf("template pod: requests %v, affinity %v", own.Spec.Containers[0].Resources.Requests, own.Spec.Affinity)
	}
}

func TestProblemsNameTheField(t *testing.T) {
	o := objects()
	o.ResourceClaimTemplates[0].Spec.Spec.Devices.Requests[0].Exactly.AllocationMode = resourcev1.DeviceAllocationModeAll
	o.ResourceClaims[0].Spec.Devices.Requests[0].Exactly.DeviceClassName = "missing"
	_, problems := New(o)
	var got []string
	for _, p := range problems {
		got = append(got, p.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{
		`ResourceClaimTemplate/ml/two: spec.spec.devices.requests[0].exactly.count: must not be set when allocationMode is All`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("problems do not say %q:\n%s", want, all)
		}
	}
}

// A template reference whose claim the claim controller generated reads
// that claim; one it found no claim needed for claims nothing; one with no
// status entry yet reads the template.
func TestTemplateReferencesFollowThePodsStatus(t *testing.T) {
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "gpu.nvidia.com"`}}}}}
	req := func(n int64) resourcev1.ResourceClaimSpec {
		return resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "r",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: n}}}}}
	}
	tmpl := &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "tmpl", Namespace: "default"},
		Spec: resourcev1.ResourceClaimTemplateSpec{Spec: req(1)}}
	generated := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "p-gpu-x", Namespace: "default"}, Spec: req(2)}
	tr, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{class}, ResourceClaims: []*resourcev1.ResourceClaim{generated},
		ResourceClaimTemplates: []*resourcev1.ResourceClaimTemplate{tmpl}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	name := "tmpl"
	mk := func(podName string, status ...corev1.PodResourceClaimStatus) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: podName, Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c"}},
				ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &name}}},
			Status: corev1.PodStatus{ResourceClaimStatuses: status}}
	}
	gen := "p-gpu-x"
	for _, tc := range []struct {
		pod  *corev1.Pod
		want int64
	}{
		{mk("none"), 1},
		{mk("skipped", corev1.PodResourceClaimStatus{Name: "gpu"}), 0},
		{mk("generated", corev1.PodResourceClaimStatus{Name: "gpu", ResourceClaimName: &gen}), 2},
	} {
		out, err := tr.Pod(tc.pod)
		if err != nil {
			t.Fatalf("%s: %v", tc.pod.Name, err)
		}
		got := out.Spec.Containers[0].Resources.Requests[ResourceDevices]
		if got.Value() != tc.want {
			t.Errorf("%s: %d devices requested, want %d", tc.pod.Name, got.Value(), tc.want)
		}
	}
}

// An allocated claim's node selector holds a pending pod to its nodes; a
// pod already on a node is not held there, so that a simulation moving it
// allocates the claim anew, as Karpenter does for the pods of candidates.
func TestAllocationHoldsOnlyPendingPods(t *testing.T) {
	class := &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}}
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "r",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", Count: 1}}}}},
		Status: resourcev1.ResourceClaimStatus{Allocation: &resourcev1.AllocationResult{NodeSelector: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1"}}}}}}}}}
	tr, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{class}, ResourceClaims: []*resourcev1.ResourceClaim{claim}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	name := "c"
	for _, node := range []string{"", "n1"} {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p" + node, Namespace: "default"},
			Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c"}},
				ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &name}}}}
		out, err := tr.Pod(p)
		if err != nil {
			t.Fatal(err)
		}
		held := out.Spec.Affinity != nil && out.Spec.Affinity.NodeAffinity != nil
		if held != (node == "") {
			t.Errorf("pod on node %q: held to the allocation's nodes %v", node, held)
		}
	}
}
