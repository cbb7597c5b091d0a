package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

func TestPreparedSolvesEqualFreshOnes(t *testing.T) {
	pools := []Pool{pool(newPool("default")), pool(newPool("big", withWeight(5), withLimit(corev1.ResourceCPU, "30")))}
	daemons := []*corev1.Pod{daemonSet("logging", "100m", "64Mi")}
	p := Prepare(pools, daemons, Options{})
	busy := makeNode("node-b", "default", true, "8", "16Gi")
	busy.Pods = append(pods(3, "bound", "1", "1Gi"), daemonSet("logging", "100m", "64Mi"))
	for _, in := range []Input{
		{Pods: pods(12, "web", "700m", "1Gi"), Nodes: []*Node{busy, makeNode("node-a", "default", true, "4", "8Gi")}},
		{Pods: append(pods(40, "web", "700m", "1Gi"), pods(7, "db", "2", "6Gi")...), Nodes: []*Node{makeNode("node-a", "default", true, "4", "8Gi")}},
		{Pods: pods(6, "spread", "1", "1Gi", withLabels("app", "s"), withSpread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule))},
		{Pods: pods(30, "limited", "1", "1Gi")},
	} {
		want := Solve(Input{Pods: in.Pods, Nodes: in.Nodes, NodePools: pools, DaemonSets: daemons})
		assert.Equal(t, want, p.Solve(in))
		assert.Equal(t, want, p.Solve(in), "a second solve starts from the same state: limits and claim names are per solve")
		remembering := Prepare(pools, daemons, Options{})
		remembering.RememberNodes()
		assert.Equal(t, want, remembering.Solve(in))
		assert.Equal(t, want, remembering.Solve(in), "remembered nodes solve alike")
	}
}

// A preparation solves with other options as a fresh solve with them
// does, sharing what it compiled and the nodes it remembers.
func TestPreparedWithOptionsSolvesAsFreshOnes(t *testing.T) {
	pools := []Pool{pool(newPool("default")), pool(newPool("big", withWeight(5), withLimit(corev1.ResourceCPU, "30")))}
	daemons := []*corev1.Pod{daemonSet("logging", "100m", "64Mi")}
	p := Prepare(pools, daemons, Options{})
	p.RememberNodes()
	in := Input{Pods: append(pods(40, "web", "700m", "1Gi"), pods(7, "db", "2", "6Gi")...), Nodes: []*Node{makeNode("node-a", "default", true, "4", "8Gi")}}
	for _, opts := range []Options{{Packing: PackCheapest}, {Packing: PackEfficient}, {Packing: PackBalanced}, {Packing: PackBalanced, StopAbovePrice: 1}, {Packing: PackCheapest, StopAbovePrice: 1}, {}} {
		want := Solve(Input{Pods: in.Pods, Nodes: in.Nodes, NodePools: pools, DaemonSets: daemons, Options: opts})
		assert.Equal(t, want, p.WithOptions(opts).Solve(in), "%+v", opts)
	}
	assert.Equal(t, Solve(Input{Pods: in.Pods, Nodes: in.Nodes, NodePools: pools, DaemonSets: daemons}), p.Solve(in), "p keeps its own options")
}

func TestRememberNodesReadsEachNodeOnce(t *testing.T) {
	pools := []Pool{pool(newPool("default"))}
	p := Prepare(pools, nil, Options{})
	p.RememberNodes()
	node := makeNode("node-a", "default", true, "4", "8Gi")
	node.Labels["team"] = "a"
	in := Input{Pods: pods(2, "web", "1", "1Gi", withNodeSelector("team", "a")), Nodes: []*Node{node}}
	first := p.Solve(in)
	assert.Len(t, first.Bindings, 2)
	// The same *Node with other labels is not read again (the documented
	// contract); a new *Node is.
	node.Labels["team"] = "b"
	assert.Len(t, p.Solve(in).Bindings, 2)
	changed := makeNode("node-a", "default", true, "4", "8Gi")
	changed.Labels["team"] = "b"
	assert.Empty(t, p.Solve(Input{Pods: in.Pods, Nodes: []*Node{changed}}).Bindings)
}

func TestSolveBelowOffersOnlyCheaperTypes(t *testing.T) {
	np := newPool("default")
	p := Prepare([]Pool{pool(np)}, nil, Options{})
	in := Input{Pods: pods(3, "web", "1", "1Gi")}
	// fake-it-(k-1) costs 0.3147483648·k: below 2.0 are the first six.
	got, narrowed := p.SolveBelow(in, 2.0)
	assert.True(t, narrowed)
	cheap := Solve(Input{Pods: in.Pods, NodePools: []Pool{{NodePool: np, InstanceTypes: instancetypes.Fake(6)}}})
	assert.Equal(t, cheap.NodeClaims[0].InstanceTypeOptions, got.NodeClaims[0].InstanceTypeOptions)

	all, narrowed := p.SolveBelow(in, 0.1)
	assert.False(t, narrowed, "no type below: all are kept")
	assert.Equal(t, Solve(Input{Pods: in.Pods, NodePools: []Pool{pool(np)}}), all)
}
