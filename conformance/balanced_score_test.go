package conformance

import (
	"fmt"
	"math"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

// Upstream's Balanced scoring specs give a move's savings and disruption
// and its NodePool's total cost and disruption, and expect the move
// approved or rejected. A move builds that situation: a NodePool whose
// nodes add up to the totals, one of them (a "big" node) replaceable by a
// cheaper "small" type for exactly the savings, with disruption−1 pods of
// eviction cost 1; the other nodes have no room for those pods and their
// own pods are pinned to them by hostname, so that the move is the only one
// there is.
type move struct {
	savings, disruption, totalCost, totalDisruption float64
	// small, when set, is the small type's on-demand price (default 1);
	// smallSpot, when set, gives it a spot offering at that price too, in
	// a NodePool that allows on-demand only.
	small, smallSpot float64
}

// approved reports whether Karpenter's disruption decision takes the move
// in a NodePool of the given policy (Balanced when "").
func (m move) approved(t *T, p apis.ConsolidationPolicy) bool {
	t.Helper()
	// A negative saving makes the small type the dearer one.
	small := max(1.0, 1.0-m.savings)
	if m.small > 0 {
		small = m.small
	}
	big := small + m.savings
	pods := int(math.Round(m.disruption)) - 1
	// Every filler holds a pod, or emptiness would take it.
	fillers := min(9, int(math.Round(m.totalDisruption-m.disruption))/2)
	fillerPods := int(math.Round(m.totalDisruption-m.disruption)) - fillers
	fillerPrice := (m.totalCost - big) / float64(fillers)
	require.True(t, pods >= 1 && fillers >= 1 && fillerPods >= fillers && fillerPrice > 0, "the move %+v cannot be built", m)
	smallOfferings := []instancetypes.Offering{offering("test-zone-1", apis.CapacityTypeOnDemand, small, true)}
	capacityTypes := []string{apis.CapacityTypeOnDemand, apis.CapacityTypeSpot}
	if m.smallSpot > 0 {
		smallOfferings = append(smallOfferings, offering("test-zone-1", apis.CapacityTypeSpot, m.smallSpot, true))
		capacityTypes = capacityTypes[:1]
	}
	catalog := mustCatalog(
		withPodsCapacity(customType("big", 8, offering("test-zone-1", apis.CapacityTypeOnDemand, big, true)), 110),
		withPodsCapacity(customType("small", 4, smallOfferings...), 110),
		customType("filler", 1, offering("test-zone-1", apis.CapacityTypeOnDemand, fillerPrice, true)))
	if p == "" {
		p = apis.ConsolidationPolicyBalanced
	}
	np := nodePool("default", policy(p), budgets(nodes("100%")), func(np *apis.NodePool) {
		np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
			{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"big", "small"}},
			{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: capacityTypes}}
	})
	c := (&cluster{}).poolWith(np, catalog)
	var own []*corev1.Pod
	for i := range pods {
		own = append(own, pod(fmt.Sprintf("move-%d", i), "10m"))
	}
	c.node(managedNodeOf(catalog, "candidate", "default", "big", withPods(own...)))
	for f := range fillers {
		name := fmt.Sprintf("filler-%d", f)
		var ps []*corev1.Pod
		for i := f; i < fillerPods; i += fillers {
			ps = append(ps, pod(fmt.Sprintf("%s-%d", name, i), "", withSelector(apis.LabelHostname, name)))
		}
		c.node(managedNodeOf(catalog, name, "default", "filler", allocatable("5m"), podCapacity("1000"), withPods(ps...)))
	}
	d := c.evaluate()
	for _, cmd := range d.Commands {
		require.Equal(t, []string{"candidate"}, cmd.Delete, "only the move was meant to be possible: %+v", d.Candidates)
	}
	return len(d.Commands) > 0
}

// withPodsCapacity rebuilds a type with room for n pods.
func withPodsCapacity(it *instancetypes.InstanceType, n int64) *instancetypes.InstanceType {
	capacity := resources.New(it.Capacity.CPU(), it.Capacity.Memory(), n)
	return mustType(instancetypes.Spec{Name: it.Name, Labels: map[string]string{apis.LabelArch: apis.ArchitectureAmd64, apis.LabelOS: "linux"},
		Capacity: capacity, Overhead: it.Overhead, Offerings: it.Offerings})
}

