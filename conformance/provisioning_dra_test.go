package conformance

import (
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/dra"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Upstream's provisioning suite, DRA with IGNORE_DRA_REQUESTS=false. Its
// fake instance types publish GPU devices of a test driver through
// ResourceSlice templates; karpsim's stand-in for those templates is one
// device of the NVIDIA driver per GPU of the type (package dra), so the
// fake GPU types here are the suite's fake types labelled with an NVIDIA
// GPU count, and the suite's DeviceClass selects that driver's devices.
// Each solve applies package dra as snapshot.FromSet does with DRA on:
// the catalog offers the devices, existing nodes their type's devices, and
// pods' claims become device requests.

const draGPUDriver = "gpu.nvidia.com"

// draGPUType is upstream's fake.GPUInstanceType: the fake default type
// (4 CPUs, 4Gi, 5 pods) with count GPU devices.
func draGPUType(name string, count int, opts ...func(*instancetypes.Spec)) *instancetypes.InstanceType {
	spec := specOf(fakeProviderType(name, apis.ArchitectureAmd64, nil))
	spec.Name = name
	if count > 0 {
		spec.Labels[apis.LabelInstanceGPUManufacturer] = "nvidia"
		spec.Labels[apis.LabelInstanceGPUCount] = fmt.Sprint(count)
		spec.Labels[apis.LabelInstanceGPUName] = "t4"
		spec.Labels[apis.LabelInstanceGPUMemory] = "16384"
	}
	for _, o := range opts {
		o(&spec)
	}
	return mustType(spec)
}

// priceBump makes every offering of the type dearer by d.
func priceBump(d float64) func(*instancetypes.Spec) {
	return func(s *instancetypes.Spec) {
		for i := range s.Offerings {
			s.Offerings[i].Price += d
		}
	}
}

func draArch(arch string) func(*instancetypes.Spec) {
	return func(s *instancetypes.Spec) { s.Labels[apis.LabelArch] = arch }
}

// draClass is upstream's DeviceClassWithSelector: every device of driver.
func draClass(name, driver string) *resourcev1.DeviceClass {
	return &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourcev1.DeviceClassSpec{
		Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: fmt.Sprintf("device.driver == %q", driver)}}}}}
}

// exactRequest asks for count devices of class.
func exactRequest(name, class string, count int64) resourcev1.DeviceRequest {
	return resourcev1.DeviceRequest{Name: name, Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: class,
		AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}}
}

func draClaim(name string, reqs ...resourcev1.DeviceRequest) *resourcev1.ResourceClaim {
	return &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: reqs}}}
}

// draPodOf is upstream's draPodForClaims: a pending pod naming each claim
// in its spec and its container.
func draPodOf(name string, claims []corev1.PodResourceClaim, opts ...podOption) *corev1.Pod {
	p := unschedPod(name, "", opts...)
	p.Spec.ResourceClaims = claims
	for _, c := range claims {
		p.Spec.Containers[0].Resources.Claims = append(p.Spec.Containers[0].Resources.Claims, corev1.ResourceClaim{Name: c.Name})
	}
	return p
}

// draPodFor is upstream's draPod: one claim, by name.
func draPodFor(name, ref, claim string, opts ...podOption) *corev1.Pod {
	return draPodOf(name, []corev1.PodResourceClaim{{Name: ref, ResourceClaimName: &claim}}, opts...)
}

func templateRef(ref, template string) corev1.PodResourceClaim {
	return corev1.PodResourceClaim{Name: ref, ResourceClaimTemplateName: &template}
}

// draWorld is a DRA case's cluster: the suite's NodePool over catalog, the
// DRA objects, and existing nodes with their pods.
type draWorld struct {
	catalog instancetypes.Catalog
	objs    dra.Objects
	nodes   []*scheduling.Node
}

func newDRAWorld(types ...*instancetypes.InstanceType) *draWorld {
	return &draWorld{catalog: mustCatalog(types...)}
}

