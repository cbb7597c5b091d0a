package conformance

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/dra"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Upstream's DRA specs with devices published in the cluster
// (ResourceSlices): node-local slices of existing nodes, zoned and
// cluster-wide ones, and claims already allocated. Each case writes its
// cluster as objects (the NodePool and its catalog, nodes, pods and the DRA
// objects) and reads them back as `karpsim plan --dra` does: through the
// door by construction. Upstream's test driver publishes the slices; its
// DeviceClass selects the driver's devices, as draClass does here.

// draNICDriver is upstream's second test driver; GPUs are published by
// draGPUDriver, the driver of karpsim's stand-in for instance types'
// devices, so that one class selects both as upstream's does.
const draNICDriver = "nic.example.com"

// sliceWorld is a draWorld with published slices, nodes being deleted and
// pods given that the case does not place.
type sliceWorld struct {
	*draWorld
	slices   []*resourcev1.ResourceSlice
	deleting map[string]bool
	others   []*corev1.Pod
}

func newSliceWorld(w *draWorld) *sliceWorld {
	return &sliceWorld{draWorld: w, deleting: map[string]bool{}}
}

func (w *sliceWorld) publish(s ...*resourcev1.ResourceSlice) *sliceWorld {
	w.slices = append(w.slices, s...)
	return w
}

// plan writes the world and the pending pods as objects, reads them back as
// `karpsim plan --dra` does and solves the snapshot.
func (w *sliceWorld) plan(t *T, pods ...*corev1.Pod) (*snapshot.Snapshot, scheduling.Result) {
	t.Helper()
	f := &doorFile{}
	pool := []scheduling.Pool{{NodePool: schedPool(), InstanceTypes: w.catalog}}
	f.pools(pool)
	byName := poolsByName(pool, func(p scheduling.Pool) *apis.NodePool { return p.NodePool })
	for _, n := range w.nodes {
		obj, err := f.node(n, byName)
		if err != nil {
			t.Fatalf("node %s: %v", n.Name, err)
		}
		if w.deleting[n.Name] {
			obj.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)}
			obj.Finalizers = []string{"karpenter.sh/termination"}
		}
		f.add("v1", "Node", obj)
		f.launchedBy(n, byName)
	}
	for _, c := range w.objs.DeviceClasses {
		f.add("resource.k8s.io/v1", "DeviceClass", c)
	}
	for _, c := range w.objs.ResourceClaims {
		f.add("resource.k8s.io/v1", "ResourceClaim", c)
	}
	for _, c := range w.objs.ResourceClaimTemplates {
		f.add("resource.k8s.io/v1", "ResourceClaimTemplate", c)
	}
	for _, s := range w.slices {
		f.add("resource.k8s.io/v1", "ResourceSlice", s)
	}
	for _, p := range slices.Concat(w.others, pods) {
		f.pod(p)
	}
	set, opts, err := f.load()
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	opts.DRA = true
	snap, err := snapshot.FromSet(set, opts)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return snap, solveRead(snap.Input(scheduling.Options{}))
}

// slice is upstream's test.ResourceSlice: generation 1 of a one-slice pool
// named after it, devices without attributes.
func slice(name, driver string, devices ...string) *resourcev1.ResourceSlice {
	s := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourcev1.ResourceSliceSpec{
		Driver: driver, Pool: resourcev1.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}}}
	for _, d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: d})
	}
	return s
}

// clusterWideSlice is upstream's ClusterWideSlice: every node reaches its
// devices.
func clusterWideSlice(name, driver string, devices ...string) *resourcev1.ResourceSlice {
	s := slice(name, driver, devices...)
	all := true
	s.Spec.AllNodes = &all
	return s
}

// zonedSlice is upstream's ZonedSlice: the nodes of one zone reach its
// devices.
func zonedSlice(name, driver, zone string, devices ...string) *resourcev1.ResourceSlice {
	s := slice(name, driver, devices...)
	s.Spec.NodeSelector = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
		{Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{zone}}}}}}
	return s
}

// nodeLocalSlice is upstream's NodeLocalSlice: owned by the node and pinned
// to it, in the pool <driver>/<node>.
func nodeLocalSlice(node, driver string, devices ...string) *resourcev1.ResourceSlice {
	s := slice(node+"-"+driver, driver, devices...)
	s.Spec.Pool.Name = driver + "/" + node
	s.Spec.NodeName = &node
	s.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: types.UID("uid-" + node)}}
	return s
}

