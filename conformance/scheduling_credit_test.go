package conformance

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// v1.15.0's reservation credit (CreditReservationCapacity): the units a
// terminate-first drift candidate frees, given back to its reservation
// before the simulation; karpsim's scheduling.Options.ReservationCredit.

// withCredit is the world solving with the credit, in Karpenter's
// provisioning mode (strict), as the terminate-first pass solves.
func withCredit(w *schedWorld, credit map[string]int) *schedWorld {
	w.in.Options.ReservationCredit = credit
	w.in.Options.ReservedFallback = false
	return w
}

// scheduledOf are the pods the result places.
func scheduledOf(res scheduling.Result, pods ...*corev1.Pod) []*corev1.Pod {
	return slices.DeleteFunc(slices.Clone(pods), func(p *corev1.Pod) bool {
		return slices.ContainsFunc(res.Unschedulable, func(u scheduling.Unschedulable) bool { return u.Pod == apis.PodKey(p) })
	})
}

// apartPods are n pods that each need a node of their own.
func apartPods(n int) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		p := unschedPod(string(rune('a'+i)), "100m")
		p.Labels = map[string]string{"app": "spread"}
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "spread"}}, TopologyKey: apis.LabelHostname}}}}
		out[i] = p
	}
	return out
}

var _ = register("reservations",
	conformanceCase{Name: "credit-known-reservation", Run: func(t *T) {
		// large-reserved has one unit: one of two pods apart waits, until a
		// unit is credited back; then both hold it.
		a, b := rmPod("a", "1", true, "large-reserved"), rmPod("b", "1", true, "large-reserved")
		if got := len(scheduledOf(rmWorld().solve(a, b), a, b)); got != 1 {
			t.Fatalf("without credit %d pods placed, want 1", got)
		}
		res := withCredit(rmWorld(), map[string]int{"large-reserved": 1}).solve(a, b)
		expectReserved(t, res, a, "large-reserved")
		expectReserved(t, res, b, "large-reserved")
	}},
	conformanceCase{Name: "credit-unknown-reservation", Run: func(t *T) {
		a, b := rmPod("a", "1", true, "large-reserved"), rmPod("b", "1", true, "large-reserved")
		res := withCredit(rmWorld(), map[string]int{"unseeded-reserved": 5}).solve(a, b)
		if got := scheduledOf(res, a, b); len(got) != 1 || len(res.NodeClaims) != 1 {
			t.Fatalf("%d pods placed on %d claims, want 1 on 1: %s", len(got), len(res.NodeClaims), describe(res))
		}
		for _, c := range res.NodeClaims {
			if slices.Contains(heldBy(c), "unseeded-reserved") {
				t.Fatalf("claim %s holds the unknown reservation", c.Name)
			}
		}
	}},
)

var _ = register("reserved-fallback",
	conformanceCase{Name: "credit-full-reservation-held", Run: func(t *T) {
		w := withCredit(newWorldOf(fallbackType("r-full", true, 0), reservedOnlyPool("default")), map[string]int{"r-full": 1})
		p := unschedPod("p", "100m")
		reservedOn(t, w, claimOf(t, w.solve(p), p), "reserved-type", "r-full")
	}},
	conformanceCase{Name: "credit-one-unit-one-claim", Run: func(t *T) {
		w := withCredit(newWorldOf(fallbackType("r-full", true, 0), reservedOnlyPool("default")), map[string]int{"r-full": 1})
		pods := apartPods(2)
		res := w.solve(pods...)
		if len(res.NodeClaims) != 1 || len(scheduledOf(res, pods...)) != 1 {
			t.Fatalf("%d claims, %d pods placed; want 1 and 1: %s", len(res.NodeClaims), len(scheduledOf(res, pods...)), describe(res))
		}
	}},
)
