package conformance

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// Upstream's reservation-manager specs drive the manager's calls by hand
// over three types, each sold only through one reservation: small-reserved
// (2 CPUs, 3 units, test-zone-1), medium-reserved (4 CPUs, 2 units,
// test-zone-2) and large-reserved (8 CPUs, 1 unit, test-zone-3). karpsim's
// manager is internal to the solve, which makes those calls as Karpenter's
// scheduler does: a NodeClaim holds one unit of every reservation its
// options could launch into, keeps what it holds as pods join, and lets go
// of what its narrowed options no longer allow. Each case here is the
// solve in which those calls happen, and checks what the manager's answer
// decides: which pods get a reserved node and which wait.

func rmType(name string, cpu int64, zone string, units int) *instancetypes.InstanceType {
	list := corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI),
		corev1.ResourceMemory: *resource.NewQuantity(cpu<<31, resource.BinarySI), corev1.ResourcePods: *resource.NewQuantity(cpu*5, resource.DecimalSI)}
	spec := specOf(fakeProviderType(name, apis.ArchitectureAmd64, list))
	spec.Offerings = []instancetypes.Offering{{Zone: zone, CapacityType: apis.CapacityTypeReserved, Price: 0.01 * float64(cpu),
		Available: true, ReservationID: name, ReservationCapacity: units}}
	return mustType(spec)
}

func rmWorld() *schedWorld {
	return newWorldOf(mustCatalog(rmType("small-reserved", 2, "test-zone-1", 3), rmType("medium-reserved", 4, "test-zone-2", 2),
		rmType("large-reserved", 8, "test-zone-3", 1)), schedPool())
}

// rmPod asks for cpu on one of types, on a node of its own unless apart is
// false.
func rmPod(name, cpu string, apart bool, types ...string) *corev1.Pod {
	p := unschedPod(name, cpu, nodeRequirements(req(apis.LabelInstanceType, opIn, types...)))
	p.Labels = map[string]string{"rm": name}
	if apart {
		p.Labels["apart"] = "true"
		p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"apart": "true"}}, TopologyKey: apis.LabelHostname}}}
	}
	return p
}

// heldBy is the reservations a claim may launch into (those it holds).
func heldBy(c scheduling.NodeClaim) []string {
	for _, r := range c.Requirements {
		if r.Key == apis.LabelCapacityReservationID && r.Operator == corev1.NodeSelectorOpIn {
			return slices.Sorted(slices.Values(r.Values))
		}
	}
	return nil
}

// expectReserved checks that p is on a reserved NodeClaim holding exactly held.
func expectReserved(t *T, res scheduling.Result, p *corev1.Pod, held ...string) {
	t.Helper()
	c := claimOf(t, res, p)
	if c.CapacityType != apis.CapacityTypeReserved || !slices.Equal(heldBy(c), held) {
		t.Fatalf("pod %s: claim %s is %s holding %v, want reserved holding %v: %s", p.Name, c.Name, c.CapacityType, heldBy(c), held, describe(res))
	}
}