// allocatedClaim is upstream's AllocatedClusterWideClaim: allocated one
// device of pool, reserved for the pods named.
func allocatedClaim(name, pool, driver, device string, consumers ...string) *resourcev1.ResourceClaim {
	c := draClaim(name, exactRequest("req", "gpu", 1))
	c.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{
		Results: []resourcev1.DeviceRequestAllocationResult{{Request: "req", Driver: driver, Pool: pool, Device: device}}}}
	for _, p := range consumers {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: p, UID: types.UID("uid-" + p)})
	}
	return c
}

// plainWorld is upstream's plain-it (no template devices) with the gpu
// class selecting the test driver's devices.
func plainWorld() *sliceWorld {
	return newSliceWorld(newDRAWorld(draGPUType("plain-it", 0)).with(draClass("gpu", draGPUDriver)))
}

// claimZones is the values of the claim's zone requirement.
func claimZones(c scheduling.NodeClaim) []string {
	for _, r := range c.Requirements {
		if r.Key == apis.LabelTopologyZone {
			return r.Values
		}
	}
	return nil
}

func expectAllocated(t *T, snap *snapshot.Snapshot, claim string, want ...string) {
	t.Helper()
	if got := snap.DeviceAllocations[claim]; !slices.Equal(got, want) {
		t.Fatalf("claim %s was given %v, want %v (all: %v)", claim, got, want, snap.DeviceAllocations)
	}
}

// deletingConsumers is upstream's allConsumersDeleting as the cluster shows
// it: one cluster-wide device held by a claim reserved for the pods
// consumers; the pods in deleting run on a node being deleted, the others
// on a node that stays. A new claim then gets the device when it is free.
func deletingConsumers(t *T, deleting, consumers []string) bool {
	t.Helper()
	w := plainWorld().publish(clusterWideSlice("shared-gpu-pool", draGPUDriver, "shared-gpu-0"))
	w.with(allocatedClaim("held-claim", "shared-gpu-pool", draGPUDriver, "shared-gpu-0", consumers...),
		draClaim("new-claim", exactRequest("req", "gpu", 1)))
	var gone, live []*corev1.Pod
	for _, name := range []string{"a", "b", "c"} {
		if slices.Contains(deleting, name) {
			gone = append(gone, unschedPod(name, ""))
		} else if slices.Contains(consumers, name) {
			live = append(live, unschedPod(name, ""))
		}
	}
	if len(gone) > 0 {
		w.existing("node-deleting", "plain-it", gone...)
		w.deleting["node-deleting"] = true
	}
	if len(live) > 0 {
		w.existing("node-live", "plain-it", live...)
	}
	p := draPodFor("p", "gpu", "new-claim")
	snap, res := w.plan(t, p)
	free := len(snap.DeviceAllocations["default/new-claim"]) == 1
	if free != (boundTo(res, p) != "" || slices.ContainsFunc(res.NodeClaims, func(c scheduling.NodeClaim) bool { return slices.Contains(c.Pods, apis.PodKey(p)) })) {
		t.Fatalf("the device is given (%v) but the pod's placement disagrees: %s", free, describe(res))
	}
	return free
}

// ownedSliceGives reports whether a cluster-wide slice with the given
// owners gives its device, with the nodes named initialized in the state.
func ownedSliceGives(t *T, owners []metav1.OwnerReference, nodes ...string) bool {
	t.Helper()
	s := clusterWideSlice("owned-pool", draGPUDriver, "owned-gpu-0")
	s.OwnerReferences = owners
	w := plainWorld().publish(s)
	w.with(draClaim("gpu-claim", exactRequest("req", "gpu", 1)))
	for _, n := range nodes {
		w.existing(n, "plain-it")
	}
	p := draPodFor("p", "gpu", "gpu-claim")
	snap, res := w.plan(t, p)
	given := len(snap.DeviceAllocations["default/gpu-claim"]) == 1
	if scheduled := len(res.Unschedulable) == 0; scheduled != given {
		t.Fatalf("the device is given (%v) but the pod is scheduled (%v): %s", given, scheduled, describe(res))
	}
	return given
}

