package consolidation

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// eightUnderused is eight 4-CPU on-demand nodes holding a 100m pod each:
// multi-node consolidation's search proves prefixes of 5, 7 and 8 nodes in
// turn, each replaced by one small node.
func eightUnderused() Cluster {
	c := Cluster{NodePools: pools(newPool("default"))}
	for i := range 8 {
		name := fmt.Sprintf("n-%d", i)
		c.Nodes = append(c.Nodes, newNode(name, "default", 4, "on-demand", []*corev1.Pod{newPod("p-"+name, "100m")}))
	}
	return c
}

func TestMultiNodeTimeoutKeepsTheLastProvenCommand(t *testing.T) {
	c := eightUnderused()
	whole := Evaluate(c, now, Options{})
	require.Len(t, whole.Commands, 1)
	require.Equal(t, MethodMultiNode, whole.Commands[0].Method)
	require.Len(t, whole.Commands[0].Delete, 8)

	// A budget no simulation reaches changes nothing.
	same := Evaluate(c, now, Options{Timeouts: &Timeouts{SimulationCost: time.Second}})
	require.Equal(t, whole, same)

	// Two simulations of 30s spend the one-minute budget: the search stops
	// with the 7-node prefix it proved second.
	cut := Evaluate(c, now, Options{Timeouts: &Timeouts{SimulationCost: 30 * time.Second}})
	require.Len(t, cut.Commands, 1)
	require.Equal(t, MethodMultiNode, cut.Commands[0].Method)
	require.Equal(t, whole.Commands[0].Delete[:7], cut.Commands[0].Delete)
	require.Contains(t, verdict(t, cut, "n-7").Reason, "multi-node: stopped at its 1m0s timeout after 2 simulations")

	// A spent budget proves nothing; single-node consolidation goes on.
	none := Evaluate(c, now, Options{Timeouts: &Timeouts{MultiNode: -time.Second}})
	require.Len(t, none.Commands, 1)
	require.Equal(t, MethodSingleNode, none.Commands[0].Method)
}

func TestSingleNodeTimeoutRemembersUnreachedPools(t *testing.T) {
	c := Cluster{NodePools: pools(newPool("a"), newPool("b"), newPool("c"))}
	// One node per pool, each a 4-CPU node whose 3-CPU pod has no cheaper
	// home: single-node consolidation simulates each and finds nothing.
	for _, pool := range []string{"a", "b", "c"} {
		c.Nodes = append(c.Nodes, newNode("n-"+pool, pool, 4, "on-demand", []*corev1.Pod{newPod("p-"+pool, "3")}))
	}
	d := Evaluate(c, now, Options{Timeouts: &Timeouts{SimulationCost: time.Minute, MultiNode: -time.Second}})
	requireNoCommand(t, d)
	require.Empty(t, d.TimedOutNodePools, "three simulations of a minute do not pass three minutes")

	d = Evaluate(c, now, Options{Timeouts: &Timeouts{SimulationCost: 2 * time.Minute, MultiNode: -time.Second}})
	requireNoCommand(t, d)
	require.Equal(t, []string{"c"}, d.TimedOutNodePools, "two simulations of two minutes pass three")
	require.Contains(t, verdict(t, d, "n-c").Reason, "single-node: not reached before its 3m0s timeout (2 simulations)")

	// The next pass starts with the pool it did not reach.
	next := Evaluate(c, now, Options{Timeouts: &Timeouts{SimulationCost: 2 * time.Minute, MultiNode: -time.Second},
		TimedOutNodePools: d.TimedOutNodePools})
	require.Equal(t, []string{"b"}, next.TimedOutNodePools, "c and a are reached, b is not")

	// A pass whose single-node consolidation stops nowhere forgets them;
	// the caller's slice is kept.
	given := []string{"c", "a"}
	done := Evaluate(c, now, Options{Timeouts: &Timeouts{MultiNode: -time.Second}, TimedOutNodePools: given})
	requireNoCommand(t, done)
	require.Empty(t, done.TimedOutNodePools)
	require.Equal(t, []string{"c", "a"}, given)

	// A pass that acts before single-node consolidation keeps them, sorted.
	merged := Evaluate(c, now, Options{TimedOutNodePools: given})
	require.Equal(t, MethodMultiNode, merged.Commands[0].Method)
	require.Equal(t, []string{"a", "c"}, merged.TimedOutNodePools)
}

func TestClockSaturates(t *testing.T) {
	c := &clock{on: true, cost: time.Duration(1 << 62), budget: time.Hour}
	for range 4 {
		c.tick()
	}
	require.True(t, c.past())
	require.Equal(t, time.Duration(1<<62), c.spent)
}
