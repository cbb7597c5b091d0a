package conformance

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// The suite's reserved-capacity specs: large (6 CPUs), medium (3) and small
// (2) types, medium and small each with a one-unit reservation in
// test-zone-1 priced at a hundred-thousandth of on-demand. Upstream
// provisions round after round while its cluster state remembers the
// reservations launched; karpsim's catalog states what a reservation has
// left, so each round here is a catalog with the used units gone (an
// exhausted reservation's offering unavailable, as the cloud reports it).

// sizedFake is a fake type of cpu CPUs and as many Gi, with reservations
// (ID → units left) in test-zone-1.
func sizedFake(name string, cpu int64, reserved map[string]int) *instancetypes.InstanceType {
	list := corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI), corev1.ResourceMemory: *resource.NewQuantity(cpu<<30, resource.BinarySI)}
	base := fakeProviderType(name, apis.ArchitectureAmd64, list)
	spec := specOf(base)
	price := 0.1*float64(cpu) + 0.1*float64(cpu<<30)/1e9
	for id, left := range reserved {
		spec.Offerings = append(spec.Offerings, instancetypes.Offering{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved,
			Price: price / 100_000, Available: left > 0, ReservationID: id, ReservationCapacity: left})
	}
	return mustType(spec)
}

func reservedTypes(medium, small int) instancetypes.Catalog {
	return mustCatalog(sizedFake("large-instance-type", 6, nil),
		sizedFake("medium-instance-type", 3, map[string]int{"r-medium-instance-type": medium}),
		sizedFake("small-instance-type", 2, map[string]int{"r-small-instance-type": small}))
}

// reservedOn checks the claim launches instanceType on the reservation id
// ("" for none: then it is not reserved).
// The reservation is the launched type's reserved offering in the claim's
// zone that the claim's requirements allow.
func reservedOn(t *T, w *schedWorld, c scheduling.NodeClaim, instanceType, id string) {
	t.Helper()
	if c.InstanceType != instanceType {
		t.Fatalf("claim %s launches %s, want %s", c.Name, c.InstanceType, instanceType)
	}
	allowed := map[string]bool{}
	for _, r := range c.Requirements {
		if r.Key == apis.LabelCapacityReservationID && r.Operator == corev1.NodeSelectorOpIn {
			for _, v := range r.Values {
				allowed[v] = true
			}
		}
	}
	gotID := ""
	if it, ok := w.catalog.Get(c.InstanceType); ok && c.CapacityType == apis.CapacityTypeReserved {
		for _, o := range it.Offerings {
			if o.CapacityType == apis.CapacityTypeReserved && o.Zone == c.Zone && allowed[o.ReservationID] {
				gotID = o.ReservationID
			}
		}
	}
	switch {
	case id != "" && (c.CapacityType != apis.CapacityTypeReserved || gotID != id):
		t.Fatalf("claim %s is %s on reservation %q, want reserved on %s; requirements %v", c.Name, c.CapacityType, gotID, id, c.Requirements)
	case id == "" && c.CapacityType == apis.CapacityTypeReserved:
		t.Fatalf("claim %s is reserved", c.Name)
	}
}

// oneClaim: the round launches exactly one NodeClaim, which it returns with
// the pods it left pending.
func oneClaim(t *T, w *schedWorld, pods ...*corev1.Pod) (scheduling.NodeClaim, []*corev1.Pod) {
	t.Helper()
	res := w.solve(pods...)
	if len(res.NodeClaims) != 1 {
		t.Fatalf("%d NodeClaims, want 1: %s", len(res.NodeClaims), describe(res))
	}
	var left []*corev1.Pod
	for _, p := range pods {
		if boundTo(res, p) == "" && !contains(res.NodeClaims[0].Pods, apis.PodKey(p)) {
			left = append(left, p)
		}
	}
	w.launch(res, pods...)
	return res.NodeClaims[0], left
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hostnameApart are pods that may not share a node, limited to one type.
func hostnameApart(n int, instanceType string, opts ...func(i int) podOption) []*corev1.Pod {
	var out []*corev1.Pod
	for i := range n {
		p := unschedPod(fmt.Sprintf("p-%d", i), "", nodeRequirements(req(apis.LabelInstanceType, opIn, instanceType)), func(p *corev1.Pod) {
			p.Spec.Affinity.PodAntiAffinity = &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "test"}}, TopologyKey: apis.LabelHostname}}}
		})
		for _, o := range opts {
			o(i)(p)
		}
		out = append(out, p)
	}
	return out
}

