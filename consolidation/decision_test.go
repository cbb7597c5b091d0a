package consolidation

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
)

// mixedCluster exercises every method: drifted, empty, blocked and
// underutilized nodes in two pools, pending pods and a PDB.
func mixedCluster() Cluster {
	one := intstr.FromInt32(1)
	nodes := []*Node{
		newNode("a-empty", "general", 4, apis.CapacityTypeOnDemand, nil, lastPodEvent(time.Minute)),
		newNode("a-busy", "general", 8, apis.CapacityTypeOnDemand, pods(3, "a", "1")),
		newNode("a-small", "general", 2, apis.CapacityTypeOnDemand, pods(1, "s", "500m")),
		newNode("a-pdb", "general", 2, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("guarded", "500m", withLabel("app", "guarded"))}),
		newNode("b-drifted", "spot", 4, apis.CapacityTypeSpot, pods(2, "b", "1"), drifted(time.Hour)),
		newNode("b-spot", "spot", 8, apis.CapacityTypeSpot, pods(2, "c", "1")),
		newNode("b-fresh", "spot", 4, apis.CapacityTypeSpot, nil, uninitialized),
	}
	return Cluster{
		Nodes:     nodes,
		Pending:   []*corev1.Pod{newPod("pending", "2")},
		NodePools: pools(newPool("general", withConsolidateAfter("5m")), newPool("spot", withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, "spot"))),
		PDBs:      []*policyv1.PodDisruptionBudget{newPDB("guarded", &one, nil, map[string]string{"app": "guarded"})},
	}
}

func TestEvaluateIsDeterministic(t *testing.T) {
	want, err := json.Marshal(Evaluate(mixedCluster(), now, Options{SpotToSpotConsolidation: true}))
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(7, 0))
	for range 20 {
		c := mixedCluster()
		rng.Shuffle(len(c.Nodes), func(i, j int) { c.Nodes[i], c.Nodes[j] = c.Nodes[j], c.Nodes[i] })
		slices.Reverse(c.NodePools)
		got, err := json.Marshal(Evaluate(c, now, Options{SpotToSpotConsolidation: true}))
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(got))
	}
}

func TestEvaluateDoesNotChangeItsInput(t *testing.T) {
	c := mixedCluster()
	Evaluate(c, now, Options{SpotToSpotConsolidation: true})
	// Every method ran: the drifted node's pods were simulated, and so on.
	c2 := mixedCluster()
	c.Nodes[0].LastPodEventAt = now.Add(-time.Hour) // let emptiness act too
	c2.Nodes[0].LastPodEventAt = now.Add(-time.Hour)
	Evaluate(c, now, Options{})
	assert.Equal(t, c2, c)
}

func TestDecisionMarshalsWithTheDocumentedShape(t *testing.T) {
	d := Evaluate(mixedCluster(), now, Options{})
	data, err := json.Marshal(d)
	require.NoError(t, err)
	var shape struct {
		Commands   []map[string]json.RawMessage `json:"commands"`
		Candidates []map[string]json.RawMessage `json:"candidates"`
	}
	require.NoError(t, json.Unmarshal(data, &shape))
	require.NotEmpty(t, shape.Commands)
	assert.ElementsMatch(t, []string{"method", "reason", "delete", "replacements", "moves", "savingsPerHour"}, keys(shape.Commands[0]))
	assert.ElementsMatch(t, []string{"node", "nodePool", "disruptable", "reason"}, keys(shape.Candidates[0]))
	assert.Len(t, shape.Candidates, 7)

	empty, err := json.Marshal(Evaluate(Cluster{}, now, Options{}))
	require.NoError(t, err)
	assert.JSONEq(t, `{"commands": [], "candidates": []}`, string(empty))
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// The mixed cluster, verdict by verdict: drift acts first (nothing is
// empty long enough), and every other node says why it is left alone.
func TestEveryNodeGetsAVerdict(t *testing.T) {
	d := Evaluate(mixedCluster(), now, Options{})
	assert.Equal(t, []string{"drift delete=[b-drifted] replace=[]"}, summary(d))
	got := map[string]string{}
	for _, v := range d.Candidates {
		got[v.Node] = v.Reason
	}
	assert.Equal(t, map[string]string{
		"a-busy":    "not evaluated: drift found a command first",
		"a-empty":   "consolidateAfter 5m not elapsed (4m0s left)",
		"a-pdb":     "blocked by PDB default/guarded (0 disruptions allowed) of pod default/guarded",
		"a-small":   "not evaluated: drift found a command first",
		"b-drifted": "drift: drifted (NodePoolDrifted), deleted, its pods fit on other nodes",
		"b-fresh":   "not initialized",
		"b-spot":    "not evaluated: drift found a command first",
	}, got)
}
