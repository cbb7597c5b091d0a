package conformance

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/dra"
)

// Upstream's provisioning suite, DRA: consumable capacity (P) and
// partitionable devices (K). Their fake instance types declare template
// devices (a multi-allocatable GPU with a memory capacity; profiles drawing
// on a pool's shared counters); the cases declare the same devices for the
// suite's fake type through dra.Objects.Templates, which package dra then
// allocates claims on (its allocator, as Karpenter v1.15's).

// declare gives the world's type its declared device templates.
func (w *draWorld) declare(typeName string, tmpls ...dra.Template) *draWorld {
	if w.objs.Templates == nil {
		w.objs.Templates = map[string][]dra.Template{}
	}
	w.objs.Templates[typeName] = append(w.objs.Templates[typeName], tmpls...)
	return w
}

// capacityGPU is upstream's fake.CapacityGPUInstanceType's device: one
// multi-allocatable GPU with memory capacity total, under policy (nil:
// none).
func capacityGPU(typeName, total string, policy *resourcev1.CapacityRequestPolicy) dra.Template {
	d := dra.Device{Name: typeName + "-gpu-0", AllowMultipleAllocations: true,
		Capacity: map[string]resource.Quantity{"memory": resource.MustParse(total)}}
	if policy != nil {
		d.Policies = map[string]*resourcev1.CapacityRequestPolicy{"memory": policy}
	}
	return dra.Template{Driver: draGPUDriver, Pool: typeName + "-pool", Devices: []dra.Device{d}}
}

// partitionableGPU is upstream's fake.PartitionableGPUInstanceType: a pool
// with one counter set of budget, and profiles devices each drawing
// perProfile from it.
func partitionableGPU(typeName string, budget map[string]string, profiles int, perProfile map[string]string) []dra.Template {
	counters := dra.Template{Driver: draGPUDriver, Pool: typeName + "-pool", Counters: []resourcev1.CounterSet{{Name: "gpu-slices", Counters: counterMap(budget)}}}
	devices := dra.Template{Driver: draGPUDriver, Pool: typeName + "-pool"}
	for i := range profiles {
		devices.Devices = append(devices.Devices, dra.Device{Name: fmt.Sprintf("%s-profile-%d", typeName, i),
			ConsumesCounters: []resourcev1.DeviceCounterConsumption{{CounterSet: "gpu-slices", Counters: counterMap(perProfile)}}})
	}
	return []dra.Template{counters, devices}
}

func counterMap(m map[string]string) map[string]resourcev1.Counter {
	out := map[string]resourcev1.Counter{}
	for k, v := range m {
		out[k] = resourcev1.Counter{Value: resource.MustParse(v)}
	}
	return out
}

// capacityRequest asks one device of class with a share of its
// capacities.
func capacityRequest(name, class string, amounts map[string]string) resourcev1.DeviceRequest {
	r := exactRequest(name, class, 1)
	r.Exactly.Capacity = &resourcev1.CapacityRequirements{Requests: map[resourcev1.QualifiedName]resource.Quantity{}}
	for k, v := range amounts {
		r.Exactly.Capacity.Requests[resourcev1.QualifiedName(k)] = resource.MustParse(v)
	}
	return r
}

// capacityWorld is the P cases' cluster: the suite's fake type with one
// multi-allocatable GPU of 16Gi under policy, and the class of its driver.
func capacityWorld(policy *resourcev1.CapacityRequestPolicy) *draWorld {
	return newDRAWorld(draGPUType("gpu-it", 0)).with(draClass("gpu", draGPUDriver)).declare("gpu-it", capacityGPU("gpu-it", "16Gi", policy))
}

// capacityPods are pods each with its own claim for one GPU's share of
// memory (none: the request names no capacity).
func capacityPods(w *draWorld, prefix string, amounts ...string) []*corev1.Pod {
	var pods []*corev1.Pod
	for i, a := range amounts {
		name := fmt.Sprintf("%s-%d", prefix, i)
		req := exactRequest("req", "gpu", 1)
		if a != "" {
			req = capacityRequest("req", "gpu", map[string]string{"memory": a})
		}
		w.with(draClaim(name, req))
		pods = append(pods, draPodFor(name, "gpu", name))
	}
	return pods
}

// expectNodeClaims checks how many NodeClaims the pods take, every pod
// placed.
func expectNodeClaims(t *T, w *draWorld, n int, pods ...*corev1.Pod) {
	t.Helper()
	res := w.solve(t, pods...)
	if len(res.Unschedulable) > 0 || len(res.NodeClaims) != n {
		t.Fatalf("want every pod on %d NodeClaim(s): %s", n, describe(res))
	}
}

func pendingCase(name string, world func() *draWorld, req resourcev1.DeviceRequest) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		w := world().with(draClaim("gpu-claim", req))
		p := draPodFor("p", "gpu", "gpu-claim")
		expectNothingLaunched(t, w.solve(t, p), p)
	}}
}

