package conformance

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// The specs of v1.15.0's reserved_fallback_test.go: one fake type of 4 CPUs
// and 4Gi, with the fake's spot and on-demand offerings and one reserved
// offering in test-zone-1 at 0.001 $/h, which upstream states either as
// available with units left, available but full (no unit left: v1.15.0
// decouples a reservation's health from its count) or unavailable. The
// catalog here states the same three.

// fallbackType is reserved-type with a reservation id of capacity units
// left, available or not.
func fallbackType(id string, available bool, capacity int) instancetypes.Catalog {
	base := fakeProviderType("reserved-type", apis.ArchitectureAmd64, corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("4Gi")})
	spec := specOf(base)
	spec.Offerings = append(spec.Offerings, instancetypes.Offering{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved,
		Price: 0.001, Available: available, ReservationID: id, ReservationCapacity: capacity})
	return mustCatalog(mustType(spec))
}

// reservedOnlyPool allows only reserved-type's reserved capacity.
func reservedOnlyPool(name string) *apis.NodePool {
	return nodePool(name, onlyRequirement(apis.LabelInstanceType, opIn, "reserved-type"),
		withRequirement(apis.LabelCapacityType, opIn, apis.CapacityTypeReserved))
}

// anyCapacityPool allows reserved-type in any capacity type.
func anyCapacityPool(name string) *apis.NodePool {
	return nodePool(name, onlyRequirement(apis.LabelInstanceType, opIn, "reserved-type"))
}

// solveIn solves with Karpenter's provisioning mode (strict: a pod that
// could hold a reservation waits for one) or its consolidation mode
// (fallback).
func solveIn(w *schedWorld, fallback bool, pods ...*corev1.Pod) scheduling.Result {
	w.in.Options.ReservedFallback = fallback
	return w.solve(pods...)
}

// expectWaitsForReservation checks the pod is left pending because the
// reservations it could hold are taken, the deferral Karpenter's
// ReservedOfferingError stands for, or (wait false) for another reason.
func expectWaitsForReservation(t *T, res scheduling.Result, p *corev1.Pod, wait bool) {
	t.Helper()
	expectNotScheduled(t, res, p)
	for _, u := range res.Unschedulable {
		if u.Pod == apis.PodKey(p) && strings.Contains(u.Reason, "reserved capacity exhausted") != wait {
			t.Fatalf("pod %s pending for %q; waiting for a reservation: want %v", u.Pod, u.Reason, wait)
		}
	}
}

// holdsNoReservation checks the claim names no reservation and may launch
// on-demand.
func holdsNoReservation(t *T, c scheduling.NodeClaim) {
	t.Helper()
	for _, r := range c.Requirements {
		if r.Key == apis.LabelCapacityReservationID && r.Operator == corev1.NodeSelectorOpIn {
			t.Fatalf("claim %s holds reservations %v", c.Name, r.Values)
		}
	}
	if c.CapacityType == apis.CapacityTypeReserved {
		t.Fatalf("claim %s launches reserved", c.Name)
	}
}

var _ = register("reserved-fallback",
	conformanceCase{Name: "fallback-full-reservation-no-claim", Run: func(t *T) {
		w := newWorldOf(fallbackType("r-full", true, 0), reservedOnlyPool("default"))
		p := unschedPod("p", "100m")
		res := solveIn(w, true, p)
		if len(res.NodeClaims) != 0 {
			t.Fatalf("%d NodeClaims, want none: %s", len(res.NodeClaims), describe(res))
		}
		expectWaitsForReservation(t, res, p, false)
	}},
	conformanceCase{Name: "fallback-reservation-with-room-reserved", Run: func(t *T) {
		w := newWorldOf(fallbackType("r-has-cap", true, 3), reservedOnlyPool("default"))
		p := unschedPod("p", "100m")
		reservedOn(t, w, claimOf(t, solveIn(w, true, p), p), "reserved-type", "r-has-cap")
	}},
	conformanceCase{Name: "unavailable-reservation-skipped", Run: func(t *T) {
		w := newWorldOf(fallbackType("r-unavail", false, 5), reservedOnlyPool("default"))
		p := unschedPod("p", "100m")
		res := solveIn(w, true, p)
		if len(res.NodeClaims) != 0 {
			t.Fatalf("%d NodeClaims, want none: %s", len(res.NodeClaims), describe(res))
		}
		expectNotScheduled(t, res, p)
	}},
	conformanceCase{Name: "strict-full-reservation-does-not-block", Run: func(t *T) {
		w := newWorldOf(fallbackType("r-full", true, 0), anyCapacityPool("default"))
		p := unschedPod("p", "100m")
		holdsNoReservation(t, claimOf(t, solveIn(w, false, p), p))
	}},
	conformanceCase{Name: "strict-reserved-only-full-defers", Run: func(t *T) {
		w := newWorldOf(fallbackType("r-full", true, 0), reservedOnlyPool("default"))
		p := unschedPod("p", "100m")
		res := solveIn(w, false, p)
		if len(res.NodeClaims) != 0 {
			t.Fatalf("%d NodeClaims, want none: %s", len(res.NodeClaims), describe(res))
		}
		expectWaitsForReservation(t, res, p, true)
	}},
	conformanceCase{Name: "strict-reservation-with-room-preferred", Run: func(t *T) {
		w := newWorldOf(fallbackType("r-has-cap", true, 1), anyCapacityPool("default"))
		p := unschedPod("p", "100m")
		reservedOn(t, w, claimOf(t, solveIn(w, false, p), p), "reserved-type", "r-has-cap")
	}},
	conformanceCase{Name: "fallback-full-reservation-falls-to-lighter-pool", Run: func(t *T) {
		reserved, od := reservedOnlyPool("reserved"), nodePool("on-demand", onlyRequirement(apis.LabelInstanceType, opIn, "reserved-type"),
			withRequirement(apis.LabelCapacityType, opIn, apis.CapacityTypeOnDemand))
		hundred, one := int32(100), int32(1)
		reserved.Spec.Weight, od.Spec.Weight = &hundred, &one
		w := newWorldOf(fallbackType("r-full", true, 0), reserved, od)
		p := unschedPod("p", "100m")
		c := claimOf(t, solveIn(w, true, p), p)
		if c.NodePool != "on-demand" || c.CapacityType != apis.CapacityTypeOnDemand {
			t.Fatalf("claim from %s launches %s, want on-demand from on-demand", c.NodePool, c.CapacityType)
		}
	}},
)
