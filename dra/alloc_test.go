package dra

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/instancetypes"
)

func gpuClass() *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}}}}
}

func claimOf(name string, reqs ...resourcev1.DeviceRequest) *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: reqs}}}
}

func exact(name string, count int64) resourcev1.DeviceRequest {
	return resourcev1.DeviceRequest{Name: name, Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", Count: count}}
}

func withMemory(r resourcev1.DeviceRequest, q string) resourcev1.DeviceRequest {
	r.Exactly.Capacity = &resourcev1.CapacityRequirements{Requests: map[resourcev1.QualifiedName]resource.Quantity{"memory": resource.MustParse(q)}}
	return r
}

func sub(name string, count int64) resourcev1.DeviceSubRequest {
	return resourcev1.DeviceSubRequest{Name: name, DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}
}

func podClaiming(name, claim string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PodSpec{
		ResourceClaims: []corev1.PodResourceClaim{{Name: "c", ResourceClaimName: &claim}}, Containers: []corev1.Container{{Name: "c"}}}}
}

// A capacity request is accepted and makes the translator allocate: the
// pod requests no device resources, and its claim is allocated instead.
func TestCapacityRequestsAreAllocated(t *testing.T) {
	tr, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{gpuClass()},
		ResourceClaims: []*resourcev1.ResourceClaim{claimOf("c", withMemory(exact("r", 1), "4Gi"))}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	if !tr.Allocating() {
		t.Fatal("a capacity request does not switch to the allocator")
	}
	out, err := tr.Pod(podClaiming("p", "c"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(out.Spec.Containers[0].Resources.Requests); n != 0 {
		t.Errorf("the pod requests %v", out.Spec.Containers[0].Resources.Requests)
	}
	if !tr.Claims("default/p") || tr.Claims("default/other") {
		t.Error("Claims does not name the pod that allocates")
	}
}

// Claims without any of what needs the allocator keep the translation
// into extended resources.
func TestPlainClaimsKeepTheTranslation(t *testing.T) {
	tr, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{gpuClass()}, ResourceClaims: []*resourcev1.ResourceClaim{claimOf("c", exact("r", 2))}})
	if len(problems) > 0 || tr.Allocating() {
		t.Fatalf("problems %v, allocating %v", problems, tr.Allocating())
	}
}

// Requests are checked as the API server checks resource.k8s.io/v1 claims,
// by field; what it accepts is accepted.
func TestAllocatorRequestsAreValidated(t *testing.T) {
	all := func(count int64) resourcev1.DeviceRequest {
		return resourcev1.DeviceRequest{Name: "r", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeAll, Count: count}}
	}
	alts := func(n int) resourcev1.DeviceRequest {
		r := resourcev1.DeviceRequest{Name: "r"}
		for i := range n {
			r.FirstAvailable = append(r.FirstAvailable, sub(fmt.Sprintf("s%d", i), 1))
		}
		return r
	}
	many := func(n int) []resourcev1.DeviceRequest {
		var out []resourcev1.DeviceRequest
		for i := range n {
			out = append(out, withMemory(exact(fmt.Sprintf("r%d", i), 1), "1Gi"))
		}
		return out
	}
	both := alts(1)
	both.Exactly = withMemory(exact("r", 1), "1Gi").Exactly
	badMode := withMemory(exact("r", 1), "1Gi")
	badMode.Exactly.AllocationMode = "Some"
	noClass := alts(2)
	noClass.FirstAvailable[1].DeviceClassName = "missing"
	for _, tc := range []struct {
		name string
		reqs []resourcev1.DeviceRequest
		path string // "" when valid
	}{
		{"all", []resourcev1.DeviceRequest{all(0)}, ""},
		{"all with a count", []resourcev1.DeviceRequest{all(2)}, "spec.devices.requests[0].exactly.count"},
		{"negative count", []resourcev1.DeviceRequest{withMemory(exact("r", -1), "1Gi")}, "spec.devices.requests[0].exactly.count"},
		{"count defaulted", []resourcev1.DeviceRequest{withMemory(exact("r", 0), "1Gi")}, ""},
		{"unknown mode", []resourcev1.DeviceRequest{badMode}, "spec.devices.requests[0].exactly.allocationMode"},
		{"8 alternatives", []resourcev1.DeviceRequest{alts(8)}, ""},
		{"9 alternatives", []resourcev1.DeviceRequest{alts(9)}, "spec.devices.requests[0].firstAvailable"},
		{"both kinds", []resourcev1.DeviceRequest{both}, "spec.devices.requests[0]"},
		{"neither kind", []resourcev1.DeviceRequest{{Name: "r"}, all(0)}, "spec.devices.requests[0]"},
		// A missing DeviceClass defers the pods that claim it (Deferred)
		// rather than refusing the objects.
		{"missing class", []resourcev1.DeviceRequest{noClass}, ""},
		{"32 requests", many(32), ""},
		{"33 requests", many(33), "spec.devices.requests"},
		{"share past 2^62", []resourcev1.DeviceRequest{withMemory(exact("r", 1), "5E")}, "spec.devices.requests[0].exactly.capacity.requests[memory]"},
		{"negative share", []resourcev1.DeviceRequest{withMemory(exact("r", 1), "-1Gi")}, "spec.devices.requests[0].exactly.capacity.requests[memory]"},
	} {
		_, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{gpuClass()}, ResourceClaims: []*resourcev1.ResourceClaim{claimOf("c", tc.reqs...)}})
		switch {
		case tc.path == "" && len(problems) > 0:
			t.Errorf("%s: refused: %v", tc.name, problems)
		case tc.path != "" && (len(problems) != 1 || problems[0].Path != tc.path || problems[0].Object != "ResourceClaim/default/c"):
			t.Errorf("%s: problems %v, want one at %s", tc.name, problems, tc.path)
		}
	}
}

