package conformance

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// The suite's preferential-fallback, instance-type compatibility and
// binpacking specs.

func anyArch() *apis.NodePool {
	return schedPool(onlyRequirement(apis.LabelArch, opIn, apis.ArchitectureArm64, apis.ArchitectureAmd64))
}

func amd64Only() *apis.NodePool {
	return schedPool(onlyRequirement(apis.LabelArch, opIn, apis.ArchitectureAmd64))
}

// separateNodes: each pod goes to a new node of its own.
func separateNodes(t *T, w *schedWorld, ps ...*corev1.Pod) {
	t.Helper()
	res := w.solve(ps...)
	seen := map[string]string{}
	for _, p := range ps {
		c := claimOf(t, res, p)
		if other, ok := seen[c.Name]; ok {
			t.Fatalf("%s and %s share %s", other, p.Name, c.Name)
		}
		seen[c.Name] = p.Name
	}
}

// gpuTypes is Fake(5) with a first extended resource on its first type and
// a second on its second.
func gpuTypes() instancetypes.Catalog {
	var types []*instancetypes.InstanceType
	fake := instancetypes.Fake(5)
	extra := map[int]corev1.ResourceName{0: "karpenter.sh/super-great-gpu", 1: "karpenter.sh/even-better-gpu"}
	for i, name := range fake.Names() {
		it, _ := fake.Get(name)
		spec := specOf(it)
		if r, ok := extra[i]; ok {
			spec.Capacity = spec.Capacity.With(r, 25)
		}
		types = append(types, mustType(spec))
	}
	return mustCatalog(types...)
}

// sameTypeNodes places pods and checks they all land on instanceType, on
// nodes new NodeClaims in all.
func sameTypeNodes(t *T, w *schedWorld, instanceType string, nodes int, ps ...*corev1.Pod) {
	t.Helper()
	res := w.solve(ps...)
	names := map[string]bool{}
	for _, p := range ps {
		c := claimOf(t, res, p)
		names[c.Name] = true
		if c.InstanceType != instanceType {
			t.Fatalf("pod %s on a %s, want %s", p.Name, c.InstanceType, instanceType)
		}
	}
	if len(names) != nodes {
		t.Fatalf("%d nodes, want %d: %s", len(names), nodes, describe(res))
	}
}

func podsOf(n int, prefix string, opts ...podOption) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = unschedPod(fmt.Sprintf("%s-%d", prefix, i), "", opts...)
	}
	return out
}

