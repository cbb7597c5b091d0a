package conformance

import (
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

// Upstream's scheduler internals for DRA: which claim a pod's reference
// names, and which devices an existing node offers before it initializes.

// gpuTemplateWorld has a one-GPU and a two-GPU type (the latter dearer) and
// a template asking for one GPU.
func gpuTemplateWorld() *draWorld {
	return newDRAWorld(draGPUType("gpu-it", 1), draGPUType("gpu-2-it", 2, priceBump(1))).
		with(draClass("gpu", draGPUDriver), &resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "gpu-template", Namespace: "default"},
			Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
				Requests: []resourcev1.DeviceRequest{exactRequest("req", "gpu", 1)}}}}})
}

var _ = register("dra",
	conformanceCase{Name: "generated-claim-from-status", Run: func(t *T) {
		// The claim generated for the pod asks for two GPUs (its template
		// has since changed to one): the claim is what is allocated.
		w := gpuTemplateWorld().with(draClaim("p-gpu-x7k", exactRequest("req", "gpu", 2)))
		p := draPodOf("p", []corev1.PodResourceClaim{templateRef("gpu", "gpu-template")})
		gen := "p-gpu-x7k"
		p.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: &gen}}
		if c := expectOneClaimFor(t, w.solve(t, p), p); c.InstanceType != "gpu-2-it" {
			t.Fatalf("launched %s, want gpu-2-it for the generated claim's two GPUs", c.InstanceType)
		}
	}},
	conformanceCase{Name: "template-without-status-claims-nothing",
		Fails: "deliberate difference: a template reference whose claim is not generated yet is read as its template (the pods of a workload read from YAML have no status yet), where Karpenter allocates nothing for it until the claim controller names the claim",
		Run: func(t *T) {
			w := newDRAWorld(draGPUType("gpu-it", 1, priceBump(1)), draGPUType("no-gpu-it", 0)).with(draClass("gpu", draGPUDriver),
				&resourcev1.ResourceClaimTemplate{ObjectMeta: metav1.ObjectMeta{Name: "gpu-template", Namespace: "default"},
					Spec: resourcev1.ResourceClaimTemplateSpec{Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
						Requests: []resourcev1.DeviceRequest{exactRequest("req", "gpu", 1)}}}}})
			p := draPodOf("p", []corev1.PodResourceClaim{templateRef("gpu", "gpu-template")})
			if c := expectOneClaimFor(t, w.solve(t, p), p); c.InstanceType != "no-gpu-it" {
				t.Fatalf("launched %s, want the cheaper no-gpu-it: nothing to allocate", c.InstanceType)
			}
		}},
	conformanceCase{Name: "uninitialized-node-offers-type-devices", Run: func(t *T) {
		w := gpuClaimWorld(1, "gpu-claim").existing("node", "gpu-it")
		w.nodes[0].Initialized = false
		delete(w.nodes[0].Labels, apis.LabelNodeInitialized)
		p := draPodFor("p", "gpu", "gpu-claim")
		res := w.solve(t, p)
		if boundTo(res, p) != "node" || len(res.NodeClaims) != 0 {
			t.Fatalf("want p on the uninitialized node's device: %s", describe(res))
		}
	}},
	conformanceCase{Name: "unknown-type-node-offers-no-devices", Run: func(t *T) {
		// The node's type is not in the catalog: its devices are unknown.
		w := gpuClaimWorld(1, "gpu-claim").existing("node", "gpu-it")
		w.nodes[0].Initialized = false
		w.nodes[0].Labels[apis.LabelInstanceType] = "retired-it"
		p := draPodFor("p", "gpu", "gpu-claim")
		res := w.solve(t, p)
		if boundTo(res, p) == "node" {
			t.Fatalf("p took a device of a node whose type is unknown: %s", describe(res))
		}
		expectOneClaimFor(t, res, p)
	}},
)
