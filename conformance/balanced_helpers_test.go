package conformance

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
)

// Upstream unit-tests the Balanced policy's helpers (pool totals, the
// price of a candidate, the score, the approval of a command) on
// hand-made candidates. karpsim's helpers are internal to package
// consolidation but for BalancedScore; the other specs are translated as
// whole evaluations whose outcome depends on what the helper computes.

// bnode is a node of a Balanced case: the on-demand price of its own
// instance type (unknown to the NodePool's catalog when unknown is set, so
// that it is priced 0), its pods (pinned to it by hostname, or free to move
// to any node with room: every node has 8 CPUs and the pods ask 10m), and
// whether it carries do-not-disrupt.
type bnode struct {
	name, pool           string
	price                float64
	pods                 int
	pinned, dnd, unknown bool
}

// scoringCluster builds the nodes in NodePools of the given policies,
// each allowing only an instance type that does not exist, so that every
// command is a deletion.
func scoringCluster(pools map[string]apis.ConsolidationPolicy, ns ...bnode) *cluster {
	var types, unknown []*instancetypes.InstanceType
	for _, n := range ns {
		it := withPodsCapacity(customType("t-"+n.name, 8, offering("test-zone-1", apis.CapacityTypeOnDemand, n.price, true)), 110)
		if n.unknown {
			unknown = append(unknown, it)
		} else {
			types = append(types, it)
		}
	}
	catalog := mustCatalog(types...)
	all := mustCatalog(append(types, unknown...)...)
	c := &cluster{}
	for _, name := range slices.Sorted(maps.Keys(pools)) {
		c.poolWith(nodePool(name, policy(pools[name]), budgets(nodes("100%")), func(np *apis.NodePool) {
			np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
				{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"none"}}}
		}), catalog)
	}
	for _, n := range ns {
		var pods []*corev1.Pod
		for i := range n.pods {
			var opts []podOption
			if n.pinned {
				opts = append(opts, withSelector(apis.LabelHostname, n.name))
			}
			pods = append(pods, pod(fmt.Sprintf("%s-%d", n.name, i), "10m", opts...))
		}
		opts := []nodeOption{withPods(pods...), podCapacity("110")}
		if n.dnd {
			opts = append(opts, nodeAnnotation(apis.AnnotationDoNotDisrupt, "true"))
		}
		c.node(managedNodeOf(all, n.name, n.pool, "t-"+n.name, opts...))
	}
	return c
}

var onlyBalanced = map[string]apis.ConsolidationPolicy{"balanced": apis.ConsolidationPolicyBalanced}

// pinned is n nodes of a pool at a price, each with one pod pinned to it.
func pinnedNodes(prefix, pool string, n int, price float64, extra ...func(*bnode)) []bnode {
	out := make([]bnode, n)
	for i := range out {
		out[i] = bnode{name: fmt.Sprintf("%s-%d", prefix, i), pool: pool, price: price, pods: 1, pinned: true}
		for _, e := range extra {
			e(&out[i])
		}
	}
	return out
}

func doNotDisrupt(n *bnode) { n.dnd = true }

func scoreCase(name string, savings, disruption, cost, totalDisruption float64, approved, inf bool) conformanceCase {
	return conformanceCase{Name: name, Run: func(t *T) {
		s := consolidation.BalancedScore(savings, disruption, cost, totalDisruption)
		require.Equal(t, approved, s >= consolidation.BalancedThreshold, "score %v", s)
		require.Equal(t, inf, math.IsInf(s, 1), "score %v", s)
	}}
}