func schedInitContainer(kv ...string) podOption {
	return func(p *corev1.Pod) {
		c := corev1.Container{Name: "init", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{}}}
		for i := 0; i < len(kv); i += 2 {
			c.Resources.Requests[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		p.Spec.InitContainers = append(p.Spec.InitContainers, c)
	}
}

// twoOS is the default type once for linux and once for windows: upstream's
// fake type allows both at once.
func twoOS() instancetypes.Catalog {
	linux := fakeProviderType("default-instance-type", apis.ArchitectureAmd64, nil)
	spec := specOf(linux)
	spec.Name = "default-instance-type-windows"
	spec.Labels[apis.LabelOS] = "windows"
	return mustCatalog(linux, mustType(spec))
}

var _ = register("scheduling",
	pendingWith("last-required-term-kept", schedPool(onlyRequirement(zone, opIn, "test-zone-1"), withRequirement(apis.LabelInstanceType, opIn, "default-instance-type")),
		unschedPod("p", "", nodeRequirements(req(zone, opIn, "invalid")))),
	placedWith("required-terms-dropped-in-turn", schedPool(), unschedPod("p", "",
		nodeRequirements(req(zone, opIn, "invalid")), nodeRequirements(req(zone, opIn, "invalid")),
		nodeRequirements(req(zone, opIn, "test-zone-1")), nodeRequirements(req(zone, opIn, "test-zone-2"))), zone, "test-zone-1"),
	placedWith("all-preferences-dropped", schedPool(), unschedPod("p", "",
		nodePreference(1, req(zone, opIn, "invalid")), nodePreference(1, req(apis.LabelInstanceType, opIn, "invalid"))), "", ""),
	placedWith("heavier-preference-dropped-first", schedZones("test-zone-1", "test-zone-2"), unschedPod("p", "",
		nodePreference(100, req(apis.LabelInstanceType, opIn, "test-zone-3")), nodePreference(50, req(zone, opIn, "test-zone-2")),
		nodePreference(1, req(zone, opIn, "test-zone-1"))), zone, "test-zone-2"),
	placedWith("preference-against-requirement", schedPool(), unschedPod("p", "",
		nodePreference(1, req(zone, opNot, "test-zone-3")), nodeRequirements(req(zone, opIn, "test-zone-3"))), zone, "test-zone-3"),
	placedWith("contradicting-preferences", schedPool(), unschedPod("p", "",
		nodePreference(1, req(zone, opIn, "invalid"), req(zone, opNot, "invalid"))), "", ""),

	pendingWith("larger-than-every-type", schedPool(), unschedPod("p", "512")),
	conformanceCase{Name: "architectures-on-separate-nodes", Run: func(t *T) {
		separateNodes(t, newSchedWorld(anyArch()), unschedPod("a", "", nodeSelector(apis.LabelArch, apis.ArchitectureAmd64)),
			unschedPod("b", "", nodeSelector(apis.LabelArch, apis.ArchitectureArm64)))
	}},
	pendingWith("instance-type-affinity-excluded", amd64Only(), unschedPod("p", "", nodeRequirements(req(apis.LabelInstanceType, opIn, "arm-instance-type")))),
	pendingWith("os-affinity-excluded", amd64Only(), unschedPod("p", "", nodeRequirements(req(apis.LabelOS, opIn, "ios")))),
	pendingWith("pool-architecture-excludes", amd64Only(), unschedPod("p", "14")),
	conformanceCase{Name: "operating-systems-on-separate-nodes", Run: func(t *T) {
		separateNodes(t, newWorldOf(twoOS(), anyArch()), unschedPod("a", "", nodeSelector(apis.LabelOS, "linux")),
			unschedPod("b", "", nodeSelector(apis.LabelOS, "windows")))
	}},
	conformanceCase{Name: "instance-type-selectors-on-separate-nodes", Run: func(t *T) {
		separateNodes(t, newSchedWorld(anyArch()), unschedPod("a", "", nodeSelector(corev1.LabelInstanceType, "small-instance-type")),
			unschedPod("b", "", nodeSelector(apis.LabelInstanceType, "default-instance-type")))
	}},
	conformanceCase{Name: "zone-selectors-on-separate-nodes", Run: func(t *T) {
		separateNodes(t, newSchedWorld(anyArch()), unschedPod("a", "", nodeSelector(zone, "test-zone-1")), unschedPod("b", "", nodeSelector(zone, "test-zone-2")))
	}},
	conformanceCase{Name: "resources-of-different-types-on-separate-nodes", Run: func(t *T) {
		separateNodes(t, newWorldOf(gpuTypes(), schedPool()), unschedPod("a", "", requests("karpenter.sh/super-great-gpu", "1")),
			unschedPod("b", "", requests("karpenter.sh/even-better-gpu", "1")))
	}},
	conformanceCase{Name: "resources-no-type-has-together", Run: func(t *T) {
		p := unschedPod("p", "", requests("karpenter.sh/super-great-gpu", "1", "karpenter.sh/even-better-gpu", "1"))
		expectNotScheduled(t, newWorldOf(gpuTypes(), schedPool()).solve(p), p)
	}},
	conformanceCase{Name: "provider-label-selects-types", Run: func(t *T) {
		large := unschedPod("large", "", nodeSelector(instancetypes.FakeLabelSize, "large"))
		small := unschedPod("small", "", nodeSelector(instancetypes.FakeLabelSize, "small"))
		w := newWorldOf(instancetypes.Fake(5), schedPool())
		res := w.solve(large, small)
		w.expectLabel(t, claimOf(t, res, large), apis.LabelInstanceType, "fake-it-4")
		w.expectLabel(t, claimOf(t, res, small), apis.LabelInstanceType, "fake-it-0")
	}},
	conformanceCase{Name: "provider-label-value-no-type-has", Run: func(t *T) {
		a := unschedPod("a", "", nodeSelector(instancetypes.FakeLabelSize, "large", apis.LabelInstanceType, "fake-it-0"))
		b := unschedPod("b", "", nodeSelector(instancetypes.FakeLabelSize, "small", apis.LabelInstanceType, "fake-it-4"))
		expectNotScheduled(t, newWorldOf(instancetypes.Fake(5), schedPool()).solve(a, b), a, b)
	}},
	conformanceCase{Name: "optional-label-selected", Run: func(t *T) {
		p := unschedPod("p", "", nodeRequirements(req(instancetypes.FakeLabelSpecial, opEx)))
		w := newWorldOf(instancetypes.Fake(5), schedPool())
		c := claimOf(t, w.solve(p), p)
		if _, ok := w.label(c, instancetypes.FakeLabelSpecial); !ok {
			t.Fatalf("node of %s lacks %s", c.InstanceType, instancetypes.FakeLabelSpecial)
		}
		w.expectLabel(t, c, apis.LabelInstanceType, "fake-it-4")
	}},
	conformanceCase{Name: "optional-label-excluded", Run: func(t *T) {
		p := unschedPod("p", "", nodeRequirements(req(instancetypes.FakeLabelSpecial, opDNE)))
		w := newWorldOf(instancetypes.Fake(5), schedPool())
		c := claimOf(t, w.solve(p), p)
		if v, ok := w.label(c, instancetypes.FakeLabelSpecial); ok {
			t.Fatalf("node of %s has %s=%s", c.InstanceType, instancetypes.FakeLabelSpecial, v)
		}
	}},

	placedWith("small-pod-smallest-type", schedPool(), unschedPod("p", "", requests("memory", "100M")), apis.LabelInstanceType, "small-instance-type"),
	placedWith("small-pod-smallest-fitting-type", schedPool(), unschedPod("p", "", requests("memory", "2000M")), apis.LabelInstanceType, "small-instance-type"),
	placedWith("runtime-class-overhead-counted", schedPool(), unschedPod("p", "1", func(p *corev1.Pod) {
		// The RuntimeClass admission controller copies the class's overhead
		// into the pod; that is what a solve sees.
		p.Spec.Overhead = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
	}), apis.LabelInstanceType, "default-instance-type"),
	conformanceCase{Name: "small-pods-share-smallest-type", Run: func(t *T) {
		sameTypeNodes(t, newSchedWorld(schedPool()), "small-instance-type", 1, podsOf(5, "p", requests("memory", "10M"))...)
	}},
	conformanceCase{Name: "full-node-starts-another", Run: func(t *T) {
		sameTypeNodes(t, newSchedWorld(schedPool()), "default-instance-type", 20,
			podsOf(40, "p", nodeSelector(apis.LabelArch, apis.ArchitectureAmd64), requests("memory", "1.8G"))...)
	}},
	conformanceCase{Name: "small-and-large-pods-packed", Run: func(t *T) {
		amd := nodeSelector(apis.LabelArch, apis.ArchitectureAmd64)
		ps := append(podsOf(40, "large", amd, requests("memory", "1.8G")), podsOf(20, "small", amd, requests("memory", "400M"))...)
		sameTypeNodes(t, newSchedWorld(schedPool()), "default-instance-type", 20, ps...)
	}},
	conformanceCase{Name: "packs-tightly", Run: func(t *T) {
		a, b := unschedPod("a", "4.5"), unschedPod("b", "1")
		res := newWorldOf(instancetypes.Fake(5), schedPool()).solve(a, b)
		ca, cb := claimOf(t, res, a), claimOf(t, res, b)
		if len(res.NodeClaims) != 2 || ca.InstanceType == cb.InstanceType {
			t.Fatalf("want two nodes of different types: %s", describe(res))
		}
	}},
	placedWith("zero-quantity-request", schedPool(), unschedPod("p", "", requests("foo.com/weird-resources", "0")), "", ""),
	pendingWith("exceeds-every-type-capacity", schedPool(), unschedPod("p", "", requests("memory", "2Ti"))),
	conformanceCase{Name: "pods-per-node-cap", Run: func(t *T) {
		sameTypeNodes(t, newSchedWorld(schedPool()), "small-instance-type", 5,
			podsOf(25, "p", nodeSelector(apis.LabelArch, apis.ArchitectureAmd64), requests("memory", "1m", "cpu", "1m"))...)
	}},
	placedWith("init-container-requests-counted", schedPool(), unschedPod("p", "", requests("memory", "1Gi", "cpu", "1"), schedInitContainer("memory", "1Gi", "cpu", "2")),
		apis.LabelInstanceType, "default-instance-type"),
	pendingWith("init-container-larger-than-every-type", schedPool(), unschedPod("p", "", requests("memory", "1Gi", "cpu", "1"), schedInitContainer("memory", "1Ti", "cpu", "2"))),
	conformanceCase{Name: "valid-type-regardless-of-price", Run: func(t *T) {
		typ := func(name string, cpu int64, price float64) *instancetypes.InstanceType {
			return fakeProviderType(name, apis.ArchitectureAmd64, corev1.ResourceList{corev1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(cpu<<30, resource.BinarySI)}, offering("test-zone-1a", apis.CapacityTypeOnDemand, price, true))
		}
		w := newWorldOf(mustCatalog(typ("medium", 2, 3), typ("small", 1, 2), typ("large", 4, 1)), schedPool())
		p := unschedPod("p", "", requests("cpu", "1m", "memory", "1Mi"))
		c := claimOf(t, w.solve(p), p)
		w.expectLabel(t, c, apis.LabelInstanceType, "large")
		if got := fmt.Sprint(c.InstanceTypeOptions); got != "[large small medium]" {
			t.Fatalf("options %s, want large, small and medium", got)
		}
	}},
)
