package consolidation

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/budgets"
)

// Karpenter v1.15's changes to eviction costs and budget counting.

func TestEvictionCostDisruptionCostAnnotation(t *testing.T) {
	dc, pdc := apis.AnnotationDisruptionCost, corev1.PodDeletionCost
	for _, tc := range []struct {
		name string
		opts []podOption
		gate bool
		want float64
	}{
		{"disruption cost 2^27", []podOption{withAnnotation(dc, "134217728")}, false, 2},
		{"disruption cost wins over deletion cost", []podOption{withAnnotation(dc, "134217728"), withAnnotation(pdc, "-134217728")}, false, 2},
		{"disruption cost wins with the gate on", []podOption{withAnnotation(dc, "134217728"), withAnnotation(pdc, "-134217728")}, true, 2},
		{"deletion cost ignored with the gate on", []podOption{withAnnotation(pdc, "134217728")}, true, 1},
		{"deletion cost read with the gate off", []podOption{withAnnotation(pdc, "134217728")}, false, 2},
		{"an unreadable disruption cost still hides the deletion cost", []podOption{withAnnotation(dc, "high"), withAnnotation(pdc, "134217728")}, false, 1},
		{"a fractional deletion cost is no int32", []podOption{withAnnotation(pdc, "1.5")}, false, 1},
		{"a deletion cost beyond int32 is ignored", []podOption{withAnnotation(pdc, "2147483648")}, false, 1},
		{"a disruption cost beyond int32 is ignored", []podOption{withAnnotation(dc, "-2147483649")}, false, 1},
		{"the highest disruption cost is clamped", []podOption{withAnnotation(dc, "2147483647")}, false, 10},
		{"priority adds to a disruption cost", []podOption{withAnnotation(dc, "67108864"), withPriority(1 << 24)}, true, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, evictionCost(newPod("p", "1", tc.opts...), tc.gate), 1e-9)
		})
	}
}

// TestDisruptionCostOrdersCandidates: the node whose pod carries the higher
// disruption cost goes last, whatever its pod-deletion-cost says; with the
// PodDeletionCostManagement gate on, a pod-deletion-cost alone orders
// nothing.
func TestDisruptionCostOrdersCandidates(t *testing.T) {
	cluster := func(a, b []podOption) Cluster {
		dest := newNode("dest", "default", 4, apis.CapacityTypeOnDemand, nil)
		dest.Annotations = map[string]string{apis.AnnotationDoNotDisrupt: "true"}
		return Cluster{
			Nodes: []*Node{dest,
				newNode("a", "default", 4, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("pa", "3", a...)}),
				newNode("b", "default", 4, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("pb", "3", b...)})},
			NodePools: pools(newPool("default")),
		}
	}
	first := func(c Cluster, opts Options) string {
		d := Evaluate(c, now, opts)
		require.Len(t, d.Commands, 1, "%v", d.Candidates)
		require.Len(t, d.Commands[0].Delete, 1)
		return d.Commands[0].Delete[0]
	}
	high := []podOption{withAnnotation(apis.AnnotationDisruptionCost, "1000000"), withAnnotation(corev1.PodDeletionCost, "-1000000")}
	low := []podOption{withAnnotation(corev1.PodDeletionCost, "1000")}
	assert.Equal(t, "b", first(cluster(high, low), Options{}))
	assert.Equal(t, "a", first(cluster(low, high), Options{}))
	// Gate on: b's pod-deletion-cost counts for nothing, a's disruption
	// cost still does.
	assert.Equal(t, "b", first(cluster(high, low), Options{PodDeletionCostManagement: true}))
	// Gate off, a pod-deletion-cost alone orders; gate on, the tie goes
	// by name.
	assert.Equal(t, "b", first(cluster(low, nil), Options{}))
	assert.Equal(t, "a", first(cluster(low, nil), Options{PodDeletionCostManagement: true}))
}

func rebootingNode(reason string) nodeOption {
	return func(n *Node) {
		n.NodeClaim.Status.Conditions = append(n.NodeClaim.Status.Conditions,
			metav1.Condition{Type: "Rebooting", Status: metav1.ConditionTrue, Reason: reason, LastTransitionTime: metav1.NewTime(now)})
	}
}

