package conformance

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// Upstream's scheduling suite, DRA with Karpenter's default
// IGNORE_DRA_REQUESTS: a pod whose containers or init containers name a
// resource claim is refused with a DRA error and gets no NodeClaim.

func containerClaim(name string) podOption {
	return func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		c.Resources.Claims = append(c.Resources.Claims, corev1.ResourceClaim{Name: name})
	}
}

func initContainerClaim(name string) podOption {
	return func(p *corev1.Pod) {
		p.Spec.InitContainers = append(p.Spec.InitContainers, corev1.Container{Name: "init",
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: mustQuantity("500m"), corev1.ResourceMemory: mustQuantity("512Mi")},
				Claims:   []corev1.ResourceClaim{{Name: name}},
			}})
	}
}

// refusedForDRA solves the pod alone and checks that it gets no NodeClaim
// and is refused with scheduling.ErrDRAIgnored.
func refusedForDRA(opts ...podOption) func(t *T) {
	return func(t *T) {
		p := unschedPod("p", "1", append([]podOption{requests("memory", "1Gi")}, opts...)...)
		res := newSchedWorld(schedPool()).solve(p)
		if len(res.NodeClaims) != 0 {
			t.Fatalf("want no NodeClaim: %s", describe(res))
		}
		i := slices.IndexFunc(res.Unschedulable, func(u scheduling.Unschedulable) bool { return u.Pod == apis.PodKey(p) })
		if i < 0 || !strings.Contains(res.Unschedulable[i].Reason, scheduling.ErrDRAIgnored.Error()) {
			t.Fatalf("want the pod refused for its DRA claims: %s %+v", describe(res), res.Unschedulable)
		}
	}
}

var _ = register("scheduling",
	conformanceCase{Name: "dra-container-claim-refused", Run: refusedForDRA(containerClaim("gpu-claim"))},
	conformanceCase{Name: "dra-init-container-claim-refused", Run: refusedForDRA(initContainerClaim("gpu-init-claim"))},
	conformanceCase{Name: "dra-both-claims-refused", Run: refusedForDRA(containerClaim("gpu-claim"), initContainerClaim("storage-init-claim"))},
)