var _ = register("reservations",
	conformanceCase{Name: "available-reservation-held", Run: func(t *T) {
		p := rmPod("p", "1", true, "large-reserved")
		expectReserved(t, rmWorld().solve(p), p, "large-reserved")
	}},
	conformanceCase{Name: "holder-keeps-its-unit-when-exhausted", Run: func(t *T) {
		// large-reserved's only unit is held by the first pod's claim; the
		// second pod joins that claim all the same.
		a, b := rmPod("a", "1", false, "large-reserved"), rmPod("b", "1", false, "large-reserved")
		res := rmWorld().solve(a, b)
		expectReserved(t, res, a, "large-reserved")
		if len(res.NodeClaims) != 1 || claimOf(t, res, b).Name != claimOf(t, res, a).Name {
			t.Fatalf("want a and b on the one reserved claim: %s", describe(res))
		}
	}},
	conformanceCase{Name: "exhausted-reservation-refused", Run: func(t *T) {
		a, b := rmPod("a", "1", true, "large-reserved"), rmPod("b", "1", true, "large-reserved")
		res := rmWorld().solve(a, b)
		if len(res.NodeClaims) != 1 || len(res.Unschedulable) != 1 {
			t.Fatalf("want one reserved claim and one pod waiting: %s", describe(res))
		}
	}},
	conformanceCase{Name: "one-unit-per-claim", Run: func(t *T) {
		// Two pods share the first medium claim, which takes one unit; the
		// third's claim takes the second.
		pods := []*corev1.Pod{rmPod("a", "1900m", false, "medium-reserved"), rmPod("b", "1900m", false, "medium-reserved"), rmPod("c", "1900m", false, "medium-reserved")}
		res := rmWorld().solve(pods...)
		if len(res.NodeClaims) != 2 {
			t.Fatalf("want two claims: %s", describe(res))
		}
		for _, p := range pods {
			expectReserved(t, res, p, "medium-reserved")
		}
	}},
	conformanceCase{Name: "units-counted-down", Run: func(t *T) {
		var pods []*corev1.Pod
		for _, n := range []string{"a", "b", "c", "d"} {
			pods = append(pods, rmPod(n, "1", true, "small-reserved"))
		}
		res := rmWorld().solve(pods...)
		if len(res.NodeClaims) != 3 || len(res.Unschedulable) != 1 {
			t.Fatalf("want three reserved claims and one pod waiting: %s", describe(res))
		}
	}},
	conformanceCase{Name: "claim-holds-every-compatible-reservation", Run: func(t *T) {
		p := rmPod("p", "1", true, "small-reserved", "medium-reserved")
		expectReserved(t, rmWorld().solve(p), p, "medium-reserved", "small-reserved")
	}},
	conformanceCase{Name: "several-held-one-unit-each", Run: func(t *T) {
		// a's claim holds a medium and the large unit, b's the second
		// medium one: nothing is left for c.
		a, b, c := rmPod("a", "1500m", true, "medium-reserved", "large-reserved"), rmPod("b", "1", true, "medium-reserved"), rmPod("c", "500m", true, "medium-reserved")
		res := rmWorld().solve(a, b, c)
		expectReserved(t, res, a, "large-reserved", "medium-reserved")
		expectReserved(t, res, b, "medium-reserved")
		expectNotScheduled(t, res, c)
	}},
	conformanceCase{Name: "narrowed-claim-releases-reservation", Run: func(t *T) {
		// a's claim holds medium and large; b joins it in test-zone-2, so
		// it keeps medium and lets large go, which c's claim then takes.
		a := rmPod("a", "2", false, "medium-reserved", "large-reserved")
		b := rmPod("b", "1", false, "medium-reserved", "large-reserved")
		b.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions = append(
			b.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchExpressions,
			req(apis.LabelTopologyZone, opIn, "test-zone-2"))
		c := rmPod("c", "500m", false, "large-reserved")
		res := rmWorld().solve(a, b, c)
		expectReserved(t, res, a, "medium-reserved")
		if claimOf(t, res, b).Name != claimOf(t, res, a).Name {
			t.Fatalf("want b on a's claim: %s", describe(res))
		}
		expectReserved(t, res, c, "large-reserved")
	}},
	conformanceCase{Name: "reservations-across-claims", Run: func(t *T) {
		// Three claims hold medium+small, medium+large and small: small
		// has one unit left, medium and large none.
		held := []*corev1.Pod{rmPod("h1", "1500m", true, "small-reserved", "medium-reserved"),
			rmPod("h2", "1500m", true, "medium-reserved", "large-reserved"), rmPod("h3", "1500m", true, "small-reserved")}
		small, medium, large := rmPod("small", "1", true, "small-reserved"), rmPod("medium", "1", true, "medium-reserved"), rmPod("large", "1", true, "large-reserved")
		res := rmWorld().solve(append(held, small, medium, large)...)
		expectReserved(t, res, held[0], "medium-reserved", "small-reserved")
		expectReserved(t, res, held[1], "large-reserved", "medium-reserved")
		expectReserved(t, res, held[2], "small-reserved")
		expectReserved(t, res, small, "small-reserved")
		expectNotScheduled(t, res, medium, large)
	}},
	conformanceCase{Name: "holdings-after-mixed-changes", Run: func(t *T) {
		// h1's claim holds small and medium until h1x joins it in
		// test-zone-1; h2's holds small and large until h2x does; h3's
		// holds medium. Then medium and large each have a unit left.
		h1, h2, h3 := rmPod("h1", "1500m", true, "small-reserved", "medium-reserved"),
			rmPod("h2", "1500m", true, "small-reserved", "large-reserved"), rmPod("h3", "1500m", true, "medium-reserved")
		h1x, h2x := joining("h1x", h1, "small-reserved", "medium-reserved"), joining("h2x", h2, "small-reserved", "large-reserved")
		medium, large := rmPod("medium", "200m", true, "medium-reserved"), rmPod("large", "200m", true, "large-reserved")
		res := rmWorld().solve(h1, h2, h3, h1x, h2x, medium, large)
		expectReserved(t, res, h1, "small-reserved")
		expectReserved(t, res, h2, "small-reserved")
		expectReserved(t, res, h3, "medium-reserved")
		expectReserved(t, res, medium, "medium-reserved")
		expectReserved(t, res, large, "large-reserved")
	}},
)

// joining is a small pod that must share holder's node, in test-zone-1.
func joining(name string, holder *corev1.Pod, types ...string) *corev1.Pod {
	p := rmPod(name, "300m", false, types...)
	terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	terms[0].MatchExpressions = append(terms[0].MatchExpressions, req(apis.LabelTopologyZone, opIn, "test-zone-1"))
	p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"rm": holder.Name}}, TopologyKey: apis.LabelHostname}}}
	return p
}
