package conformance

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/scheduling"
)

// Published multi-allocatable devices through the allocator: what
// Karpenter v1.15.0's provisioner seeds its allocator with of a shared
// device (provisioning/dra.go gatherAllocatedDevices and
// effectiveConsumedCapacity), seen as what a new claim can still take.

// sharedCapacitySlice is upstream's SharedCapacitySlice: one cluster-wide
// multi-allocatable device with the capacities given.
func sharedCapacitySlice(name, driver, device string, capacity map[string]string) *resourcev1.ResourceSlice {
	s := clusterWideSlice(name, driver, device)
	yes := true
	s.Spec.Devices[0].AllowMultipleAllocations = &yes
	s.Spec.Devices[0].Capacity = map[resourcev1.QualifiedName]resourcev1.DeviceCapacity{}
	for k, v := range capacity {
		s.Spec.Devices[0].Capacity[resourcev1.QualifiedName(k)] = resourcev1.DeviceCapacity{Value: resource.MustParse(v)}
	}
	return s
}

// allocatedShare is upstream's AllocatedSharedClaim: a claim allocated a
// share of the device, consuming the capacities given, reserved for the
// pods named.
func allocatedShare(name, pool, driver, device string, consumed map[string]string, consumers ...string) *resourcev1.ResourceClaim {
	c := draClaim(name, capacityRequest("req", "gpu", consumed))
	result := resourcev1.DeviceRequestAllocationResult{Request: "req", Driver: driver, Pool: pool, Device: device,
		ConsumedCapacity: map[resourcev1.QualifiedName]resource.Quantity{}}
	for k, v := range consumed {
		result.ConsumedCapacity[resourcev1.QualifiedName(k)] = resource.MustParse(v)
	}
	c.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{result}}}
	for _, p := range consumers {
		c.Status.ReservedFor = append(c.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{Resource: "pods", Name: p, UID: types.UID("uid-" + p)})
	}
	return c
}

// share is one claim's contribution to a shared device: its consumers and
// what it consumes.
type share struct {
	pods     []string
	consumed map[string]string
}

// sharedDeviceTakes reports whether a new claim asking ask of a shared
// device (512Mi of memory and 8 connections) is allocated, with the
// device's shares held by claims whose pods run on a node being deleted
// (those named in deleting) or on one that stays. The world is
// upstream's plain-it: the device is the only one a node reaches.
func sharedDeviceTakes(t *T, shares []share, deleting []string, ask map[string]string) bool {
	t.Helper()
	w := plainWorld().publish(sharedCapacitySlice("shared-gpu-pool", draGPUDriver, "shared-gpu-0",
		map[string]string{"memory": "512Mi", "connections": "8"}))
	var gone, live []*corev1.Pod
	seen := map[string]bool{}
	for i, s := range shares {
		w.with(allocatedShare(fmt.Sprintf("share-%d", i), "shared-gpu-pool", draGPUDriver, "shared-gpu-0", s.consumed, s.pods...))
		for _, p := range s.pods {
			if seen[p] {
				continue
			}
			seen[p] = true
			if slices.Contains(deleting, p) {
				gone = append(gone, unschedPod(p, ""))
			} else {
				live = append(live, unschedPod(p, ""))
			}
		}
	}
	if len(gone) > 0 {
		w.existing("node-deleting", "plain-it", gone...)
		w.deleting["node-deleting"] = true
	}
	if len(live) > 0 {
		w.existing("node-live", "plain-it", live...)
	}
	w.with(draClaim("new-claim", capacityRequest("req", "gpu", ask)))
	p := draPodFor("p", "gpu", "new-claim")
	_, res := w.plan(t, p)
	return !slices.ContainsFunc(res.Unschedulable, func(u scheduling.Unschedulable) bool { return u.Pod == "default/p" })
}

// expectFree checks that exactly free is left of the shared device: a
// claim asking it is allocated, one asking 1Mi of memory more is not.
func expectFree(t *T, shares []share, deleting []string, free map[string]string) {
	t.Helper()
	if !sharedDeviceTakes(t, shares, deleting, free) {
		t.Fatalf("a claim for %v, what should be left of the shared device, is not allocated", free)
	}
	more := maps.Clone(free)
	q := resource.MustParse(more["memory"])
	q.Add(resource.MustParse("1Mi"))
	more["memory"] = q.String()
	if sharedDeviceTakes(t, shares, deleting, more) {
		t.Fatalf("a claim for %v, more than should be left of the shared device, is allocated", more)
	}
}