func (w *draWorld) with(objs ...any) *draWorld {
	for _, o := range objs {
		switch o := o.(type) {
		case *resourcev1.DeviceClass:
			w.objs.DeviceClasses = append(w.objs.DeviceClasses, o)
		case *resourcev1.ResourceClaim:
			w.objs.ResourceClaims = append(w.objs.ResourceClaims, o)
		case *resourcev1.ResourceClaimTemplate:
			w.objs.ResourceClaimTemplates = append(w.objs.ResourceClaimTemplates, o)
		default:
			panic(fmt.Sprintf("not a DRA object: %T", o))
		}
	}
	return w
}

// existing adds an initialized node of the suite's NodePool, of type
// typeName, running pods.
func (w *draWorld) existing(name, typeName string, pods ...*corev1.Pod) *draWorld {
	it, ok := w.catalog.Get(typeName)
	if !ok {
		panic("no instance type " + typeName)
	}
	labels := map[string]string{apis.LabelHostname: name, apis.LabelNodePool: "default", apis.LabelNodeInitialized: "true",
		apis.LabelTopologyZone: "test-zone-1", apis.LabelCapacityType: apis.CapacityTypeOnDemand}
	for k, v := range it.Labels() {
		labels[k] = v
	}
	n := &scheduling.Node{Name: name, NodePool: "default", Labels: labels, Capacity: it.Capacity.List(),
		Allocatable: it.Allocatable().List(), Initialized: true}
	for _, p := range pods {
		b := p.DeepCopy()
		b.Spec.NodeName = name
		b.Status.Phase = corev1.PodRunning
		n.Pods = append(n.Pods, b)
	}
	w.nodes = append(w.nodes, n)
	return w
}

// input is what snapshot.FromSet gives a solve with DRA on, or the error
// package dra refuses the objects with.
func (w *draWorld) input(pods ...*corev1.Pod) (scheduling.Input, error) {
	tr, problems := dra.New(w.objs)
	if len(problems) > 0 {
		return scheduling.Input{}, fmt.Errorf("dra refuses the objects: %v", problems)
	}
	in := scheduling.Input{NodePools: []scheduling.Pool{{NodePool: schedPool(), InstanceTypes: tr.Catalog(w.catalog)}},
		Options: scheduling.Options{DRA: true}}
	if tr.Allocating() {
		in.Options.Devices = tr
	}
	for _, n := range w.nodes {
		it, _ := w.catalog.Get(n.Labels[apis.LabelInstanceType])
		c := *n
		c.Capacity, c.Allocatable = tr.NodeResources(it, n.Capacity, n.Allocatable)
		for _, p := range n.Pods {
			tr.Allocates(p)
		}
		c.Pods = nil
		for _, p := range n.Pods {
			out, err := tr.Pod(p)
			if err != nil {
				return scheduling.Input{}, err
			}
			c.Pods = append(c.Pods, out)
		}
		in.Nodes = append(in.Nodes, &c)
	}
	for _, p := range pods {
		out, err := tr.Pod(p)
		var deferred dra.Deferred
		if errors.As(err, &deferred) {
			// A pod whose claim or class does not exist yet stays pending,
			// as package snapshot hands it to the solve.
			out, err = snapshot.DeferredPod(p, deferred, true), nil
		}
		if err != nil {
			return scheduling.Input{}, err
		}
		in.Pods = append(in.Pods, out)
	}
	return in, nil
}

func (w *draWorld) solve(t *T, pods ...*corev1.Pod) scheduling.Result {
	t.Helper()
	in, err := w.input(pods...)
	if err != nil {
		t.Fatalf("%v", err)
	}
	return scheduling.Solve(in)
}

// expectNothingLaunched checks that the pods are unschedulable and nothing is
// launched.
func expectNothingLaunched(t *T, res scheduling.Result, pods ...*corev1.Pod) {
	t.Helper()
	expectNotScheduled(t, res, pods...)
	if len(res.NodeClaims) != 0 {
		t.Fatalf("want no NodeClaim: %s", describe(res))
	}
}

// expectOneClaimFor checks that the pods share one new NodeClaim, the only one.
func expectOneClaimFor(t *T, res scheduling.Result, pods ...*corev1.Pod) scheduling.NodeClaim {
	t.Helper()
	if len(res.NodeClaims) != 1 {
		t.Fatalf("want one NodeClaim: %s", describe(res))
	}
	for _, p := range pods {
		if !slices.Contains(res.NodeClaims[0].Pods, apis.PodKey(p)) {
			t.Fatalf("pod %s is not on the NodeClaim: %s", apis.PodKey(p), describe(res))
		}
	}
	return res.NodeClaims[0]
}

