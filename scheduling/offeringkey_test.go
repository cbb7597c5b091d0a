package scheduling

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// Claims whose zone requirements differ only past their fifth value are
// priced apart: each launches in a zone it allows, where it would launch
// alone.
func TestClaimsPricedByTheirExactZones(t *testing.T) {
	zones := []string{"z1", "z2", "z3", "z4", "z5", "z6", "z7"}
	catalog, err := instancetypes.NewAWS(instancetypes.EmbeddedFacts(), instancetypes.AWSOptions{Region: "us-east-1", Zones: zones})
	if err != nil {
		t.Fatal(err)
	}
	pools := []Pool{{NodePool: newPool("default"), InstanceTypes: catalog}}
	zoned := func(name string, allowed []string) *corev1.Pod {
		return newPod(name, "1", "1Gi", withLabels("app", "web"), withPodAntiAffinity(apis.LabelHostname, "web"),
			withRequiredTerms(corev1.NodeSelectorRequirement{Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: allowed}))
	}
	alone := func(p *corev1.Pod) string {
		r := Solve(Input{Pods: []*corev1.Pod{p}, NodePools: pools})
		if len(r.NodeClaims) != 1 {
			t.Fatalf("pod %s alone: %d claims", p.Name, len(r.NodeClaims))
		}
		return r.NodeClaims[0].Zone
	}
	// Every pair of 6-zone sets sharing z1..z4 and one more.
	for _, x := range []string{"z5", "z6", "z7"} {
		for _, y := range []string{"z5", "z6", "z7"} {
			if x == y {
				continue
			}
			restX := slices.DeleteFunc(slices.Clone(zones), func(z string) bool { return z == x })
			restY := slices.DeleteFunc(slices.Clone(zones), func(z string) bool { return z == y })
			a, b := zoned("a", restX), zoned("b", restY)
			r := Solve(Input{Pods: []*corev1.Pod{a, b}, NodePools: pools})
			want := map[string]string{"default/a": alone(a), "default/b": alone(b)}
			for _, c := range r.NodeClaims {
				if len(c.Pods) != 1 {
					t.Fatalf("claim %s holds %v", c.Name, c.Pods)
				}
				if got := c.Zone; got != want[c.Pods[0]] {
					t.Errorf("%s: pod %s launches in %s, alone in %s", fmt.Sprint(x, "/", y), c.Pods[0], got, want[c.Pods[0]])
				}
			}
		}
	}
}