var _ = register("balanced",
	// balanced_test.go: the score's edge cases, on upstream's example pool
	// (cost 58.08, disruption 90).
	scoreCase("zero-disruption-scores-infinite", 4.84, 0, 58.08, 90, true, true),
	scoreCase("zero-savings-zero-disruption-rejected", 0, 0, 58.08, 90, false, false),
	scoreCase("zero-cost-pool-rejected", 4.84, 5, 0, 90, false, false),
	scoreCase("zero-disruption-no-division-by-zero", 4.84, 0, 58.08, 90, true, true),
	// balanced_scoring.go's table, its zero-disruption row.
	scoreCase("score-table-zero-disruption", 10, 0, 100, 100, true, true),
	// A candidate whose NodePool has no totals: a pool that costs nothing
	// and has no disruption scores 0.
	scoreCase("pool-without-totals-rejected", 4.84, 2, 0, 0, false, false),

	// The totals count every node of the pool, not only the candidates:
	// four do-not-disrupt nodes with a pod each make the cheap, busy
	// candidate's deletion a small saving for a large disruption. Scored on
	// the candidate alone, it would pass.
	conformanceCase{Name: "totals-count-every-node", Run: func(t *T) {
		c := scoringCluster(onlyBalanced, append(pinnedNodes("other", "balanced", 4, 4.84, doNotDisrupt),
			bnode{name: "cand", pool: "balanced", price: 1, pods: 10})...)
		expectNothing(t, c.evaluate())
	}},
	// A node priced 0 (its type unknown) still adds its disruption to the
	// totals: its 30 pods make the candidate's 6 a small share, and the
	// deletion passes; without them it would not.
	conformanceCase{Name: "zero-priced-node-adds-disruption", Run: func(t *T) {
		c := scoringCluster(onlyBalanced,
			bnode{name: "cand", pool: "balanced", price: 1, pods: 5},
			bnode{name: "good", pool: "balanced", price: 9, pods: 1, pinned: true},
			bnode{name: "zero", pool: "balanced", price: 2, pods: 30, pinned: true, unknown: true})
		require.Equal(t, []string{"cand"}, deleted(c.evaluate()))
	}},
	// A node priced 0 adds nothing to the pool's cost: the candidate's
	// deletion saves half of it and passes.
	conformanceCase{Name: "zero-priced-node-adds-no-cost", Run: func(t *T) {
		c := scoringCluster(onlyBalanced,
			bnode{name: "cand", pool: "balanced", price: 1, pods: 1},
			bnode{name: "good", pool: "balanced", price: 1, pods: 1, pinned: true},
			bnode{name: "zero", pool: "balanced", price: 10, pods: 1, pinned: true, unknown: true})
		require.Equal(t, []string{"cand"}, deleted(c.evaluate()))
	}},
	// A node whose type its NodePool's catalog does not know is priced 0
	// (its savings ratio is 0) and is never taken: deleting it would save
	// nothing.
	conformanceCase{Name: "unknown-type-node-priced-zero-not-taken", Run: func(t *T) {
		c := scoringCluster(onlyBalanced,
			bnode{name: "cand", pool: "balanced", price: 5, pods: 1, unknown: true},
			bnode{name: "room", pool: "balanced", price: 1, pods: 1, pinned: true})
		d := c.evaluate()
		expectNothing(t, d)
		i := slices.IndexFunc(d.Candidates, func(v consolidation.CandidateVerdict) bool { return v.Node == "cand" })
		require.GreaterOrEqual(t, i, 0)
		require.Contains(t, d.Candidates[i].Reason, "not found")
	}},
	// A candidate is priced at its offering's price: the deletion saves
	// exactly that.
	conformanceCase{Name: "priced-at-offering", Run: func(t *T) {
		c := scoringCluster(onlyBalanced,
			bnode{name: "cand", pool: "balanced", price: 4.84, pods: 1},
			bnode{name: "room", pool: "balanced", price: 4.84, pods: 1, pinned: true})
		d := c.evaluate()
		require.Len(t, d.Commands, 1, "%+v", d.Candidates)
		require.Equal(t, []string{"cand"}, d.Commands[0].Delete)
		require.InDelta(t, 4.84, d.Commands[0].SavingsPerHour, 1e-9)
	}},
	// A running node costs what its own offering costs even when that
	// offering is out of capacity for new launches: $1, not the $5 of the
	// other zone.
	conformanceCase{Name: "source-price-ignores-availability", Run: func(t *T) {
		src := withPodsCapacity(customType("source", 8,
			offering("test-zone-1", apis.CapacityTypeOnDemand, 1, false),
			offering("test-zone-2", apis.CapacityTypeOnDemand, 5, true)), 110)
		room := withPodsCapacity(customType("room", 8, offering("test-zone-1", apis.CapacityTypeOnDemand, 1, true)), 110)
		catalog := mustCatalog(src, room)
		c := (&cluster{}).poolWith(nodePool("balanced", policy(apis.ConsolidationPolicyBalanced), budgets(nodes("100%")), func(np *apis.NodePool) {
			np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
				{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"none"}}}
		}), catalog)
		c.node(managedNodeOf(catalog, "cand", "balanced", "source", withPods(pod("p", "10m"))))
		c.node(managedNodeOf(catalog, "room", "balanced", "room", withPods(pod("q", "10m", withSelector(apis.LabelHostname, "room")))))
		d := c.evaluate()
		require.Len(t, d.Commands, 1, "%+v", d.Candidates)
		require.InDelta(t, 1.0, d.Commands[0].SavingsPerHour, 1e-9)
	}},
	// A NaN price cannot poison a pool's totals: karpsim refuses it when the
	// instance type is built.
	conformanceCase{Name: "nan-price-refused", Run: func(t *T) {
		_, err := instancetypes.NewInstanceType(instancetypes.Spec{Name: "nan-instance",
			Labels:    map[string]string{apis.LabelArch: apis.ArchitectureAmd64, apis.LabelOS: "linux"},
			Offerings: []instancetypes.Offering{offering("test-zone-1", apis.CapacityTypeOnDemand, math.NaN(), true)}})
		require.Error(t, err)
	}},
	// The only node of a Balanced pool may be deleted (its pod has room in
	// another pool): it saves the whole pool's cost for the whole pool's
	// disruption, a score of 1.
	conformanceCase{Name: "single-node-pool-delete-approved", Run: func(t *T) {
		c := scoringCluster(map[string]apis.ConsolidationPolicy{"balanced": apis.ConsolidationPolicyBalanced, "other": apis.ConsolidationPolicyWhenEmptyOrUnderutilized},
			bnode{name: "only", pool: "balanced", price: 4.84, pods: 1},
			bnode{name: "room", pool: "other", price: 1, pods: 1, pinned: true, dnd: true})
		d := c.evaluate()
		require.Equal(t, []string{"only"}, deleted(d))
		// The pool's one node is all of its cost and all of its disruption:
		// the deletion saves a fraction 1.0 of the pool's cost for a
		// fraction 1.0 of its disruption, a score of 1.0 against the
		// threshold of 0.5.
		savingsFraction := d.Commands[0].SavingsPerHour / 4.84
		require.InDelta(t, 1.0, savingsFraction, 1e-9, "savings fraction")
		s := consolidation.BalancedScore(d.Commands[0].SavingsPerHour, 1, 4.84, 1)
		require.InDelta(t, 1.0, s, 1e-9, "score")
		require.GreaterOrEqual(t, s, consolidation.BalancedThreshold)
		require.Equal(t, 0.5, consolidation.BalancedThreshold)
	}},
	// One node from a Balanced pool and one from another pool go in one
	// command (the others are do-not-disrupt, in the totals all the same);
	// the Balanced pool is scored on its share of the savings and
	// approves.
	conformanceCase{Name: "cross-pool-savings-shared", Run: func(t *T) {
		pools := map[string]apis.ConsolidationPolicy{"balanced": apis.ConsolidationPolicyBalanced, "empty": apis.ConsolidationPolicyWhenEmptyOrUnderutilized}
		ns := append(pinnedNodes("b-node", "balanced", 4, 4.84, doNotDisrupt), pinnedNodes("e-node", "empty", 4, 4.84, doNotDisrupt)...)
		ns = append(ns, bnode{name: "b-cand", pool: "balanced", price: 4.84, pods: 1}, bnode{name: "e-cand", pool: "empty", price: 4.84, pods: 1})
		d := scoringCluster(pools, ns...).evaluate()
		require.Len(t, d.Commands, 1, "%+v", d.Candidates)
		require.Equal(t, consolidation.MethodMultiNode, d.Commands[0].Method)
		require.Equal(t, []string{"b-cand", "e-cand"}, d.Commands[0].Delete)
	}},
	// Two Balanced pools: pool B's heavy, cheap node would save a quarter of
	// B's cost for nearly all of its disruption; B rejects, so no command
	// takes that node, whatever pool A would approve.
	conformanceCase{Name: "one-rejecting-pool-rejects", Run: func(t *T) {
		pools := map[string]apis.ConsolidationPolicy{"pool-a": apis.ConsolidationPolicyBalanced, "pool-b": apis.ConsolidationPolicyBalanced}
		ns := append(pinnedNodes("a-node", "pool-a", 9, 4.84), bnode{name: "a-cand", pool: "pool-a", price: 4.84, pods: 1},
			bnode{name: "b-heavy", pool: "pool-b", price: 0.5, pods: 40}, bnode{name: "b-light", pool: "pool-b", price: 1.5, pods: 1, pinned: true})
		d := scoringCluster(pools, ns...).evaluate()
		require.NotEmpty(t, d.Commands, "%+v", d.Candidates)
		for _, cmd := range d.Commands {
			require.NotContains(t, cmd.Delete, "b-heavy")
		}
	}},
	// Candidates are ordered by savings ratio, price over disruption:
	// with room for one of them only, the one whose ratio is highest goes:
	// a's 4.84 for 2 before b's 4.84 for 4 and before c, priced 0.
	conformanceCase{Name: "savings-ratio-order-by-node-shape", Run: func(t *T) {
		pools := map[string]apis.ConsolidationPolicy{"balanced": apis.ConsolidationPolicyBalanced, "other": apis.ConsolidationPolicyWhenEmptyOrUnderutilized}
		c := scoringCluster(pools,
			bnode{name: "c", pool: "balanced", price: 4.84, pods: 1, unknown: true},
			bnode{name: "b", pool: "balanced", price: 4.84, pods: 3},
			bnode{name: "a", pool: "balanced", price: 4.84, pods: 1},
			bnode{name: "room", pool: "other", price: 1, pods: 1, pinned: true, dnd: true})
		roomFor(c, "room", 3)
		for _, full := range []string{"a", "b", "c"} {
			roomFor(c, full, 0)
		}
		require.Equal(t, []string{"a"}, deleted(c.evaluate()))
	}},
	// The order is by savings ratio across every pool once one is
	// Balanced: the Balanced pool's dear node goes before the other pool's
	// cheap one.
	conformanceCase{Name: "savings-ratio-order-across-pools", Run: func(t *T) {
		pools := map[string]apis.ConsolidationPolicy{"balanced": apis.ConsolidationPolicyBalanced, "default": apis.ConsolidationPolicyWhenEmptyOrUnderutilized}
		c := scoringCluster(pools,
			bnode{name: "node-default", pool: "default", price: 1, pods: 1},
			bnode{name: "node-balanced", pool: "balanced", price: 10, pods: 1},
			bnode{name: "room", pool: "default", price: 1, pods: 1, pinned: true, dnd: true})
		roomFor(c, "room", 1)
		roomFor(c, "node-default", 0)
		roomFor(c, "node-balanced", 0)
		require.Equal(t, []string{"node-balanced"}, deleted(c.evaluate()))
	}},
	// A WhenEmpty pool makes no consolidation move at all, scored or not:
	// its underutilized node stays, though deleting it would score well.
	conformanceCase{Name: "when-empty-does-not-score", Run: func(t *T) {
		c := scoringCluster(map[string]apis.ConsolidationPolicy{"when-empty": apis.ConsolidationPolicyWhenEmpty},
			bnode{name: "cand", pool: "when-empty", price: 4.84, pods: 1},
			bnode{name: "room", pool: "when-empty", price: 1, pods: 1, pinned: true})
		expectNothing(t, c.evaluate())
	}},
)

// roomFor leaves room on the named node for n more 10m pods besides its
// own.
func roomFor(c *cluster, name string, n int) {
	for _, node := range c.Nodes {
		if node.Node.Name == name {
			cpu := int64(10 * (n + len(node.Node.Pods)))
			allocatable(fmt.Sprintf("%dm", cpu))(node)
		}
	}
}