func podCapacity(n string) nodeOption {
	return func(n2 *consolidation.Node) {
		q := mustQuantity(n)
		n2.Node.Allocatable[corev1.ResourcePods] = q
		n2.Node.Capacity[corev1.ResourcePods] = q
	}
}

// rfcPool is upstream's example NodePool: ten nodes costing 58.08 a day
// with 80 pods, so a disruption of 90.
func rfc(savings, disruption float64) move {
	return move{savings: savings, disruption: disruption, totalCost: 58.08, totalDisruption: 90}
}

func approves(m move) func(t *T) {
	return func(t *T) { require.True(t, m.approved(t, ""), "%+v", m) }
}

func rejects(m move) func(t *T) {
	return func(t *T) { require.False(t, m.approved(t, ""), "%+v", m) }
}

var _ = register("balanced",
	conformanceCase{Name: "score-oversized-node", Run: approves(rfc(7.26, 4))},
	conformanceCase{Name: "score-spare-capacity", Run: approves(rfc(4.84, 5))},
	conformanceCase{Name: "score-marginal-move", Run: rejects(rfc(2.42, 9))},
	conformanceCase{Name: "score-no-savings", Run: rejects(rfc(0, 11))},
	conformanceCase{Name: "score-uniform-pool", Run: approves(move{savings: 2.42, disruption: 9, totalCost: 48.40, totalDisruption: 90})},
	conformanceCase{Name: "score-varying-disruption", Run: func(t *T) {
		approves(move{savings: 4.84, disruption: 5, totalCost: 58.08, totalDisruption: 117})(t)
		rejects(move{savings: 4.84, disruption: 32, totalCost: 58.08, totalDisruption: 117})(t)
	}},
	conformanceCase{Name: "score-scale-invariant", Run: func(t *T) {
		approves(rfc(7.26, 4))(t)
		approves(move{savings: 7.26, disruption: 4, totalCost: 580.80, totalDisruption: 900})(t)
	}},
	conformanceCase{Name: "score-proportional-across-pools", Run: func(t *T) {
		approves(move{savings: 4.84, disruption: 4, totalCost: 48.40, totalDisruption: 90})(t)
		approves(move{savings: 1.45, disruption: 4, totalCost: 14.50, totalDisruption: 90})(t)
	}},
	// Upstream's score table on a NodePool costing 100 with a disruption of
	// 100.
	conformanceCase{Name: "score-table-high-savings", Run: approves(move{savings: 20, disruption: 5, totalCost: 100, totalDisruption: 100})},
	conformanceCase{Name: "score-table-equal-fractions", Run: approves(move{savings: 10, disruption: 10, totalCost: 100, totalDisruption: 100})},
	conformanceCase{Name: "score-table-low-savings", Run: rejects(move{savings: 5, disruption: 50, totalCost: 100, totalDisruption: 100})},
	conformanceCase{Name: "score-table-zero-savings", Run: rejects(move{savings: 0, disruption: 10, totalCost: 100, totalDisruption: 100})},
	conformanceCase{Name: "score-table-negative-savings", Run: rejects(move{savings: -5, disruption: 10, totalCost: 100, totalDisruption: 100})},
	conformanceCase{Name: "score-one-of-ten", Run: approves(move{savings: 4.84, disruption: 2, totalCost: 48.40, totalDisruption: 20})},
	// Saving 0.1 on-demand scores 0.25; a spot price leaking into the
	// on-demand-only NodePool would save 0.4 and pass.
	conformanceCase{Name: "score-on-demand-pool-ignores-spot-price", Run: rejects(move{savings: 0.1, disruption: 4, totalCost: 1, totalDisruption: 10,
		small: 0.4, smallSpot: 0.1})},
	conformanceCase{Name: "policy-balanced-scores", Run: func(t *T) {
		m := rfc(2.42, 9)
		require.False(t, m.approved(t, apis.ConsolidationPolicyBalanced))
	}},
	conformanceCase{Name: "policy-underutilized-does-not-score", Run: func(t *T) {
		m := rfc(2.42, 9)
		require.True(t, m.approved(t, apis.ConsolidationPolicyWhenEmptyOrUnderutilized))
	}},
)
