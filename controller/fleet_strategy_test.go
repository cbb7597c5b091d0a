package controller_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
)

// TestSpotLaunchTakesTheDeepestPool leaves the scheduler's spot offering a
// pool of one instance while the others are unlimited: the fleet
// (price-capacity-optimized) launches from the cheapest unlimited pool in
// the same call, reports nothing unavailable (the shallow pool had
// capacity), and the node is what launched.
func TestSpotLaunchTakesTheDeepestPool(t *testing.T) {
	probe := newWorld(t, 10)
	probe.run(10 * time.Second)
	req := probe.cloud.Calls()[0].Request
	require.NotNil(t, req)
	require.Equal(t, apis.CapacityTypeSpot, req.CapacityType, "the default NodePool launches spot")
	require.Greater(t, len(req.Overrides), 1)
	first := req.Overrides[0]

	w := newWorld(t, 10)
	w.cloud.SetCapacity(cloud.OfferingKey{InstanceType: first.InstanceType, Zone: first.Zone, CapacityType: first.CapacityType}, 1)
	w.run(2 * time.Minute)
	require.Equal(t, "launch ready", w.kinds())
	insts := w.cloud.Instances()
	require.Len(t, insts, 1)
	got := insts[0]
	next := req.Overrides[1]
	assert.Equal(t, []string{next.InstanceType, next.Zone}, []string{got.InstanceType, got.Zone}, "the cheapest unlimited pool")
	assert.Empty(t, got.Unavailable, "the shallow pool had capacity")
	st := w.cluster.Snapshot()
	require.Len(t, st.Nodes, 1)
	assert.Equal(t, got.InstanceType, st.Nodes[0].Labels[apis.LabelInstanceType])
	assert.Equal(t, got.Zone, st.Nodes[0].Labels[apis.LabelTopologyZone])
}