func gpuClaimWorld(gpus int, claims ...string) *draWorld {
	w := newDRAWorld(draGPUType("gpu-it", gpus)).with(draClass("gpu", draGPUDriver))
	for _, c := range claims {
		w.with(draClaim(c, exactRequest("req", "gpu", 1)))
	}
	return w
}

// The deliberate difference of a claim or class that is not given: the
// objects are refused with an error naming the pod (or claim) and field.

var _ = register("dra",
	conformanceCase{Name: "single-claim-new-node", Run: func(t *T) {
		p := draPodFor("p", "gpu", "gpu-claim")
		res := gpuClaimWorld(2, "gpu-claim").solve(t, p)
		if c := expectOneClaimFor(t, res, p); c.InstanceType != "gpu-it" {
			t.Fatalf("launched %s, want gpu-it", c.InstanceType)
		}
	}},
	conformanceCase{Name: "only-device-types", Run: func(t *T) {
		// no-gpu-it is the same shape without devices, and cheaper.
		w := newDRAWorld(draGPUType("gpu-it", 1, priceBump(1)), draGPUType("no-gpu-it", 0)).
			with(draClass("gpu", draGPUDriver), draClaim("gpu-claim", exactRequest("req", "gpu", 1)))
		p := draPodFor("p", "gpu", "gpu-claim")
		c := expectOneClaimFor(t, w.solve(t, p), p)
		if c.InstanceType != "gpu-it" || slices.Contains(c.InstanceTypeOptions, "no-gpu-it") {
			t.Fatalf("launched %s from %v, want gpu-it only", c.InstanceType, c.InstanceTypeOptions)
		}
	}},
	conformanceCase{Name: "plain-pod-unaffected", Run: func(t *T) {
		p := unschedPod("p", "")
		c := expectOneClaimFor(t, gpuClaimWorld(1).solve(t, p), p)
		if c.InstanceType != "gpu-it" {
			t.Fatalf("launched %s", c.InstanceType)
		}
	}},
	conformanceCase{Name: "template-claim", Run: func(t *T) {
		w := gpuClaimWorld(1).with(&resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "gpu-template", Namespace: "default"},
			Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{exactRequest("req", "gpu", 1)}}}}})
		p := draPodOf("p", []corev1.PodResourceClaim{templateRef("gpu", "gpu-template")})
		expectOneClaimFor(t, w.solve(t, p), p)
	}},
	conformanceCase{Name: "distinct-devices-share-node", Run: func(t *T) {
		a, b := draPodFor("a", "gpu", "claim-a"), draPodFor("b", "gpu", "claim-b")
		expectOneClaimFor(t, gpuClaimWorld(2, "claim-a", "claim-b").solve(t, a, b), a, b)
	}},
	conformanceCase{Name: "devices-exhausted-second-node", Run: func(t *T) {
		a, b := draPodFor("a", "gpu", "claim-a"), draPodFor("b", "gpu", "claim-b")
		res := gpuClaimWorld(1, "claim-a", "claim-b").solve(t, a, b)
		expectScheduled(t, res, a, b)
		if len(res.NodeClaims) != 2 || claimOf(t, res, a).Name == claimOf(t, res, b).Name {
			t.Fatalf("want two NodeClaims, one pod each: %s", describe(res))
		}
	}},
	conformanceCase{Name: "all-mode-takes-every-device",
		Run: func(t *T) {
			all := resourcev1.DeviceRequest{Name: "req", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu",
				AllocationMode: resourcev1.DeviceAllocationModeAll}}
			w := newDRAWorld(draGPUType("gpu-it", 3)).with(draClass("gpu", draGPUDriver), draClaim("gpu-claim", all))
			p := draPodFor("p", "gpu", "gpu-claim")
			expectOneClaimFor(t, w.solve(t, p), p)
			// The claim holds all 3 devices (upstream counts them in its
			// allocation): with p running, no device is left for another.
			expectDevicesTaken(t, w.existing("node-p", "gpu-it", p))
		}},
	conformanceCase{Name: "match-attribute-across-requests", Run: func(t *T) {
		// The type's two GPUs share their product name, as upstream's
		// share a PCIe root; karpsim's GPUs of one node share every
		// attribute but their index.
		c := draClaim("gpu-claim", exactRequest("req-a", "gpu", 1), exactRequest("req-b", "gpu", 1))
		attr := resourcev1.FullyQualifiedName(draGPUDriver + "/productName")
		c.Spec.Devices.Constraints = []resourcev1.DeviceConstraint{{MatchAttribute: &attr}}
		w := newDRAWorld(draGPUType("gpu-it", 2)).with(draClass("gpu", draGPUDriver), c)
		p := draPodFor("p", "gpu", "gpu-claim")
		expectOneClaimFor(t, w.solve(t, p), p)
	}},
	firstAvailableCase("first-available-falls-back", 2),
	firstAvailableCase("first-available-preferred", 4),
	conformanceCase{Name: "no-double-allocation-across-runs", Run: func(t *T) {
		w := gpuClaimWorld(1, "claim-a", "claim-b")
		a := draPodFor("a", "gpu", "claim-a")
		res := w.solve(t, a)
		expectOneClaimFor(t, res, a)
		// Run 2: a's node is up with its one device taken by a.
		w.existing("node-a", "gpu-it", a)
		b := draPodFor("b", "gpu", "claim-b")
		res = w.solve(t, b)
		if boundTo(res, b) != "" {
			t.Fatalf("b took the device a holds: %s", describe(res))
		}
		expectOneClaimFor(t, res, b)
	}},
	conformanceCase{Name: "allocated-claim-reused-across-runs", Run: func(t *T) {
		w := gpuClaimWorld(2, "shared-claim")
		a := draPodFor("a", "gpu", "shared-claim")
		expectOneClaimFor(t, w.solve(t, a), a)
		w.existing("node-a", "gpu-it", a)
		b := draPodFor("b", "gpu", "shared-claim")
		res := w.solve(t, b)
		if boundTo(res, b) != "node-a" || len(res.NodeClaims) != 0 {
			t.Fatalf("want b on node-a with the claim a allocated there: %s", describe(res))
		}
	}},
	conformanceCase{Name: "late-claim-scheduled-later", Run: func(t *T) {
		w := gpuClaimWorld(1)
		p := draPodFor("p", "gpu", "late-claim")
		if in, err := w.input(p); err != nil {
			t.Fatalf("run 1: want the pod left pending, got %v", err)
		} else {
			expectNothingLaunched(t, scheduling.Solve(in), p)
		}
		w.with(draClaim("late-claim", exactRequest("req", "gpu", 1)))
		expectOneClaimFor(t, w.solve(t, p), p)
	}},
	conformanceCase{Name: "ignored-by-default", Run: func(t *T) {
		// IGNORE_DRA_REQUESTS=true: no translation, the solve refuses the pod.
		p := draPodFor("p", "gpu", "gpu-claim")
		w := newWorldOf(mustCatalog(draGPUType("gpu-it", 1)), schedPool())
		res := w.solve(p)
		expectNothingLaunched(t, res, p)
	}},
	conformanceCase{Name: "missing-claim-deferred", Run: func(t *T) {
		p := draPodFor("p", "gpu", "missing-claim")
		in, err := gpuClaimWorld(1).input(p)
		if err != nil {
			t.Fatalf("want the pod left pending, got %v", err)
		}
		expectNothingLaunched(t, scheduling.Solve(in), p)
	}},
	conformanceCase{Name: "no-type-offers-device", Run: func(t *T) {
		w := newDRAWorld(draGPUType("no-gpu-it", 0)).with(draClass("gpu", draGPUDriver), draClaim("gpu-claim", exactRequest("req", "gpu", 1)))
		p := draPodFor("p", "gpu", "gpu-claim")
		expectNothingLaunched(t, w.solve(t, p), p)
	}},
	conformanceCase{Name: "missing-device-class", Run: func(t *T) {
		w := newDRAWorld(draGPUType("gpu-it", 1)).with(draClaim("gpu-claim", exactRequest("req", "gpu", 1)))
		p := draPodFor("p", "gpu", "gpu-claim")
		in, err := w.input(p)
		if err != nil {
			t.Fatalf("want the pod left pending, got %v", err)
		}
		expectNothingLaunched(t, scheduling.Solve(in), p)
	}},
	conformanceCase{Name: "template-claim-not-needed", Run: func(t *T) {
		// No template is given: the status says no claim was needed.
		p := draPodOf("p", []corev1.PodResourceClaim{templateRef("gpu", "gpu-template")})
		p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu"}}
		expectOneClaimFor(t, gpuClaimWorld(1).solve(t, p), p)
	}},
	conformanceCase{Name: "device-pruning-leaves-no-type", Run: func(t *T) {
		w := newDRAWorld(draGPUType("arm-gpu-it", 1, draArch(apis.ArchitectureArm64)), draGPUType("amd-no-gpu-it", 0)).
			with(draClass("gpu", draGPUDriver), draClaim("gpu-claim", exactRequest("req", "gpu", 1)))
		p := draPodFor("p", "gpu", "gpu-claim", nodeRequirements(corev1.NodeSelectorRequirement{Key: apis.LabelArch, Operator: corev1.NodeSelectorOpIn, Values: []string{apis.ArchitectureAmd64}}))
		expectNothingLaunched(t, w.solve(t, p), p)
	}},
	conformanceCase{Name: "mixed-batch", Run: func(t *T) {
		d, plain := draPodFor("d", "gpu", "gpu-claim"), unschedPod("plain", "")
		res := gpuClaimWorld(1, "gpu-claim").solve(t, d, plain)
		expectScheduled(t, res, d, plain)
		if len(res.NodeClaims) == 0 {
			t.Fatalf("nothing launched: %s", describe(res))
		}
	}},
	conformanceCase{Name: "existing-node-device-used", Run: func(t *T) {
		w := gpuClaimWorld(1, "gpu-claim").existing("node", "gpu-it")
		p := draPodFor("p", "gpu", "gpu-claim")
		res := w.solve(t, p)
		if boundTo(res, p) != "node" || len(res.NodeClaims) != 0 {
			t.Fatalf("want p on the existing node's device, nothing launched: %s", describe(res))
		}
	}},
	conformanceCase{Name: "shared-claim-one-node", Run: func(t *T) {
		a, b := draPodFor("a", "gpu", "shared-claim"), draPodFor("b", "gpu", "shared-claim")
		expectOneClaimFor(t, gpuClaimWorld(2, "shared-claim").solve(t, a, b), a, b)
	}},
)

