package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
)

// A claim remembers the requirements of a pod it was already narrower
// than (claim.absorbed) by the pod's set and its own: a later pod of
// another set, here another zone, is weighed afresh and refused, though
// the claim's set is the one it remembered.
func TestClaimAbsorbedKeysOnThePodsRequirements(t *testing.T) {
	zoneA := withNodeSelector(apis.LabelTopologyZone, "test-zone-1")
	in := Input{
		Pods:      append(pods(2, "a", "1", "1Gi", zoneA), newPod("b", "500m", "512Mi", withNodeSelector(apis.LabelTopologyZone, "test-zone-2"))),
		NodePools: []Pool{pool(newPool("default"))},
	}
	r := Solve(in)
	require.Empty(t, r.Unschedulable)
	require.Len(t, r.NodeClaims, 2, "%v", claimsByType(r))
	zones := map[string]string{}
	for _, c := range r.NodeClaims {
		for _, p := range c.Pods {
			zones[p] = c.Zone
		}
	}
	assert.Equal(t, map[string]string{"default/a-0": "test-zone-1", "default/a-1": "test-zone-1", "default/b": "test-zone-2"}, zones)
}
