package dra

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// allocate is Translator.Allocate on a node without requirements.
func allocate(tr *Translator, state any, instanceType, pod, holder string, held map[string][]any) (any, bool) {
	next, _, ok := tr.Allocate(state, instanceType, pod, holder, held, requirements.Requirements{})
	return next, ok
}

// gpuSlice is a cluster-wide slice of the gpu driver.
func gpuSlice(pool string, devices ...resourcev1.Device) *resourcev1.ResourceSlice {
	all := true
	return &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: pool}, Spec: resourcev1.ResourceSliceSpec{
		Driver: "gpu.example.com", AllNodes: &all, Pool: resourcev1.ResourcePool{Name: pool, Generation: 1, ResourceSliceCount: 1},
		Devices: devices}}
}

// sharedDevice is a multi-allocatable device with memory.
func sharedDevice(name, memory string) resourcev1.Device {
	yes := true
	return resourcev1.Device{Name: name, AllowMultipleAllocations: &yes,
		Capacity: map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{"memory": {Value: resource.MustParse(memory)}}}
}

// shareOf is a claim allocated memory of the device, reserved by pods.
func shareOf(name, pool, device, memory string, pods ...string) *resourcev1.ResourceClaim {
	c := claimOf(name, withMemory(exact("r", 1), memory))
	c.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{
		Request: "r", Driver: "gpu.example.com", Pool: pool, Device: device,
		ConsumedCapacity: map[resourcev1.QualifiedName]resource.Quantity{"memory": resource.MustParse(memory)}}}}}
	for _, p := range pods {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: p})
	}
	return c
}

// pubWorld is a translator over the slices, the claims and the type "it"
// with the templates, in the state.
func pubWorld(t *testing.T, slices []*resourcev1.ResourceSlice, tmpls []Template, state State, claims ...*resourcev1.ResourceClaim) *Translator {
	t.Helper()
	tr, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{gpuClass()}, ResourceClaims: claims,
		ResourceSlices: slices, Templates: map[string][]Template{"it": tmpls}})
	if len(problems) > 0 {
		t.Fatal(problems)
	}
	tr.UseState(state)
	tr.Catalog(instancetypes.Catalog{{Name: "it"}})
	return tr
}

// A request in allocationMode All takes every device a new node reaches:
// the cluster-wide published one and the node's own template device.
func TestAllocatorTakesPublishedAndTemplateDevices(t *testing.T) {
	all := resourcev1.DeviceRequest{Name: "r", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeAll}}
	tmpl := Template{Driver: "gpu.example.com", Pool: "own", Devices: []Device{{Name: "g"}}}
	tr := pubWorld(t, []*resourcev1.ResourceSlice{gpuSlice("shared", resourcev1.Device{Name: "s"})}, []Template{tmpl}, State{}, claimOf("c", all))
	if _, err := tr.Pod(podClaiming("p", "c")); err != nil {
		t.Fatal(err)
	}
	state, ok := allocate(tr, nil, "it", "default/p", "claim-1", nil)
	if !ok {
		t.Fatal("All refused")
	}
	n := state.(*nodeDevices)
	if len(n.taken) != 2 || !n.taken[0] || !n.taken[1] || !n.of.published[0] || n.of.published[1] {
		t.Fatalf("taken %v of %+v, want the published device then the template one", n.taken, n.of.ids)
	}
	// Another NodeClaim holding the published device leaves All nothing
	// it can take whole; the holder itself, as another type, can.
	held := map[string][]any{"claim-1": {state}}
	if _, ok := allocate(tr, nil, "it", "default/p", "claim-2", held); ok {
		t.Error("the published device held by claim-1 was allocated to claim-2")
	}
	if _, ok := allocate(tr, nil, "it", "default/p", "claim-1", held); !ok {
		t.Error("claim-1 cannot allocate the device it holds as another instance type")
	}
}

// A multi-allocatable published device gives back the share of a claim
// whose pods all migrate, and keeps the shares of live pods.
func TestPublishedSharesOfMigratingPodsAreFree(t *testing.T) {
	slices := []*resourcev1.ResourceSlice{gpuSlice("shared", sharedDevice("s", "16Gi"))}
	claims := []*resourcev1.ResourceClaim{shareOf("live", "shared", "s", "4Gi", "live-pod"), shareOf("gone", "shared", "s", "10Gi", "gone-pod"),
		claimOf("new", withMemory(exact("r", 1), "10Gi"))}
	pods := []*corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "live-pod", Namespace: "default"}}, {ObjectMeta: metav1.ObjectMeta{Name: "gone-pod", Namespace: "default"}}}
	for _, tc := range []struct {
		name   string
		moving map[string]bool
		want   bool
	}{
		{"both live", nil, false},
		{"one migrating", map[string]bool{"default/gone-pod": true}, true},
		{"the live one migrating", map[string]bool{"default/live-pod": true}, false},
	} {
		tr := pubWorld(t, slices, nil, State{Pods: pods, Moving: tc.moving}, claims...)
		if _, err := tr.Pod(podClaiming("p", "new")); err != nil {
			t.Fatal(err)
		}
		if _, ok := allocate(tr, nil, "it", "default/p", "claim-1", nil); ok != tc.want {
			t.Errorf("%s: 10Gi allocated %v, want %v", tc.name, ok, tc.want)
		}
	}
}