// firstAvailableCase is upstream's prioritized-alternatives spec: prefer 4
// devices, else 2, on a type with gpus.
func firstAvailableCase(name string, gpus int) conformanceCase {
	return conformanceCase{Name: name,
		Run: func(t *T) {
			sub := func(n string, count int64) resourcev1.DeviceSubRequest {
				return resourcev1.DeviceSubRequest{Name: n, DeviceClassName: "gpu", AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: count}
			}
			req := resourcev1.DeviceRequest{Name: "req", FirstAvailable: []resourcev1.DeviceSubRequest{sub("prefer-4", 4), sub("fallback-2", 2)}}
			w := newDRAWorld(draGPUType("gpu-it", gpus)).with(draClass("gpu", draGPUDriver), draClaim("gpu-claim", req))
			p := draPodFor("p", "gpu", "gpu-claim")
			expectOneClaimFor(t, w.solve(t, p), p)
			// The alternative taken holds every device of the type
			// (upstream counts gpus devices in its allocation): with p
			// running, none is left for another claim.
			expectDevicesTaken(t, w.existing("node-p", "gpu-it", p))
		}}
}

// expectDevicesTaken checks that a pod claiming one device of the class
// cannot join the world's existing node: its pods hold every device.
func expectDevicesTaken(t *T, w *draWorld) {
	t.Helper()
	w.with(draClaim("probe-claim", exactRequest("req", "gpu", 1)))
	probe := draPodFor("probe", "gpu", "probe-claim")
	res := w.solve(t, probe)
	if boundTo(res, probe) != "" || len(res.NodeClaims) != 1 {
		t.Fatalf("want the probe on a new NodeClaim, the node's devices all taken: %s", describe(res))
	}
}