// withCatalog gives w's pools a new catalog, keeping its nodes.
func (w *schedWorld) withCatalog(c instancetypes.Catalog) *schedWorld {
	w.catalog = c
	for i := range w.in.NodePools {
		w.in.NodePools[i].InstanceTypes = c
	}
	return w
}

var _ = register("scheduling",
	conformanceCase{Name: "reserved-offering-before-other-capacity", Run: func(t *T) {
		w := newWorldOf(reservedTypes(1, 1), schedPool())
		pods := podsOf(3, "p", requests("cpu", "1800m"))
		c, left := oneClaim(t, w, pods...)
		reservedOn(t, w, c, "small-instance-type", "r-small-instance-type")
		c, left = oneClaim(t, w.withCatalog(reservedTypes(1, 0)), left...)
		reservedOn(t, w, c, "medium-instance-type", "r-medium-instance-type")
		c, _ = oneClaim(t, w.withCatalog(reservedTypes(0, 0)), left...)
		reservedOn(t, w, c, "small-instance-type", "")
	}},
	conformanceCase{Name: "reservation-shared-across-pools", Run: func(t *T) {
		np1, np2 := schedPool(), schedPool()
		np1.Name, np2.Name = "np-1", "np-2"
		w := newWorldOf(reservedTypes(1, 1), np1, np2)
		pods := hostnameApart(2, "small-instance-type", func(i int) podOption {
			return nodeRequirements(req(apis.LabelNodePool, opIn, fmt.Sprintf("np-%d", i+1)))
		})
		for _, p := range pods {
			// Both requirements in one term, as upstream's pods have.
			terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			terms[0].MatchExpressions = append(terms[0].MatchExpressions, terms[1].MatchExpressions...)
			p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = terms[:1]
		}
		c, left := oneClaim(t, w, pods...)
		reservedOn(t, w, c, "small-instance-type", "r-small-instance-type")
		c, _ = oneClaim(t, w.withCatalog(reservedTypes(1, 0)), left...)
		reservedOn(t, w, c, "small-instance-type", "")
	}},
	conformanceCase{Name: "distinct-reservations-per-pool", Run: func(t *T) {
		np1, np2 := schedPool(), schedPool()
		np1.Name, np2.Name = "np-1", "np-2"
		w := newWorldOf(reservedTypes(1, 1), np1, np2)
		w.in.NodePools[1].InstanceTypes = mustCatalog(sizedFake("small-instance-type", 2, map[string]int{"r-distinct": 1}))
		pods := hostnameApart(2, "small-instance-type", func(i int) podOption {
			return nodeRequirements(req(apis.LabelNodePool, opIn, fmt.Sprintf("np-%d", i+1)))
		})
		for _, p := range pods {
			terms := p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
			terms[0].MatchExpressions = append(terms[0].MatchExpressions, terms[1].MatchExpressions...)
			p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = terms[:1]
		}
		res := w.solve(pods...)
		if len(res.NodeClaims) != 2 {
			t.Fatalf("%d NodeClaims, want 2: %s", len(res.NodeClaims), describe(res))
		}
		for _, c := range res.NodeClaims {
			if c.CapacityType != apis.CapacityTypeReserved || c.InstanceType != "small-instance-type" {
				t.Fatalf("claim %s is %s %s, want reserved small-instance-type", c.Name, c.CapacityType, c.InstanceType)
			}
		}
		if res.NodeClaims[0].NodePool == res.NodeClaims[1].NodePool {
			t.Fatalf("both claims from %s, so on one reservation", res.NodeClaims[0].NodePool)
		}
	}},
	conformanceCase{Name: "several-reservations-of-one-type", Run: func(t *T) {
		small := func(a, b int) instancetypes.Catalog {
			return mustCatalog(sizedFake("large-instance-type", 6, nil), sizedFake("medium-instance-type", 3, map[string]int{"r-medium-instance-type": 1}),
				sizedFake("small-instance-type", 2, map[string]int{"r-small-instance-type": a, "r-small-instance-type-2": b}))
		}
		w := newWorldOf(small(1, 2), schedPool())
		pods := hostnameApart(4, "small-instance-type")
		res := w.solve(pods...)
		if len(res.NodeClaims) != 2 {
			t.Fatalf("%d NodeClaims, want 2: %s", len(res.NodeClaims), describe(res))
		}
		var left []*corev1.Pod
		for _, p := range pods {
			if !contains(res.NodeClaims[0].Pods, apis.PodKey(p)) && !contains(res.NodeClaims[1].Pods, apis.PodKey(p)) {
				left = append(left, p)
			}
		}
		for _, c := range res.NodeClaims {
			if c.CapacityType != apis.CapacityTypeReserved || c.InstanceType != "small-instance-type" {
				t.Fatalf("claim %s is %s %s, want reserved small-instance-type", c.Name, c.CapacityType, c.InstanceType)
			}
		}
		w.launch(res, pods...)
		// Two of the three units are used; one is left.
		c, left := oneClaim(t, w.withCatalog(small(0, 1)), left...)
		if c.CapacityType != apis.CapacityTypeReserved {
			t.Fatalf("third claim is %s, want reserved", c.CapacityType)
		}
		c, _ = oneClaim(t, w.withCatalog(small(0, 0)), left...)
		reservedOn(t, w, c, "small-instance-type", "")
	}},
	conformanceCase{Name: "reservation-keeps-pod-in-heavier-pool", Run: func(t *T) {
		primary, fallback := schedPool(), schedPool()
		primary.Name, fallback.Name = "np-primary", "np-fallback"
		hundred, fifty := int32(100), int32(50)
		primary.Spec.Weight, fallback.Spec.Weight = &hundred, &fifty
		w := newWorldOf(reservedTypes(1, 1), primary, fallback)
		w.in.NodePools[1].InstanceTypes = mustCatalog(sizedFake("small-instance-type", 2, map[string]int{"r-fallback": 1}))
		c, left := oneClaim(t, w, hostnameApart(2, "small-instance-type")...)
		reservedOn(t, w, c, "small-instance-type", "r-small-instance-type")
		if c.NodePool != "np-primary" {
			t.Fatalf("first claim from %s", c.NodePool)
		}
		w.in.NodePools[0].InstanceTypes = reservedTypes(1, 0)
		w.catalog = reservedTypes(1, 0)
		c, _ = oneClaim(t, w, left...)
		reservedOn(t, w, c, "small-instance-type", "")
		if c.NodePool != "np-primary" {
			t.Fatalf("second claim from %s", c.NodePool)
		}
	}},
	conformanceCase{Name: "reservation-wait-keeps-preferences", Run: func(t *T) {
		np1, np2 := schedPool(), schedPool()
		np1.Name, np2.Name = "np-1", "np-2"
		w := newWorldOf(reservedTypes(1, 1), np1, np2)
		w.in.NodePools[1].InstanceTypes = mustCatalog(sizedFake("small-instance-type", 2, map[string]int{"r-distinct": 1}))
		pods := hostnameApart(2, "small-instance-type", func(int) podOption { return nodePreference(1, req(apis.LabelNodePool, opIn, "np-1")) })
		c, left := oneClaim(t, w, pods...)
		reservedOn(t, w, c, "small-instance-type", "r-small-instance-type")
		if c.NodePool != "np-1" {
			t.Fatalf("first claim from %s", c.NodePool)
		}
		w.in.NodePools[0].InstanceTypes = reservedTypes(1, 0)
		w.catalog = reservedTypes(1, 0)
		c, _ = oneClaim(t, w, left...)
		reservedOn(t, w, c, "small-instance-type", "")
		if c.NodePool != "np-1" {
			t.Fatalf("second claim from %s", c.NodePool)
		}
	}},
	conformanceCase{Name: "several-pods-on-reserved-node", Run: func(t *T) {
		np := schedPool()
		np.Name = "np-1"
		w := newWorldOf(reservedTypes(1, 1), np)
		var pods []*corev1.Pod
		for i := range 2 {
			pods = append(pods, unschedPod(fmt.Sprintf("p-%d", i), "", nodeRequirements(req(apis.LabelInstanceType, opIn, "small-instance-type"),
				req(apis.LabelNodePool, opIn, "np-1"), req(apis.LabelCapacityType, opIn, apis.CapacityTypeReserved), req(zone, opIn, "test-zone-1")),
				func(p *corev1.Pod) {
					p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "test"}}, TopologyKey: zone}}}
				}))
		}
		c, left := oneClaim(t, w, pods...)
		if len(left) != 0 {
			t.Fatalf("%d pods left pending", len(left))
		}
		reservedOn(t, w, c, "small-instance-type", "r-small-instance-type")
	}},
)
