package optimize_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// The local search gives two claims one shape exactly when they share
// their NodePool, launch (type, zone, capacity type) and their pods'
// requests counted with repeats, and reads each claim's floor as the sum
// of its pods' floors: on random clusters, half of them with pods of one
// or two sizes, so that claims of one shape are common.
func TestClaimShapesAndFloors(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 17))
	cases := 200
	if testing.Short() {
		cases = 40
	}
	pairs := 0
	for c := range cases {
		in := randomInput(rng)
		if rng.IntN(2) == 0 {
			sizes := []string{"250m", "1", "1500m"}
			for _, p := range in.Pods {
				p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(sizes[rng.IntN(2)]), corev1.ResourceMemory: resource.MustParse("1Gi")}
			}
		}
		for _, packing := range []scheduling.Packing{scheduling.PackFewestPods, scheduling.PackCheapest} {
			trial := in
			trial.Options.Packing = packing
			r := scheduling.Solve(trial)
			shapes, floors, podByPod := optimize.ClaimShapes(in, r)
			if shapes == nil {
				continue
			}
			want := make([]string, len(r.NodeClaims))
			for i, claim := range r.NodeClaims {
				want[i] = wantShape(t, in, claim)
			}
			for i := range want {
				if floors[i] != podByPod[i] {
					t.Fatalf("case %d: claim %s floor %v, pod by pod %v", c, r.NodeClaims[i].Name, floors[i], podByPod[i])
				}
				for j := i + 1; j < len(want); j++ {
					if (shapes[i] == shapes[j]) != (want[i] == want[j]) {
						t.Fatalf("case %d: claims %s and %s: shapes %d and %d, want same %v (%s, %s)", c, r.NodeClaims[i].Name, r.NodeClaims[j].Name, shapes[i], shapes[j], want[i] == want[j], want[i], want[j])
					}
					if want[i] == want[j] {
						pairs++
					}
				}
			}
		}
	}
	if pairs < cases {
		t.Errorf("only %d pairs of claims of one shape over %d cases", pairs, cases)
	}
	t.Logf("%d pairs of claims of one shape", pairs)
}

// wantShape is the claim's NodePool, launch and sorted pod requests.
func wantShape(t *testing.T, in scheduling.Input, c scheduling.NodeClaim) string {
	var requests []string
	for _, key := range c.Pods {
		i := slices.IndexFunc(in.Pods, func(p *corev1.Pod) bool {
			return p.Namespace+"/"+p.Name == key || "default/"+p.Name == key && p.Namespace == ""
		})
		if i < 0 {
			t.Fatalf("claim %s: no pod %s", c.Name, key)
		}
		v, err := resources.PodRequests(in.Pods[i])
		if err != nil {
			t.Fatal(err)
		}
		requests = append(requests, string(v.AppendKey(nil)))
	}
	slices.Sort(requests)
	return fmt.Sprintf("%q %q %q %q %q", c.NodePool, c.InstanceType, c.Zone, c.CapacityType, requests)
}
