package conformance

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// The suite's specs on NodePools whose requirements leave no instance
// type: the pods stay pending, each with a reason that says so.

func noTypeLeft(t *T, res scheduling.Result, pods ...*corev1.Pod) {
	t.Helper()
	expectNotScheduled(t, res, pods...)
	for _, u := range res.Unschedulable {
		if !strings.Contains(u.Reason, "no instance type") {
			t.Fatalf("pod %s: reason %q does not say the NodePool leaves no instance type", u.Pod, u.Reason)
		}
	}
}

func noTypeCase(name string, pool *apis.NodePool, pods ...*corev1.Pod) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		noTypeLeft(t, newSchedWorld(pool).solve(pods...), pods...)
	}}
}

var _ = register("scheduling",
	conformanceCase{Name: "pool-leaving-no-type", Run: func(t *T) {
		normal := unschedPod("normal", "")
		claimOf(t, newSchedWorld(schedPool()).solve(normal), normal)
		p := unschedPod("test-pod-filtered", "32", requests("memory", "256Gi"))
		noTypeLeft(t, newSchedWorld(schedPool(onlyRequirement(apis.LabelInstanceType, opIn, "non-existent-instance-type"))).solve(p), p)
	}},
	noTypeCase("pool-leaving-no-type-several-pods", schedPool(onlyRequirement(apis.LabelArch, opIn, "non-existent-arch")),
		unschedPod("pod-1", ""), unschedPod("pod-2", ""), unschedPod("pod-3", "")),
	noTypeCase("pool-contradicting-requirements", schedPool(onlyRequirement(apis.LabelArch, opIn, apis.ArchitectureAmd64),
		withRequirement(apis.LabelArch, opIn, apis.ArchitectureArm64)), unschedPod("conflicting-requirements-pod", "")),
	noTypeCase("pool-zone-no-type-offers", schedPool(onlyRequirement(zone, opIn, "non-existent-zone-1", "non-existent-zone-2")),
		unschedPod("zone-filtered-pod", "")),
	conformanceCase{Name: "pod-without-resource-claims", Run: func(t *T) {
		p := unschedPod("p", "1", requests("memory", "1Gi"))
		res := newSchedWorld(schedPool()).solve(p)
		claimOf(t, res, p)
		if len(res.NodeClaims) != 1 || len(res.Unschedulable) != 0 {
			t.Fatalf("want one NodeClaim and no refusal: %s", describe(res))
		}
	}},
)