func quantityPtr(s string) *resource.Quantity {
	q := resource.MustParse(s)
	return &q
}

var _ = register("dra",
	conformanceCase{Name: "capacity-share-new-node", Run: func(t *T) {
		w := capacityWorld(nil)
		expectNodeClaims(t, w, 1, capacityPods(w, "cap", "4Gi")...)
	}},
	conformanceCase{Name: "capacity-shares-pack-one-device", Run: func(t *T) {
		w := capacityWorld(nil)
		expectNodeClaims(t, w, 1, capacityPods(w, "cap", "4Gi", "4Gi", "4Gi")...)
	}},
	conformanceCase{Name: "capacity-exhausted-second-node", Run: func(t *T) {
		w := capacityWorld(nil)
		expectNodeClaims(t, w, 2, capacityPods(w, "cap", "4Gi", "4Gi", "4Gi", "8Gi")...)
	}},
	pendingCase("capacity-above-device-pending", func() *draWorld { return capacityWorld(nil) },
		capacityRequest("req", "gpu", map[string]string{"memory": "32Gi"})),
	pendingCase("capacity-dimension-missing-pending", func() *draWorld { return capacityWorld(nil) },
		capacityRequest("req", "gpu", map[string]string{"memory": "4Gi", "bandwidth": "10"})),
	pendingCase("capacity-invalid-value-pending", func() *draWorld {
		return capacityWorld(&resourcev1.CapacityRequestPolicy{Default: quantityPtr("4Gi"),
			ValidValues: []resource.Quantity{resource.MustParse("4Gi"), resource.MustParse("8Gi"), resource.MustParse("16Gi")}})
	}, capacityRequest("req", "gpu", map[string]string{"memory": "32Gi"})),
	conformanceCase{Name: "capacity-default-share-packs", Run: func(t *T) {
		w := capacityWorld(&resourcev1.CapacityRequestPolicy{Default: quantityPtr("4Gi")})
		expectNodeClaims(t, w, 1, capacityPods(w, "default", "", "", "")...)
	}},
	conformanceCase{Name: "partitions-within-budget-share-node", Run: func(t *T) {
		w := newDRAWorld(draGPUType("gpu-it", 0)).with(draClass("gpu", draGPUDriver)).
			declare("gpu-it", partitionableGPU("gpu-it", map[string]string{"memory": "80Gi"}, 2, map[string]string{"memory": "40Gi"})...)
		expectNodeClaims(t, w, 1, capacityPods(w, "claim", "", "")...)
	}},
	conformanceCase{Name: "partitions-budget-exhausted-second-node", Run: func(t *T) {
		w := newDRAWorld(draGPUType("gpu-it", 0)).with(draClass("gpu", draGPUDriver)).
			declare("gpu-it", partitionableGPU("gpu-it", map[string]string{"memory": "80Gi"}, 3, map[string]string{"memory": "40Gi"})...)
		expectNodeClaims(t, w, 2, capacityPods(w, "claim", "", "", "")...)
	}},
	conformanceCase{Name: "partitions-counters-independent", Run: func(t *T) {
		w := newDRAWorld(draGPUType("gpu-it", 0)).with(draClass("gpu", draGPUDriver)).
			declare("gpu-it", partitionableGPU("gpu-it", map[string]string{"memory": "80Gi", "compute": "100"}, 2,
				map[string]string{"memory": "40Gi", "compute": "50"})...)
		expectNodeClaims(t, w, 1, capacityPods(w, "claim", "", "")...)
	}},
	pendingCase("partition-above-budget-pending", func() *draWorld {
		return newDRAWorld(draGPUType("gpu-it", 0)).with(draClass("gpu", draGPUDriver)).
			declare("gpu-it", partitionableGPU("gpu-it", map[string]string{"memory": "40Gi"}, 1, map[string]string{"memory": "80Gi"})...)
	}, exactRequest("req", "gpu", 1)),
	pendingCase("partition-undefined-counter-set-pending", func() *draWorld {
		tmpls := partitionableGPU("gpu-it", map[string]string{"memory": "80Gi"}, 1, map[string]string{"memory": "40Gi"})
		tmpls[1].Devices[0].ConsumesCounters[0].CounterSet = "nonexistent-counter-set"
		return newDRAWorld(draGPUType("gpu-it", 0)).with(draClass("gpu", draGPUDriver)).declare("gpu-it", tmpls...)
	}, exactRequest("req", "gpu", 1)),
	conformanceCase{Name: "partitions-over-one-counter-apart", Run: func(t *T) {
		w := newDRAWorld(draGPUType("gpu-it", 0)).with(draClass("gpu", draGPUDriver)).
			declare("gpu-it", partitionableGPU("gpu-it", map[string]string{"compute": "100"}, 2, map[string]string{"compute": "60"})...)
		expectNodeClaims(t, w, 2, capacityPods(w, "claim", "", "")...)
	}},
)