func capacities(pairs ...string) map[string]string {
	out := map[string]string{}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[pairs[i]] = pairs[i+1]
	}
	return out
}

var _ = register("dra-slices",
	conformanceCase{Name: "shared-shares-kept-while-live", Run: func(t *T) {
		expectFree(t, []share{{[]string{"live-a"}, capacities("memory", "256Mi", "connections", "1")},
			{[]string{"live-b"}, capacities("memory", "128Mi", "connections", "3")}}, nil,
			capacities("memory", "128Mi", "connections", "4"))
	}},
	conformanceCase{Name: "shared-deleting-share-freed", Run: func(t *T) {
		expectFree(t, []share{{[]string{"live-a"}, capacities("memory", "256Mi", "connections", "1")},
			{[]string{"deleting-b"}, capacities("memory", "128Mi", "connections", "3")}}, []string{"deleting-b"},
			capacities("memory", "256Mi", "connections", "7"))
	}},
	conformanceCase{Name: "shared-capacity-of-deleting-only-freed", Run: func(t *T) {
		// connections was consumed by the deleting claim alone: all 8
		// are free again, and the live claim's memory stays.
		expectFree(t, []share{{[]string{"live-a"}, capacities("memory", "256Mi")},
			{[]string{"deleting-b"}, capacities("memory", "128Mi", "connections", "3")}}, []string{"deleting-b"},
			capacities("memory", "256Mi", "connections", "8"))
	}},
	conformanceCase{Name: "shared-all-deleting-free", Run: func(t *T) {
		expectFree(t, []share{{[]string{"deleting-a"}, capacities("memory", "256Mi")},
			{[]string{"deleting-b"}, capacities("memory", "128Mi")}}, []string{"deleting-a", "deleting-b"},
			capacities("memory", "512Mi", "connections", "8"))
	}},
	conformanceCase{Name: "shared-mixed-share-kept", Run: func(t *T) {
		expectFree(t, []share{{[]string{"deleting-a", "live-b"}, capacities("memory", "256Mi")}}, []string{"deleting-a"},
			capacities("memory", "256Mi", "connections", "8"))
	}},
	conformanceCase{Name: "shared-capacity-of-deleting-pod-reclaimed", Run: func(t *T) {
		// Upstream's P4: 16Gi shared; a live pod holds 4Gi, a pod of a
		// deleting node 10Gi; a new 10Gi claim fits only if that share is
		// reclaimed. plain-it has no device: the pod schedules only on the
		// shared one.
		run := func(deleting bool) (bool, string) {
			w := plainWorld().publish(sharedCapacitySlice("shared-gpu-pool", draGPUDriver, "shared-gpu-0", capacities("memory", "16Gi")))
			w.with(allocatedShare("live-claim", "shared-gpu-pool", draGPUDriver, "shared-gpu-0", capacities("memory", "4Gi"), "live-pod"),
				allocatedShare("deleting-claim", "shared-gpu-pool", draGPUDriver, "shared-gpu-0", capacities("memory", "10Gi"), "deleting-pod"),
				draClaim("new-claim", capacityRequest("req", "gpu", capacities("memory", "10Gi"))))
			w.existing("node-live", "plain-it", unschedPod("live-pod", ""))
			w.existing("node-deleting", "plain-it", unschedPod("deleting-pod", ""))
			w.deleting["node-deleting"] = deleting
			p := draPodFor("p", "gpu", "new-claim")
			_, res := w.plan(t, p)
			return !slices.ContainsFunc(res.Unschedulable, func(u scheduling.Unschedulable) bool { return u.Pod == "default/p" }), describe(res)
		}
		if ok, res := run(true); !ok {
			t.Fatalf("the deleting pod's 10Gi share was not reclaimed: %s", res)
		}
		if ok, res := run(false); ok {
			t.Fatalf("10Gi allocated of the 2Gi left while both shares are live: %s", res)
		}
	}},
)
