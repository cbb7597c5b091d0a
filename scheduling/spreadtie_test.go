package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// A zone spread's tie between equally loaded zones is broken at random in
// Karpenter, so over the open claims it tries in turn it nearly always
// draws the one zone another workload's anti-affinity leaves the pod, and
// joins an open claim there. Taking the first tied zone by name on every
// claim would be refused on each, and open a claim in the pool that allows
// only the free zone (differential seed 5988's class).
func TestSpreadTieTakesAZoneTheOtherGroupsAllow(t *testing.T) {
	guard := func(name, zone string) *Node {
		n := makeNode(name, "", true, "200m", "256Mi", newPod(name+"-guard", "100m", "128Mi",
			withLabels("app", "guard"), withPodAntiAffinity(apis.LabelTopologyZone, "web")))
		n.Labels[apis.LabelTopologyZone] = zone
		return n
	}
	wide := pool(newPool("wide", withWeight(10)))
	narrow := pool(newPool("narrow", withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-3")))
	filler := pods(3, "filler", "1", "1Gi", withLabels("app", "filler"), withPodAntiAffinity(apis.LabelHostname, "filler"))
	web := newPod("web", "100m", "128Mi", withLabels("app", "web"), withSpread(apis.LabelTopologyZone, 1, corev1.ScheduleAnyway))
	r := Solve(Input{
		Pods:      append(filler, web),
		Nodes:     []*Node{guard("guard-1", "test-zone-1"), guard("guard-2", "test-zone-2")},
		NodePools: []Pool{wide, narrow},
	})
	require.Empty(t, r.Unschedulable)
	require.Len(t, r.NodeClaims, 3, "the web pod joins an open claim: %v", claimsByType(r))
	for _, c := range r.NodeClaims {
		assert.Equal(t, "wide", c.NodePool)
		if len(c.Pods) == 2 {
			assert.Equal(t, "test-zone-3", c.Zone, "the one zone the guards' anti-affinity leaves web")
		}
	}
}