func q(s string) *resource.Quantity {
	v := resource.MustParse(s)
	return &v
}

// A request's share of a multi-allocatable device follows the capacity's
// request policy, as the API documents it.
func TestCapacitySharesFollowThePolicy(t *testing.T) {
	rng := &resourcev1.CapacityRequestPolicy{Default: q("0"), ValidRange: &resourcev1.CapacityRequestPolicyRange{Min: q("1Mi"), Max: q("16Gi"), Step: q("1Mi")}}
	values := &resourcev1.CapacityRequestPolicy{Default: q("4Gi"), ValidValues: []resource.Quantity{*q("4Gi"), *q("8Gi"), *q("16Gi")}}
	dev := func(p *resourcev1.CapacityRequestPolicy) Device {
		d := Device{AllowMultipleAllocations: true, Capacity: map[string]resource.Quantity{"memory": *q("16Gi")}}
		if p != nil {
			d.Policies = map[string]*resourcev1.CapacityRequestPolicy{"memory": p}
		}
		return d
	}
	for _, tc := range []struct {
		name   string
		policy *resourcev1.CapacityRequestPolicy
		asked  string // "" asks none
		want   int64  // -1: refused
	}{
		{"no policy, none asked: all of it", nil, "", 16 << 30},
		{"no policy: as asked", nil, "3Gi", 3 << 30},
		{"range: up to the next step", rng, "1536Ki", 2 << 20},
		{"range: at least the minimum", rng, "1", 1 << 20},
		{"range: above the maximum", rng, "17Gi", -1},
		{"range: the default when none asked", rng, "", 0},
		{"values: the next valid one", values, "5Gi", 8 << 30},
		{"values: above every one", values, "32Gi", -1},
		{"values: the default", values, "", 4 << 30},
	} {
		var asked map[string]resource.Quantity
		if tc.asked != "" {
			asked = map[string]resource.Quantity{"memory": resource.MustParse(tc.asked)}
		}
		got, ok := consumedCapacity(dev(tc.policy), asked)
		switch {
		case tc.want < 0 && ok:
			t.Errorf("%s: took %d", tc.name, got["memory"])
		case tc.want >= 0 && (!ok || got["memory"] != tc.want):
			t.Errorf("%s: took %d (%v), want %d", tc.name, got["memory"], ok, tc.want)
		}
	}
	if _, ok := consumedCapacity(dev(nil), map[string]resource.Quantity{"bandwidth": *q("1")}); ok {
		t.Error("a capacity the device lacks was taken")
	}
}

// allocWorld is a translator over declared templates of one type "it".
func allocWorld(t *testing.T, tmpls []Template, claims ...*resourcev1.ResourceClaim) *Translator {
	t.Helper()
	tr, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{gpuClass()}, ResourceClaims: claims,
		Templates: map[string][]Template{"it": tmpls}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	tr.Catalog(instancetypes.Catalog{{Name: "it"}})
	return tr
}

// allocateAll allocates the pods' claims one after the other on one node,
// and says how many were placed.
func allocateAll(t *testing.T, tr *Translator, pods ...*corev1.Pod) int {
	t.Helper()
	var state any
	placed := 0
	for _, p := range pods {
		if _, err := tr.Pod(p); err != nil {
			t.Fatal(err)
		}
		if next, ok := allocate(tr, state, "it", "default/"+p.Name, "", nil); ok {
			state, placed = next, placed+1
		}
	}
	return placed
}

