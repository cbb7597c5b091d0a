package controller_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
)

// TestLaunchFallsThroughItsOverridesInOneCall takes away the capacity of
// the offering Karpenter's plan picks: the one CreateFleet-like call moves
// on to the next override, the refused offering is marked unavailable, and
// the node is the type that launched.
func TestLaunchFallsThroughItsOverridesInOneCall(t *testing.T) {
	probe := newWorld(t, 10)
	probe.run(10 * time.Second)
	calls := probe.cloud.Calls()
	require.NotEmpty(t, calls)
	req := calls[0].Request
	require.NotNil(t, req)
	require.Greater(t, len(req.Overrides), 1, "the request offers the fleet more than one offering")
	first := req.Overrides[0]
	assert.Equal(t, cloud.Override{InstanceType: req.InstanceType, Zone: req.Zone, CapacityType: req.CapacityType, PricePerHour: req.PricePerHour},
		first, "the scheduler's choice goes first")
	for i := 1; i < len(req.Overrides); i++ {
		assert.LessOrEqual(t, req.Overrides[i-1].PricePerHour, req.Overrides[i].PricePerHour, "cheapest first")
		assert.Equal(t, req.CapacityType, req.Overrides[i].CapacityType)
	}

	w := newWorld(t, 10)
	w.cloud.SetCapacity(cloud.OfferingKey{InstanceType: first.InstanceType, Zone: first.Zone, CapacityType: first.CapacityType}, 0)
	w.run(2 * time.Minute)
	creates := 0
	for _, c := range w.cloud.Calls() {
		if c.Op == "create" {
			creates++
		}
	}
	assert.Equal(t, 1, creates, "one call for the claim")
	assert.Equal(t, "launch ready", w.kinds(), "no failed launch")
	insts := w.cloud.Instances()
	require.Len(t, insts, 1)
	got := insts[0]
	next := req.Overrides[1]
	assert.Equal(t, []string{next.InstanceType, next.Zone}, []string{got.InstanceType, got.Zone}, "the next override launched")
	assert.Equal(t, []cloud.OfferingKey{{InstanceType: first.InstanceType, Zone: first.Zone, CapacityType: first.CapacityType}}, got.Unavailable)
	assert.Equal(t, got.InstanceType, w.log[0].InstanceType, "the launch decision names what launched")
	st := w.cluster.Snapshot()
	require.Len(t, st.Nodes, 1)
	assert.Equal(t, got.InstanceType, st.Nodes[0].Labels[apis.LabelInstanceType], "the node is the type launched")
	assert.Equal(t, got.Zone, st.Nodes[0].Labels[apis.LabelTopologyZone])
}
