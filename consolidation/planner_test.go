package consolidation

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

// karpenterPlanner plans as Karpenter's scheduler does; cheapestPlanner
// packs each pod where it adds least to the price.
func karpenterPlanner(in scheduling.Input) (scheduling.Result, error) {
	return scheduling.Solve(in), nil
}

func cheapestPlanner(in scheduling.Input) (scheduling.Result, error) {
	in.Options.Packing = scheduling.PackCheapest
	return scheduling.Solve(in), nil
}

// discounted is Fake(20) with the 2-CPU type at a tenth of its price.
func discounted() instancetypes.Catalog {
	out := slices.Clone(fake)
	for i, it := range out {
		if it.Name == "fake-it-1" {
			cheap := *it
			cheap.Offerings = slices.Clone(it.Offerings)
			for j := range cheap.Offerings {
				cheap.Offerings[j].Price /= 10
			}
			out[i] = &cheap
		}
	}
	return out
}

// The pool allows types of at most 5 CPUs, 8 and 10. Nodes of 10 and 9
// CPUs each run a 5-CPU and a 2.5-CPU pod: no new node takes all four, so
// Karpenter's multi-node consolidation does nothing and its single-node
// consolidation replaces the dearer node by an 8-CPU one. With a planner
// multi-node consolidation replaces both by two 8-CPU nodes. Each keeps
// the types whose worst launch price is below its floor (its cheapest
// type's) plus half of what the floors leave of the candidates' price,
// 9.5 CPUs' worth: not the 10-CPU type, which one replacement alone could
// have kept.
func TestAPlannerLetsTwoNodesBeReplacedByTwo(t *testing.T) {
	a := newNode("a", "default", 10, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("a-big", "5"), newPod("a-small", "2500m")})
	b := newNode("b", "default", 9, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("b-big", "5"), newPod("b-small", "2500m")})
	np := newPool("default", withRequirement("integer", corev1.NodeSelectorOpIn, "1", "2", "3", "4", "5", "8", "10"))
	c := Cluster{Nodes: []*Node{a, b}, NodePools: pools(np)}
	assert.Equal(t, []string{"single-node-consolidation delete=[a] replace=[fake-it-7 spot]"}, summary(Evaluate(c, now, Options{})))
	e := newEvaluation(c, now, Options{})
	_, why := e.consolidate(MethodMultiNode, e.nodes)
	assert.Equal(t, "no replacement cheaper than $5.9802/h: 4 pods fit on no other node, and on no single cheaper new node together", why)

	d := Evaluate(c, now, Options{Planner: karpenterPlanner})
	require.Len(t, d.Commands, 1, "verdicts: %v", d.Candidates)
	cmd := d.Commands[0]
	assert.Equal(t, []string{"multi-node-consolidation delete=[a b] replace=[fake-it-7 spot, fake-it-7 spot]"}, summary(d))
	for _, r := range cmd.Replacements {
		assert.Equal(t, []string{"fake-it-7"}, r.InstanceTypeOptions)
	}
	assert.InDelta(t, price(3), cmd.SavingsPerHour, 1e-6)
	assert.Equal(t, "Underutilized/replace: 2 nodes ($5.9802/h) by 2 new nodes ($5.0360/h): spot fake-it-7, spot fake-it-7", cmd.Reason)
	assert.Len(t, cmd.Moves, 4)
	assertLaunchesCheaper(t, c, cmd)
}

// With a planner a consolidation still launches no more nodes than it
// deletes: an 11-CPU node whose two 3-CPU pods need two 5-CPU nodes stays.
func TestAPlannerLaunchesNoMoreNodesThanItDeletes(t *testing.T) {
	n := newNode("big", "default", 11, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("a", "3"), newPod("b", "3")})
	np := newPool("default", withRequirement("integer", corev1.NodeSelectorOpIn, "1", "2", "3", "4", "5"))
	d := Evaluate(Cluster{Nodes: []*Node{n}, NodePools: pools(np)}, now, Options{Planner: karpenterPlanner})
	requireNoCommand(t, d)
	assert.Equal(t, "single-node: no replacement cheaper than $3.4622/h: 2 pods fit on no other node, and on no single cheaper new node together", verdict(t, d, "big").Reason)
}

// Two new nodes that cost as much as the two candidates are no
// replacement.
func TestReplacementsTogetherMustBeCheaper(t *testing.T) {
	a := newNode("a", "default", 4, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("a", "3")})
	b := newNode("b", "default", 4, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("b", "3")})
	np := newPool("default", withRequirement("integer", corev1.NodeSelectorOpIn, "1", "2", "3", "4"))
	e := newEvaluation(Cluster{Nodes: []*Node{a, b}, NodePools: pools(np)}, now, Options{Planner: karpenterPlanner})
	_, why := e.consolidate(MethodMultiNode, e.nodes)
	assert.Equal(t, "replacement 1 of 2: would replace 2 nodes with one of the same type: replacement not cheaper: $1.2590 (fake-it-3 at its worst launch price) vs $1.2590", why)
}