// An initialized node offers its published devices and no template; an
// uninitialized one its type's templates and not its own node-owned
// slices (left out until it is initialized).
func TestExistingNodesReachTheirPublishedDevices(t *testing.T) {
	local := gpuSlice("node-pool", resourcev1.Device{Name: "a"}, resourcev1.Device{Name: "b"})
	node := "node"
	local.Spec.AllNodes, local.Spec.NodeName = nil, &node
	local.OwnerReferences = []metav1.OwnerReference{{Kind: "Node", Name: node}}
	tmpl := Template{Driver: "gpu.example.com", Pool: "own", Devices: []Device{{Name: "g"}}}
	two := claimOf("c", exact("r", 2))
	for _, tc := range []struct {
		initialized bool
		want        bool
	}{{true, true}, {false, false}} {
		tr := pubWorld(t, []*resourcev1.ResourceSlice{local}, []Template{tmpl}, State{Nodes: map[string]bool{node: tc.initialized}}, two)
		if _, err := tr.Pod(podClaiming("p", "c")); err != nil {
			t.Fatal(err)
		}
		start := tr.Node(node, "it", map[string]string{"kubernetes.io/hostname": node})
		if _, ok := allocate(tr, start, "it", "default/p", "node/"+node, nil); ok != tc.want {
			t.Errorf("initialized %v: two devices allocated %v, want %v", tc.initialized, ok, tc.want)
		}
	}
}

// A claim allocated in the cluster is held by its pod where the pod runs
// (its devices pinned there), and allocated anew where the pod moves.
func TestAllocatedClaimsHoldTheirDevices(t *testing.T) {
	local := gpuSlice("node-pool", resourcev1.Device{Name: "a"}, resourcev1.Device{Name: "b"})
	node := "node"
	local.Spec.AllNodes, local.Spec.NodeName = nil, &node
	held := claimOf("c1", exact("r", 1))
	held.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{
		Request: "r", Driver: "gpu.example.com", Pool: "node-pool", Device: "b"}}}}
	held.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: "p1"}}
	p1, p2, p3 := podClaiming("p1", "c1"), podClaiming("p2", "c2"), podClaiming("p3", "c3")
	p1.Spec.NodeName = node
	tr := pubWorld(t, []*resourcev1.ResourceSlice{local}, nil, State{Nodes: map[string]bool{node: true}, Pods: []*corev1.Pod{p1, p2, p3}},
		held, claimOf("c2", exact("r", 1)), claimOf("c3", exact("r", 1)))
	tr.Allocates(p1)
	for _, p := range []*corev1.Pod{p1, p2, p3} {
		if _, err := tr.Pod(p); err != nil {
			t.Fatal(err)
		}
	}
	state, ok := allocate(tr, tr.Node(node, "it", nil), "it", "default/p1", "node/"+node, nil)
	if !ok {
		t.Fatal("the running pod does not hold its device")
	}
	if n := state.(*nodeDevices); n.taken[0] || !n.taken[1] {
		t.Fatalf("the running pod holds %v, want b, the device its claim is allocated", n.taken)
	}
	if state, ok = allocate(tr, state, "it", "default/p2", "node/"+node, nil); !ok {
		t.Fatal("the device left is not allocated")
	}
	if _, ok = allocate(tr, state, "it", "default/p3", "node/"+node, nil); ok {
		t.Fatal("a third device allocated of two")
	}
	// Moved to a new node, which reaches no device: allocated anew, it
	// fails.
	if _, ok := allocate(tr, nil, "it", "default/p1", "claim-1", nil); ok {
		t.Error("the claim's node-local device followed its pod to a new node")
	}
}

// A device only the nodes of one zone reach is taken by a new NodeClaim
// that may launch there, which it then requires; not by one held to
// another zone, nor by an existing node of another zone.
func TestZonedDevicesNarrowTheNode(t *testing.T) {
	zoned := gpuSlice("zone-b", resourcev1.Device{Name: "z"})
	zoned.Spec.AllNodes = nil
	zoned.Spec.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"zone-b"}}}}}}
	all := resourcev1.DeviceRequest{Name: "r", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeAll}}
	tr := pubWorld(t, []*resourcev1.ResourceSlice{zoned}, nil, State{Nodes: map[string]bool{"node-a": true}}, claimOf("c", all))
	if _, err := tr.Pod(podClaiming("p", "c")); err != nil {
		t.Fatal(err)
	}
	_, topology, ok := tr.Allocate(nil, "it", "default/p", "claim-1", nil, requirements.Requirements{})
	if !ok || topology.Get("topology.kubernetes.io/zone").String() != requirements.FromLabels(map[string]string{"topology.kubernetes.io/zone": "zone-b"}).Get("topology.kubernetes.io/zone").String() {
		t.Fatalf("allocated %v with topology %v, want the zone-b device and zone-b required", ok, topology)
	}
	inA := requirements.FromLabels(map[string]string{"topology.kubernetes.io/zone": "zone-a"})
	if _, _, ok := tr.Allocate(nil, "it", "default/p", "claim-2", nil, inA); ok {
		t.Error("a NodeClaim held to zone-a took the zone-b device")
	}
	labels := map[string]string{"topology.kubernetes.io/zone": "zone-a"}
	if _, _, ok := tr.Allocate(tr.Node("node-a", "it", labels), "it", "default/p", "node/node-a", nil, inA); ok {
		t.Error("an existing node in zone-a took the zone-b device")
	}
}
