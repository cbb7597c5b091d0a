package conformance

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// v1.15.0's InstanceType VolumeAttachmentLimits specs: the types state how
// many volumes of each CSI driver their nodes attach; upstream's storage
// class provisions the fake CSI driver's volumes in test-zone-1 once a pod
// is placed, each pod's claims made per spec.

// volumeLimitedType is upstream's fake type of cpu CPUs and 1024 pods
// attaching at most limits' volumes of each driver.
func volumeLimitedType(name, cpu string, limits map[string]int) *instancetypes.InstanceType {
	spec := specOf(fakeProviderType(name, apis.ArchitectureAmd64,
		corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourcePods: resource.MustParse("1024")}))
	spec.VolumeAttachmentLimits = limits
	return mustType(spec)
}

// limitedWorld sells the types, and knows the storage classes of the
// drivers (each "<driver>-class", in test-zone-1).
func limitedWorld(types []*instancetypes.InstanceType, drivers ...string) *schedWorld {
	w := newWorldOf(mustCatalog(types...), schedPool())
	for _, d := range drivers {
		w.in.StorageClasses = append(w.in.StorageClasses, schedStorageClass(d+"-class", d, "test-zone-1"))
	}
	return w
}

// tenPerNode is the context's type: 1024 CPUs, ten volumes of the fake driver.
func tenPerNode() []*instancetypes.InstanceType {
	return []*instancetypes.InstanceType{volumeLimitedType("limited-instance-type", "1024", map[string]int{csiDriver: 10})}
}

// claimsOfDriver adds n unbound claims of the driver's class, named
// prefix-i, and returns their names.
func (w *schedWorld) claimsOfDriver(n int, prefix, driver string) []string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("%s-%d", prefix, i)
		w.in.PersistentVolumeClaims = append(w.in.PersistentVolumeClaims, claim(names[i], driver+"-class", ""))
	}
	return names
}

// podPerClaim is one pending pod mounting each claim.
func podPerClaim(claims []string) []*corev1.Pod {
	out := make([]*corev1.Pod, len(claims))
	for i, c := range claims {
		out[i] = unschedPod(fmt.Sprintf("p-%d", i), "", mounts(c))
	}
	return out
}

// expectClaims: every pod is placed, on want new NodeClaims.
func expectClaims(t *T, res scheduling.Result, want int, pods ...*corev1.Pod) {
	t.Helper()
	expectScheduled(t, res, pods...)
	if len(res.NodeClaims) != want {
		t.Fatalf("%d NodeClaims, want %d: %s", len(res.NodeClaims), want, describe(res))
	}
}

// inFlightLimited: an in-flight NodeClaim of the limited type, its node
// registered or not, has no CSINode yet: its type's limit of ten holds, so
// of eleven pods with a volume each one needs a second NodeClaim.
func inFlightLimited(name string, registered bool) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		w := limitedWorld(tenPerNode(), csiDriver)
		n := firstNode(t, w, unschedPod("first", ""), true)
		if registered {
			n.Labels[apis.LabelNodeRegistered] = "true"
		}
		ps := podPerClaim(w.claimsOfDriver(11, "my-claim", csiDriver))
		res := w.solve(ps...)
		expectClaims(t, res, 1, ps...)
		if got := len(res.Bindings); got != 10 {
			t.Fatalf("%d pods bound to the in-flight node, want its type's 10: %s", got, describe(res))
		}
	}}
}

var _ = register("scheduling",
	conformanceCase{Name: "type-volume-limits-one-loop", Run: func(t *T) {
		w := limitedWorld(tenPerNode(), csiDriver)
		ps := podPerClaim(w.claimsOfDriver(100, "my-claim", csiDriver))
		expectClaims(t, w.solve(ps...), 10, ps...)
	}},
	inFlightLimited("type-volume-limits-in-flight-unregistered", false),
	inFlightLimited("type-volume-limits-in-flight-registered", true),
	conformanceCase{Name: "type-volume-limits-several-volumes-per-pod", Run: func(t *T) {
		w := limitedWorld(tenPerNode(), csiDriver)
		a, b := w.claimsOfDriver(6, "my-claim-a", csiDriver), w.claimsOfDriver(6, "my-claim-b", csiDriver)
		var ps []*corev1.Pod
		for i := range 6 {
			ps = append(ps, unschedPod(fmt.Sprintf("p-%d", i), "", mounts(a[i], b[i])))
		}
		expectClaims(t, w.solve(ps...), 2, ps...)
	}},
	conformanceCase{Name: "type-volume-limits-shared-claim-once", Run: func(t *T) {
		w := limitedWorld(tenPerNode(), csiDriver)
		shared := w.claimsOfDriver(1, "my-claim", csiDriver)[0]
		ps := podsOf(100, "p", mounts(shared))
		expectClaims(t, w.solve(ps...), 1, ps...)
	}},
	conformanceCase{Name: "type-volume-limits-other-driver-unlimited", Run: func(t *T) {
		w := limitedWorld([]*instancetypes.InstanceType{volumeLimitedType("instance-type", "1024", map[string]int{"other.csi.provider": 1})}, csiDriver)
		ps := podPerClaim(w.claimsOfDriver(20, "my-claim", csiDriver))
		expectClaims(t, w.solve(ps...), 1, ps...)
	}},
	conformanceCase{Name: "type-volume-limits-exceeded-by-every-type", Run: func(t *T) {
		w := limitedWorld(tenPerNode(), csiDriver)
		p := unschedPod("p", "", mounts(w.claimsOfDriver(11, "my-claim", csiDriver)...))
		expectNotScheduled(t, w.solve(p), p)
	}},
	conformanceCase{Name: "type-volume-limits-cheaper-type-left-out", Run: func(t *T) {
		w := limitedWorld([]*instancetypes.InstanceType{
			volumeLimitedType("small-limit", "16", map[string]int{csiDriver: 2}),
			volumeLimitedType("large-limit", "1024", map[string]int{csiDriver: 20}),
		}, csiDriver)
		p := unschedPod("p", "", mounts(w.claimsOfDriver(5, "my-claim", csiDriver)...))
		w.expectLabel(t, claimOf(t, w.solve(p), p), apis.LabelInstanceType, "large-limit")
	}},
	conformanceCase{Name: "type-volume-limits-every-driver", Run: func(t *T) {
		const local = "local.csi.provider"
		w := limitedWorld([]*instancetypes.InstanceType{
			volumeLimitedType("partial-support", "16", map[string]int{csiDriver: 10, local: 1}),
			volumeLimitedType("full-support", "1024", map[string]int{csiDriver: 10, local: 10}),
		}, csiDriver, local)
		var claims []string
		fake, locals := w.claimsOfDriver(2, "my-claim", csiDriver), w.claimsOfDriver(2, "my-local-claim", local)
		for i := range 2 {
			claims = append(claims, fake[i], locals[i])
		}
		p := unschedPod("p", "", mounts(claims...))
		w.expectLabel(t, claimOf(t, w.solve(p), p), apis.LabelInstanceType, "full-support")
	}},
)