// Karpenter's scheduler puts the 1.5-CPU pods of two full 3-CPU nodes on
// one 4-CPU claim; where 2-CPU nodes cost a tenth, the planner's two of
// them are cheaper, and the command with the larger saving is the
// planner's.
func TestThePlannersCheaperReplacementWins(t *testing.T) {
	a := newNode("a", "default", 3, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("a", "1500m")})
	b := newNode("b", "default", 3, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("b", "1500m")})
	c := Cluster{Nodes: []*Node{a, b}, NodePools: []scheduling.Pool{{NodePool: newPool("default"), InstanceTypes: discounted()}}}
	karpenter := Evaluate(c, now, Options{})
	assert.Equal(t, []string{"multi-node-consolidation delete=[a b] replace=[fake-it-3 spot]"}, summary(karpenter))

	d := Evaluate(c, now, Options{Planner: cheapestPlanner})
	assert.Equal(t, []string{"multi-node-consolidation delete=[a b] replace=[fake-it-1 spot, fake-it-1 spot]"}, summary(d))
	cmd := d.Commands[0]
	assert.Greater(t, cmd.SavingsPerHour, karpenter.Commands[0].SavingsPerHour)
	assert.Contains(t, cmd.Reason, "(as the planner places the pods)")
	assertLaunchesCheaper(t, c, cmd)

	// A planner that plans as Karpenter's scheduler changes nothing where
	// one replacement does.
	assert.Equal(t, karpenter, Evaluate(c, now, Options{Planner: karpenterPlanner}))
}

// A failing planner leaves Karpenter's command; so does one that leaves a
// pending pod without the place Karpenter's plan gives it (it would
// consolidate away the room a CapacityBuffer's virtual pod holds, for
// provisioning to launch again).
func TestAPlannerThatFailsOrDropsAPendingPodIsIgnored(t *testing.T) {
	n := newNode("n", "default", 8, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("web", "1")})
	pending := newPod("pending", "1")
	c := Cluster{Nodes: []*Node{n}, NodePools: pools(newPool("default")), Pending: []*corev1.Pod{pending}}
	karpenter := Evaluate(c, now, Options{})
	assert.Equal(t, []string{"single-node-consolidation delete=[n] replace=[fake-it-2 spot]"}, summary(karpenter))

	failing := func(scheduling.Input) (scheduling.Result, error) {
		return scheduling.Result{}, errors.New("out of ideas")
	}
	dropping := func(in scheduling.Input) (scheduling.Result, error) {
		in.Pods = slices.DeleteFunc(slices.Clone(in.Pods), func(p *corev1.Pod) bool { return p.Name == "pending" })
		r := scheduling.Solve(in)
		r.Unschedulable = append(r.Unschedulable, scheduling.Unschedulable{Pod: "default/pending", Reason: "left out"})
		return r, nil
	}
	for name, planner := range map[string]func(scheduling.Input) (scheduling.Result, error){"failing": failing, "dropping": dropping} {
		assert.Equal(t, karpenter, Evaluate(c, now, Options{Planner: planner}), name)
	}
}

// Over random clusters a planner's commands are the same for the same
// input, give every pod of the deleted nodes a place, and launch
// replacements that cost less than the candidates whatever types they
// launch.
func TestPlannedCommandsKeepThePriceRule(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	several := 0
	for i := range 400 {
		c := randomCluster(rng)
		opts := Options{SpotToSpotConsolidation: i%2 == 0, Planner: cheapestPlanner}
		d := Evaluate(c, now, opts)
		again, err := json.Marshal(Evaluate(c, now, opts))
		require.NoError(t, err)
		first, err := json.Marshal(d)
		require.NoError(t, err)
		require.JSONEq(t, string(first), string(again), "cluster %d", i)
		for _, cmd := range d.Commands {
			if cmd.Method != MethodMultiNode && cmd.Method != MethodSingleNode {
				continue
			}
			if len(cmd.Replacements) > 1 {
				several++
			}
			assertLaunchesCheaper(t, c, cmd)
			moved := map[string]bool{}
			for _, m := range cmd.Moves {
				moved[m.Pod] = true
			}
			for _, n := range c.Nodes {
				if slices.Contains(cmd.Delete, n.Node.Name) {
					for _, p := range n.Node.Pods {
						assert.True(t, moved[apis.PodKey(p)], "cluster %d: %s of %s has no move", i, apis.PodKey(p), n.Node.Name)
					}
				}
			}
		}
	}
	t.Logf("%d commands with several replacements", several)
	assert.Positive(t, several, "some commands launch several replacements")
}

// assertLaunchesCheaper checks that the replacements, each launching the
// dearest of its types at its worst launch price, cost less than the nodes
// the command deletes.
func assertLaunchesCheaper(t *testing.T, c Cluster, cmd Command) {
	t.Helper()
	if len(cmd.Replacements) == 0 {
		return
	}
	catalogs := map[string]instancetypes.Catalog{}
	for _, p := range c.NodePools {
		catalogs[p.NodePool.Name] = p.InstanceTypes
	}
	source := 0.0
	for _, n := range c.Nodes {
		if slices.Contains(cmd.Delete, n.Node.Name) {
			it, ok := catalogs[n.Node.NodePool].Get(n.Node.Labels[apis.LabelInstanceType])
			require.True(t, ok)
			p, ok := it.NodePrice(n.Node.Labels)
			require.True(t, ok)
			source += p
		}
	}
	worst := 0.0
	for _, r := range cmd.Replacements {
		reqs, err := requirements.FromNodeSelectorRequirements(r.Requirements...)
		require.NoError(t, err)
		dearest := 0.0
		for _, name := range r.InstanceTypeOptions {
			it, ok := catalogs[r.NodePool].Get(name)
			require.True(t, ok)
			dearest = max(dearest, worstLaunchPrice(it, reqs))
		}
		worst += dearest
	}
	assert.Less(t, worst, source, fmt.Sprintf("%s: %v", cmd.Reason, cmd.Replacements))
}