func TestAllowedDisruptionsByReason(t *testing.T) {
	allReasons := []apis.DisruptionReason{apis.DisruptionReasonEmpty, apis.DisruptionReasonDrifted, apis.DisruptionReasonUnderutilized, apis.DisruptionReasonUnhealthy}
	ten := func(opts map[int]nodeOption) Cluster {
		nodes := emptyNodes(10, "default")
		for i, o := range opts {
			o(nodes[i])
		}
		return Cluster{Nodes: nodes, NodePools: pools(newPool("default", withBudgets(apis.Budget{Nodes: "10"})))}
	}
	t.Run("NotReady counts for every reason but Unhealthy", func(t *testing.T) {
		c := ten(map[int]nodeOption{0: markNotReady, 1: markNotReady})
		for _, r := range allReasons {
			want := 8
			if r == apis.DisruptionReasonUnhealthy {
				want = 10
			}
			assert.Equal(t, map[string]int{"default": want}, AllowedDisruptions(c, now, r), "%s", r)
		}
	})
	t.Run("deleting counts for every reason", func(t *testing.T) {
		c := ten(map[int]nodeOption{0: deleting, 1: deleting})
		for _, r := range allReasons {
			assert.Equal(t, map[string]int{"default": 8}, AllowedDisruptions(c, now, r), "%s", r)
		}
	})
	t.Run("rebooting counts for every reason, draining or issued", func(t *testing.T) {
		c := ten(map[int]nodeOption{0: rebootingNode("RebootRequested"), 1: func(n *Node) {
			rebootingNode("RebootIssued")(n)
			uninitialized(n)
			markNotReady(n)
		}})
		for _, r := range allReasons {
			assert.Equal(t, map[string]int{"default": 8}, AllowedDisruptions(c, now, r), "%s", r)
		}
	})
	t.Run("a budget limited to Unhealthy leaves the others unlimited", func(t *testing.T) {
		c := ten(nil)
		c.NodePools = pools(newPool("default", withBudgets(apis.Budget{Nodes: "1", Reasons: []apis.DisruptionReason{apis.DisruptionReasonUnhealthy}})))
		assert.Equal(t, map[string]int{"default": 1}, AllowedDisruptions(c, now, apis.DisruptionReasonUnhealthy))
		assert.Equal(t, map[string]int{"default": budgets.Unlimited}, AllowedDisruptions(c, now, apis.DisruptionReasonEmpty))
	})
}

// TestRebootingNodeIsNoCandidateAndUsesBudget: a rebooting node is no
// candidate for any method, and takes a disruption from every reason's
// budget.
func TestRebootingNodeIsNoCandidateAndUsesBudget(t *testing.T) {
	nodes := emptyNodes(3, "default")
	nodes = append(nodes, newNode("rebooting", "default", 1, apis.CapacityTypeOnDemand, nil, rebootingNode("RebootIssued"), uninitialized))
	c := Cluster{Nodes: nodes, NodePools: pools(newPool("default", withBudgets(apis.Budget{Nodes: "2"})))}
	d := Evaluate(c, now, Options{})
	require.Len(t, d.Commands, 1)
	assert.Len(t, d.Commands[0].Delete, 1, "a budget of 2 with one node rebooting leaves one")
	assert.Equal(t, "being rebooted (its NodeClaim's Rebooting condition is True)", verdict(t, d, "rebooting").Reason)
	// A Rebooting condition that is False is a reboot done.
	c.Nodes[3] = newNode("rebooted", "default", 1, apis.CapacityTypeOnDemand, nil, func(n *Node) {
		n.NodeClaim.Status.Conditions = []metav1.Condition{{Type: "Rebooting", Status: metav1.ConditionFalse, Reason: "RebootSucceeded"}}
	})
	d = Evaluate(c, now, Options{})
	require.Len(t, d.Commands, 1)
	assert.Len(t, d.Commands[0].Delete, 2)
}