var _ = register("dra-slices",
	conformanceCase{Name: "zoned-claims-conflict", Run: func(t *T) {
		w := newSliceWorld(newDRAWorld(draGPUType("plain-it", 0)).with(draClass("gpu", draGPUDriver), draClass("nic", draNICDriver),
			draClaim("gpu-claim", exactRequest("req", "gpu", 1)), draClaim("nic-claim", exactRequest("req", "nic", 1))))
		w.publish(zonedSlice("zoned-gpu-pool", draGPUDriver, "test-zone-1", "zoned-gpu-0"),
			zonedSlice("zoned-nic-pool", draNICDriver, "test-zone-2", "zoned-nic-0"))
		p := draPodOf("p", []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: strPtr("gpu-claim")}, {Name: "nic", ResourceClaimName: strPtr("nic-claim")}})
		_, res := w.plan(t, p)
		expectNothingLaunched(t, res, p)
	}},
	conformanceCase{Name: "zoned-device-narrows-zone", Run: func(t *T) {
		// gpu-it's own device would do too, but the published one comes
		// first.
		w := newSliceWorld(gpuClaimWorld(1, "gpu-claim"))
		w.publish(zonedSlice("zoned-gpu-pool", draGPUDriver, "test-zone-2", "zoned-gpu-0"))
		p := draPodFor("p", "gpu", "gpu-claim")
		snap, res := w.plan(t, p)
		c := expectOneClaimFor(t, res, p)
		if z := claimZones(c); !slices.Equal(z, []string{"test-zone-2"}) || c.Zone != "test-zone-2" {
			t.Fatalf("want the NodeClaim in test-zone-2 only, got %v (launched in %s)", z, c.Zone)
		}
		expectAllocated(t, snap, "default/gpu-claim", draGPUDriver+"/zoned-gpu-pool/zoned-gpu-0")
	}},
	conformanceCase{Name: "zoned-devices-common-zone", Run: func(t *T) {
		w := newSliceWorld(newDRAWorld(draGPUType("plain-it", 0)).with(draClass("gpu", draGPUDriver), draClass("nic", draNICDriver),
			draClaim("gpu-claim", exactRequest("req", "gpu", 1)), draClaim("nic-claim", exactRequest("req", "nic", 1))))
		w.publish(zonedSlice("zoned-gpu-pool", draGPUDriver, "test-zone-2", "zoned-gpu-0"),
			zonedSlice("zoned-nic-pool", draNICDriver, "test-zone-2", "zoned-nic-0"))
		p := draPodOf("p", []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: strPtr("gpu-claim")}, {Name: "nic", ResourceClaimName: strPtr("nic-claim")}})
		_, res := w.plan(t, p)
		c := expectOneClaimFor(t, res, p)
		if z := claimZones(c); !slices.Equal(z, []string{"test-zone-2"}) {
			t.Fatalf("want the NodeClaim in test-zone-2 only, got %v", z)
		}
	}},
	conformanceCase{Name: "cluster-wide-shared-claim-once", Run: func(t *T) {
		w := plainWorld().publish(clusterWideSlice("shared-gpu-pool", draGPUDriver, "shared-gpu-0", "shared-gpu-1"))
		w.with(draClaim("shared-claim", exactRequest("req", "gpu", 1)))
		a, b := draPodFor("a", "gpu", "shared-claim"), draPodFor("b", "gpu", "shared-claim")
		snap, res := w.plan(t, a, b)
		expectScheduled(t, res, a, b)
		if got := snap.DeviceAllocations["default/shared-claim"]; len(got) != 1 {
			t.Fatalf("want the shared claim given one device, got %v", got)
		}
	}},
	conformanceCase{Name: "cluster-wide-held-device-kept", Run: func(t *T) {
		w := plainWorld().publish(clusterWideSlice("shared-gpu-pool", draGPUDriver, "shared-gpu-0", "shared-gpu-1"))
		w.with(allocatedClaim("held-claim", "shared-gpu-pool", draGPUDriver, "shared-gpu-0", "live-pod"),
			draClaim("new-claim", exactRequest("req", "gpu", 1)))
		w.others = append(w.others, pod("live-pod", ""))
		p := draPodFor("p", "gpu", "new-claim")
		snap, res := w.plan(t, p)
		expectScheduled(t, res, p)
		expectAllocated(t, snap, "default/new-claim", draGPUDriver+"/shared-gpu-pool/shared-gpu-1")
	}},
	conformanceCase{Name: "cluster-wide-device-of-deleting-node-reclaimed", Run: func(t *T) {
		w := plainWorld().publish(clusterWideSlice("shared-gpu-pool", draGPUDriver, "shared-gpu-0"))
		w.existing("node-deleting", "plain-it", unschedPod("consumer-pod", ""))
		w.deleting["node-deleting"] = true
		w.with(allocatedClaim("held-claim", "shared-gpu-pool", draGPUDriver, "shared-gpu-0", "consumer-pod"),
			draClaim("new-claim", exactRequest("req", "gpu", 1)))
		p := draPodFor("p", "gpu", "new-claim")
		snap, res := w.plan(t, p)
		expectScheduled(t, res, p)
		expectAllocated(t, snap, "default/new-claim", draGPUDriver+"/shared-gpu-pool/shared-gpu-0")
	}},
	conformanceCase{Name: "uninitialized-node-slices-left-out", Run: func(t *T) {
		w := newSliceWorld(gpuClaimWorld(1, "gpu-claim").existing("node", "gpu-it"))
		specFixtureNode(w.nodes[0])
		w.publish(nodeLocalSlice("node", draGPUDriver, "incluster-gpu-0"))
		p := draPodFor("p", "gpu", "gpu-claim")
		snap, res := w.plan(t, p)
		expectScheduled(t, res, p)
		// Karpenter counts the node initialized: it offers its published
		// device, not its type's too, and its not-ready taint keeps the
		// pod off it.
		if n := nodeDevices(snap, "node"); n != 1 {
			t.Fatalf("the node offers %d devices, want its one published device", n)
		}
		if boundTo(res, p) == "node" {
			t.Fatalf("want the pod on a new NodeClaim's template device, not the tainted node: %s", describe(res))
		}
	}},
	conformanceCase{Name: "slices-of-unknown-node-left-out", Run: func(t *T) {
		// orphan-node is in no object karpsim reads: not in the state.
		w := newSliceWorld(gpuClaimWorld(1, "gpu-claim")).publish(nodeLocalSlice("orphan-node", draGPUDriver, "orphan-gpu-0"))
		p := draPodFor("p", "gpu", "gpu-claim")
		_, res := w.plan(t, p)
		if c := expectOneClaimFor(t, res, p); c.InstanceType != "gpu-it" {
			t.Fatalf("want the pod on a new gpu-it's own device: %s", describe(res))
		}
	}},
	conformanceCase{Name: "uninitialized-node-type-devices", Run: func(t *T) {
		w := newSliceWorld(gpuClaimWorld(1, "gpu-claim").existing("node", "gpu-it"))
		specFixtureNode(w.nodes[0])
		w.publish(nodeLocalSlice("node", draGPUDriver, "incluster-gpu-0"))
		p := draPodFor("p", "gpu", "gpu-claim")
		_, res := w.plan(t, p)
		expectScheduled(t, res, p)
		if boundTo(res, p) == "node" {
			t.Fatalf("the pod took the node's published device: %s", describe(res))
		}
	}},
	conformanceCase{Name: "initialized-node-devices-not-double-counted", Run: func(t *T) {
		w := newSliceWorld(gpuClaimWorld(1, "claim-a", "claim-b").existing("node", "gpu-it"))
		specFixtureNode(w.nodes[0])
		w.publish(nodeLocalSlice("node", draGPUDriver, "incluster-gpu-0"))
		a := draPodFor("a", "gpu", "claim-a")
		_, res := w.plan(t, a)
		expectScheduled(t, res, a)
		if boundTo(res, a) == "node" {
			t.Fatalf("run 1 took the node's published device: %s", describe(res))
		}
		// Run 2: the node has the initialized label too; a runs on its
		// new node with that node's template device.
		w.nodes[0].Labels[apis.LabelNodeInitialized] = "true"
		w.objs.ResourceClaims[0] = allocatedClaim("claim-a", "gpu-it-template", draGPUDriver, "gpu-0", "a")
		b := draPodFor("b", "gpu", "claim-b")
		snap, res := w.plan(t, b)
		expectScheduled(t, res, b)
		if n := nodeDevices(snap, "node"); n != 1 {
			t.Fatalf("the initialized node offers %d devices, want its one published device", n)
		}
	}},
	conformanceCase{Name: "initialized-node-published-devices-only", Run: func(t *T) {
		// gpu-2-it has two devices of its own; the node publishes one.
		w := newSliceWorld(newDRAWorld(draGPUType("gpu-2-it", 2)).with(draClass("gpu", draGPUDriver),
			draClaim("claim-a", exactRequest("req", "gpu", 1)), draClaim("claim-b", exactRequest("req", "gpu", 1))).existing("node", "gpu-2-it"))
		w.publish(nodeLocalSlice("node", draGPUDriver, "incluster-gpu-0"))
		a, b := draPodFor("a", "gpu", "claim-a"), draPodFor("b", "gpu", "claim-b")
		_, res := w.plan(t, a, b)
		expectScheduled(t, res, a, b)
		on := 0
		for _, p := range []*corev1.Pod{a, b} {
			if boundTo(res, p) == "node" {
				on++
			}
		}
		if on != 1 || len(res.NodeClaims) != 1 {
			t.Fatalf("want one pod on the node's one published device and one new NodeClaim: %s", describe(res))
		}
	}},
	conformanceCase{Name: "slice-owned-by-node-names-it", Run: func(t *T) {
		owner := []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "node-a", UID: "uid-node-a"}}
		if !ownedSliceGives(t, owner, "node-a") {
			t.Fatalf("a slice owned by node-a, which is in the state, gave nothing")
		}
		if ownedSliceGives(t, owner) {
			t.Fatalf("a slice owned by node-a, which is not in the state, gave its device")
		}
	}},
	conformanceCase{Name: "slice-without-owner-no-node", Run: func(t *T) {
		if !ownedSliceGives(t, nil) {
			t.Fatalf("a slice without owner references gave nothing")
		}
	}},
	conformanceCase{Name: "slice-owned-by-other-kind-no-node", Run: func(t *T) {
		if !ownedSliceGives(t, []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "pod-a", UID: "uid-pod-a"}}) {
			t.Fatalf("a slice owned by a Pod gave nothing")
		}
	}},
	conformanceCase{Name: "slice-node-owner-among-others", Run: func(t *T) {
		owners := []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "pod-a", UID: "uid-pod-a"},
			{APIVersion: "v1", Kind: "Node", Name: "node-b", UID: "uid-node-b"}}
		if ownedSliceGives(t, owners) {
			t.Fatalf("a slice owned by node-b, which is not in the state, gave its device")
		}
		if !ownedSliceGives(t, owners, "node-b") {
			t.Fatalf("a slice owned by node-b, which is in the state, gave nothing")
		}
	}},
	conformanceCase{Name: "consumers-all-deleting-free", Run: func(t *T) {
		if !deletingConsumers(t, []string{"a", "b"}, []string{"a", "b"}) {
			t.Fatalf("the device held only by pods of a deleting node stayed taken")
		}
	}},
	conformanceCase{Name: "consumers-subset-of-deleting-free", Run: func(t *T) {
		if !deletingConsumers(t, []string{"a", "b"}, []string{"a"}) {
			t.Fatalf("the device held only by a pod of a deleting node stayed taken")
		}
	}},
	conformanceCase{Name: "consumer-not-deleting-taken", Run: func(t *T) {
		if deletingConsumers(t, []string{"a", "b"}, []string{"a", "c"}) {
			t.Fatalf("the device held by a live pod too was given again")
		}
	}},
	conformanceCase{Name: "no-consumer-deleting-taken", Run: func(t *T) {
		if deletingConsumers(t, []string{"a", "b"}, []string{"c"}) {
			t.Fatalf("the device held by a live pod was given again")
		}
	}},
)

// specFixtureNode makes a node upstream's existingNode fixture as
// Karpenter's cluster state holds it: a Node with the NodePool's label and
// no NodeClaim, which Karpenter does not manage and so counts as
// initialized whatever its labels (state/statenode.go:449-456), carrying
// the node.kubernetes.io/not-ready:NoSchedule taint the API server's
// TaintNodesByCondition admission gives every new Node (envtest runs no
// node lifecycle controller to lift it). Written without a NodeClaim,
// karpsim reads it the same way.
func specFixtureNode(n *scheduling.Node) {
	n.Initialized = true
	n.Taints = append(n.Taints, corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
}

// nodeDevices is how many devices the snapshot's node offers.
func nodeDevices(snap *snapshot.Snapshot, name string) int64 {
	for _, n := range snap.Nodes {
		if n.Name == name {
			q := n.Allocatable[dra.ResourceDevices]
			return q.Value()
		}
	}
	return -1
}