func TestPartitionsDrawOnSharedCounters(t *testing.T) {
	counters := Template{Driver: "gpu.example.com", Pool: "p", Counters: []resourcev1.CounterSet{{Name: "s",
		Counters: map[string]resourcev1.Counter{"memory": {Value: *q("80Gi")}}}}}
	profile := func(name, mem string) Device {
		return Device{Name: name, ConsumesCounters: []resourcev1.DeviceCounterConsumption{{CounterSet: "s",
			Counters: map[string]resourcev1.Counter{"memory": {Value: *q(mem)}}}}}
	}
	devices := Template{Driver: "gpu.example.com", Pool: "p", Devices: []Device{profile("big", "60Gi"), profile("a", "20Gi"), profile("b", "20Gi")}}
	tr := allocWorld(t, []Template{counters, devices}, claimOf("c1", exact("r", 1)), claimOf("c2", exact("r", 1)), claimOf("c3", exact("r", 1)))
	// The first takes the big profile (60Gi of 80Gi), the second a small
	// one (20Gi): the third finds a device free but no counter left.
	if n := allocateAll(t, tr, podClaiming("p1", "c1"), podClaiming("p2", "c2"), podClaiming("p3", "c3")); n != 2 {
		t.Errorf("%d placed, want 2", n)
	}
}

func TestAllAndFirstAvailable(t *testing.T) {
	gpus := Template{Driver: "gpu.example.com", Pool: "p"}
	for i := range 3 {
		gpus.Devices = append(gpus.Devices, Device{Name: fmt.Sprintf("gpu-%d", i)})
	}
	all := resourcev1.DeviceRequest{Name: "r", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeAll}}
	fa := resourcev1.DeviceRequest{Name: "r", FirstAvailable: []resourcev1.DeviceSubRequest{sub("two", 2), sub("one", 1)}}
	tr := allocWorld(t, []Template{gpus}, claimOf("all", all), claimOf("fa1", fa), claimOf("fa2", fa), claimOf("one", exact("r", 1)))
	// All takes every device: nothing is left.
	if n := allocateAll(t, tr, podClaiming("a", "all"), podClaiming("o", "one")); n != 1 {
		t.Errorf("all: %d placed, want 1", n)
	}
	// The first takes two, the second falls back to the last one.
	if n := allocateAll(t, tr, podClaiming("f1", "fa1"), podClaiming("f2", "fa2"), podClaiming("o", "one")); n != 2 {
		t.Errorf("firstAvailable: %d placed, want 2", n)
	}
	// All needs every matching device free.
	if n := allocateAll(t, tr, podClaiming("o", "one"), podClaiming("a", "all")); n != 1 {
		t.Errorf("all after one: %d placed, want 1", n)
	}
}

// A MatchAttribute constraint picks devices sharing the attribute, among
// devices that differ.
func TestMatchAttributeAmongUnlikeDevices(t *testing.T) {
	root := func(name, r string) Device { return Device{Name: name, Attributes: map[string]any{"pcieRoot": r}} }
	tmpl := Template{Driver: "gpu.example.com", Pool: "p", Devices: []Device{root("g0", "a"), root("g1", "b"), root("g2", "b")}}
	c := claimOf("c", exact("x", 1), exact("y", 1))
	attr := resourcev1.FullyQualifiedName("gpu.example.com/pcieRoot")
	c.Spec.Devices.Constraints = []resourcev1.DeviceConstraint{{MatchAttribute: &attr}}
	tr := allocWorld(t, []Template{tmpl}, c)
	if _, err := tr.Pod(podClaiming("p", "c")); err != nil {
		t.Fatal(err)
	}
	state, ok := allocate(tr, nil, "it", "default/p", "", nil)
	if !ok {
		t.Fatal("no two devices sharing pcieRoot found")
	}
	n := state.(*nodeDevices)
	if n.taken[0] || !n.taken[1] || !n.taken[2] {
		t.Errorf("took %v, want g1 and g2", n.taken)
	}
	// A second pod finds one device left, with no partner.
	if _, ok := allocate(tr, state, "it", "default/p", "", nil); ok {
		t.Error("allocated the claim twice on three devices")
	}
}

// Allocate never changes the state it is given.
func TestAllocateLeavesItsStateAlone(t *testing.T) {
	tmpl := Template{Driver: "gpu.example.com", Pool: "p", Devices: []Device{{Name: "g", AllowMultipleAllocations: true,
		Capacity: map[string]resource.Quantity{"memory": *q("16Gi")}}}}
	tr := allocWorld(t, []Template{tmpl}, claimOf("c", withMemory(exact("r", 1), "10Gi")))
	if _, err := tr.Pod(podClaiming("p", "c")); err != nil {
		t.Fatal(err)
	}
	first, ok := allocate(tr, nil, "it", "default/p", "", nil)
	if !ok {
		t.Fatal("10Gi of 16Gi refused")
	}
	if _, ok := allocate(tr, first, "it", "default/p", "", nil); ok {
		t.Fatal("20Gi of 16Gi allocated")
	}
	if got := first.(*nodeDevices).used[0]["memory"]; got != 10<<30 {
		t.Errorf("the state given changed: %d used", got)
	}
	if _, ok := allocate(tr, first, "unknown-type", "default/p", "", nil); ok {
		t.Error("a type without devices served the claim")
	}
}
