package controller

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

// The loop remembers the NodePools single-node consolidation ran out of
// time on and hands them to the next evaluation, as Karpenter's controller
// keeps them between passes: the three pools' candidates, which no
// simulation can disrupt, are reached in turn.
func TestTimedOutNodePoolsCarryToTheNextEvaluation(t *testing.T) {
	set, err := manifests.Load("../testdata/disrupt/single-node-timeout/input.yaml")
	require.NoError(t, err)
	at := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	d, err := snapshot.ForDisruption(set, snapshot.Options{}, at)
	require.NoError(t, err)
	opts := consolidation.Options{Timeouts: &consolidation.Timeouts{SimulationCost: 2 * time.Minute}}
	c := &Controller{}
	var got [][]string
	for range 4 {
		got = append(got, c.evaluate(d.Cluster, opts, at).TimedOutNodePools)
	}
	// Two simulations fit in the budget. team-a and team-b are reached
	// first; then team-c first, and team-a (the others keep their order);
	// then team-b first, and team-a; and so on.
	require.Equal(t, [][]string{{"team-c"}, {"team-b"}, {"team-c"}, {"team-b"}}, got)

	// A caller's own list wins over the loop's memory.
	opts.TimedOutNodePools = []string{"team-a"}
	require.Equal(t, []string{"team-c"}, c.evaluate(d.Cluster, opts, at).TimedOutNodePools)
}
