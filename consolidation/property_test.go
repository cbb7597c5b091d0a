package consolidation

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// randomCluster is a small random cluster over Fake(20): two pools with
// random requirements and policies, nodes of random size, capacity type,
// zone, age and state, pods of random size with some zone and capacity-type
// selectors, pending pods.
func randomCluster(rng *rand.Rand) Cluster {
	pick := func(values ...string) string { return values[rng.IntN(len(values))] }
	var nps []*apis.NodePool
	for _, name := range []string{"a", "b"} {
		var opts []poolOption
		if rng.IntN(3) == 0 {
			opts = append(opts, withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, pick(apis.CapacityTypeSpot, apis.CapacityTypeOnDemand)))
		}
		if rng.IntN(3) == 0 {
			opts = append(opts, withRequirement("integer", corev1.NodeSelectorOpLt, fmt.Sprint(4+rng.IntN(12))))
		}
		opts = append(opts, withConsolidateAfter(pick("0s", "0s", "10m")), withPolicy(apis.ConsolidationPolicy(pick("WhenEmptyOrUnderutilized", "WhenEmptyOrUnderutilized", "WhenEmpty", "Balanced"))))
		opts = append(opts, withBudgets(apis.Budget{Nodes: pick("100%", "50%", "1")}))
		nps = append(nps, newPool(name, opts...))
	}
	c := Cluster{NodePools: pools(nps...)}
	for i := range 4 + rng.IntN(10) {
		var bound []*corev1.Pod
		cpus := 1 + rng.IntN(12)
		for j := range 1 + rng.IntN(6) {
			var opts []podOption
			switch rng.IntN(6) {
			case 0:
				opts = append(opts, withSelector(apis.LabelTopologyZone, pick("test-zone-1", "test-zone-2")))
			case 1:
				opts = append(opts, withSelector(apis.LabelCapacityType, pick(apis.CapacityTypeSpot, apis.CapacityTypeOnDemand)))
			}
			bound = append(bound, newPod(fmt.Sprintf("p-%d-%d", i, j), fmt.Sprintf("%dm", 100+rng.IntN(cpus*300)), opts...))
		}
		var opts []nodeOption
		switch rng.IntN(16) {
		case 0:
			opts = append(opts, uninitialized)
		case 1:
			opts = append(opts, deleting)
		case 2:
			if rng.IntN(4) == 0 {
				opts = append(opts, drifted(time.Duration(rng.IntN(100))*time.Minute))
			}
		case 3, 4:
			opts = append(opts, lastPodEvent(time.Duration(rng.IntN(20))*time.Minute))
		}
		n := newNode(fmt.Sprintf("n-%02d", i), pick("a", "b"), cpus, pick(apis.CapacityTypeSpot, apis.CapacityTypeOnDemand), bound, opts...)
		n.Node.Labels[apis.LabelTopologyZone] = pick("test-zone-1", "test-zone-2")
		c.Nodes = append(c.Nodes, n)
	}
	for i := range rng.IntN(3) {
		c.Pending = append(c.Pending, newPod(fmt.Sprintf("pending-%d", i), fmt.Sprintf("%dm", 100+rng.IntN(30000))))
	}
	return c
}

// The shortcuts of the simulations (left-out nodes, types narrowed to the
// candidates' price, answers without a solve) must decide exactly what
// plain solves over every node and type decide.
func TestShortcutsDecideAsPlainSolves(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 0))
	methods := map[string]int{}
	for i := range 1000 {
		c := randomCluster(rng)
		opts := Options{SpotToSpotConsolidation: i%2 == 0}
		fast := Evaluate(c, now, opts)
		e := newEvaluation(c, now, opts)
		e.exhaustive = true
		plain := evaluate(e)
		want, err := json.Marshal(plain.Commands)
		require.NoError(t, err)
		got, err := json.Marshal(fast.Commands)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(got), "cluster %d", i)
		for j := range plain.Candidates {
			require.Equal(t, plain.Candidates[j].Disruptable, fast.Candidates[j].Disruptable, "cluster %d", i)
		}
		if len(fast.Commands) > 0 {
			methods[fast.Commands[0].Method]++
		} else {
			methods["none"]++
		}
	}
	t.Logf("commands by method over 1000 clusters: %v", methods)
}
