package consolidation

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

func TestEvictionCost(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []podOption
		want float64
	}{
		{"plain pod", nil, 1},
		{"deletion cost 2^27", []podOption{withAnnotation(corev1.PodDeletionCost, "134217728")}, 2},
		{"negative deletion cost", []podOption{withAnnotation(corev1.PodDeletionCost, "-268435456")}, -1},
		{"unparseable deletion cost is ignored", []podOption{withAnnotation(corev1.PodDeletionCost, "lots")}, 1},
		{"priority 2^25", []podOption{withPriority(1 << 25)}, 2},
		{"system-node-critical priority is clamped", []podOption{withPriority(2000001000)}, 10},
		{"lowest deletion cost is clamped", []podOption{withAnnotation(corev1.PodDeletionCost, "-2147483648")}, -10},
		{"both", []podOption{withPriority(1 << 24), withAnnotation(corev1.PodDeletionCost, "67108864")}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, evictionCost(newPod("p", "1", tc.opts...), false), 1e-9)
		})
	}
}

func TestRescheduleDisruptionCostCountsOnlyPositiveCosts(t *testing.T) {
	cheap := newPod("cheap", "1", withAnnotation(corev1.PodDeletionCost, "-268435456")) // cost −1
	high := newPod("high", "1", withPriority(1<<25))                                    // cost 2
	assert.InDelta(t, 1.0, rescheduleDisruptionCost(nil, false), 1e-9)
	assert.InDelta(t, 1.0, rescheduleDisruptionCost([]*corev1.Pod{cheap}, false), 1e-9)
	assert.InDelta(t, 4.0, rescheduleDisruptionCost([]*corev1.Pod{cheap, high, newPod("p", "1")}, false), 1e-9)
}

func TestReschedulablePods(t *testing.T) {
	mirror := newPod("mirror", "1")
	mirror.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "n"}}
	terminal := newPod("done", "1")
	terminal.Status.Phase = corev1.PodSucceeded
	for _, tc := range []struct {
		pod  *corev1.Pod
		want bool
	}{
		{newPod("web", "1"), true},
		{newPod("web", "1", terminatingPod), false},
		{newPod("sts", "1", withOwner("StatefulSet"), terminatingPod), true},
		{newPod("ds", "1", withOwner("DaemonSet")), false},
		{mirror, false},
		{terminal, false},
	} {
		assert.Equal(t, tc.want, isReschedulable(tc.pod), tc.pod.Name)
	}
}

// A node whose pods all cost nothing to evict is empty: emptiness deletes
// it without a simulation (v1.14).
func TestANodeOfFreePodsIsEmpty(t *testing.T) {
	free := newPod("free", "1", withAnnotation(corev1.PodDeletionCost, "-268435456"))
	n := newNode("n", "default", 2, apis.CapacityTypeOnDemand, []*corev1.Pod{free})
	d := Evaluate(Cluster{Nodes: []*Node{n}, NodePools: pools(newPool("default"))}, now, Options{})
	assert.Equal(t, []string{"emptiness delete=[n] replace=[]"}, summary(d))
}

func TestTerminatingPodsLeaveANodeEmptyUnlessTheyBelongToAStatefulSet(t *testing.T) {
	deployment := newNode("deployment", "default", 2, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("web", "1", terminatingPod)})
	statefulSet := newNode("statefulset", "default", 2, apis.CapacityTypeOnDemand, []*corev1.Pod{newPod("db", "1", withOwner("StatefulSet"), terminatingPod)})
	d := Evaluate(Cluster{Nodes: []*Node{deployment, statefulSet}, NodePools: pools(newPool("default"))}, now, Options{})
	assert.Equal(t, []string{"emptiness delete=[deployment] replace=[]"}, summary(d))
	assert.Contains(t, verdict(t, d, "statefulset").Reason, "not evaluated: emptiness found a command first")
}

func TestCandidatesAreOrderedBySavingsRatio(t *testing.T) {
	nodes := []*nodeInfo{
		{name: "b", price: 1, cost: 2},    // 0.5
		{name: "a", price: 1, cost: 2},    // 0.5, ties by name
		{name: "c", price: 3, cost: 2},    // 1.5
		{name: "d", price: 0.1, cost: 10}, // 0.01
	}
	slices.SortFunc(nodes, bySavingsRatio)
	assert.Equal(t, "c, a, b, d", names(nodes))
}

func TestSingleNodeInterleavesNodePools(t *testing.T) {
	nodes := []*nodeInfo{{name: "a1", poolName: "a"}, {name: "a2", poolName: "a"}, {name: "a3", poolName: "a"}, {name: "b1", poolName: "b"}, {name: "c1", poolName: "c"}, {name: "b2", poolName: "b"}}
	assert.Equal(t, "a1, b1, c1, a2, b2, a3", names(interleave(nodes)))
}

func TestPDBAllowedDisruptions(t *testing.T) {
	intOr := func(i int) *intstr.IntOrString { v := intstr.FromInt32(int32(i)); return &v }
	pct := func(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
	// Five selected pods, four of them bound and healthy.
	var selected []*corev1.Pod
	bound := map[*corev1.Pod]bool{}
	for i := range 5 {
		p := newPod("p", "1")
		selected = append(selected, p)
		bound[p] = i < 4
	}
	unready := newPod("unready", "1")
	unready.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}}
	for _, tc := range []struct {
		name string
		spec policyv1.PodDisruptionBudgetSpec
		want int32
	}{
		{"minAvailable 2", policyv1.PodDisruptionBudgetSpec{MinAvailable: intOr(2)}, 2},
		{"minAvailable 4", policyv1.PodDisruptionBudgetSpec{MinAvailable: intOr(4)}, 0},
		{"minAvailable 50% rounds up", policyv1.PodDisruptionBudgetSpec{MinAvailable: pct("50%")}, 1},
		{"maxUnavailable 1", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: intOr(1)}, 0},
		{"maxUnavailable 2", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: intOr(2)}, 1},
		{"maxUnavailable 30% rounds up", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: pct("30%")}, 1},
		{"maxUnavailable 0", policyv1.PodDisruptionBudgetSpec{MaxUnavailable: intOr(0)}, 0},
		{"neither", policyv1.PodDisruptionBudgetSpec{}, 0},
		{"bad percentage", policyv1.PodDisruptionBudgetSpec{MinAvailable: pct("half")}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, computeAllowed(tc.spec, selected, func(p *corev1.Pod) bool { return bound[p] }))
		})
	}
	bound[unready] = true
	assert.Equal(t, int32(2), computeAllowed(policyv1.PodDisruptionBudgetSpec{MinAvailable: intOr(2)}, append(selected, unready), func(p *corev1.Pod) bool { return bound[p] }),
		"a pod marked not ready is not healthy")
}

func TestFullyBlockingPDBsStopReschedulingDeletingNodesPods(t *testing.T) {
	pct := intstr.FromString("100%")
	web, db := newPod("web", "1"), newPod("db", "1", withLabel("app", "db"))
	idx := newPDBIndex([]*policyv1.PodDisruptionBudget{newPDB("all", &pct, nil, map[string]string{"app": "web"})}, []*corev1.Pod{web, db}, func(*corev1.Pod) bool { return false })
	require.Len(t, idx[web], 1)
	assert.True(t, idx[web][0].fullyBlocking)
	assert.Contains(t, idx.blocks(web, true), "allows no disruption at all")
	assert.Empty(t, idx.blocks(db, true))
}

func TestWorstLaunchPricePrefersSpot(t *testing.T) {
	it, _ := fake.Get("fake-it-3")
	assert.InDelta(t, price(4), worstLaunchPrice(it, requirements.Requirements{}), 1e-9)
	onDemandOnly := requirements.NewRequirements(requirements.In(apis.LabelTopologyZone, "test-zone-3"))
	assert.InDelta(t, price(4), worstLaunchPrice(it, onDemandOnly), 1e-9)
	nowhere := requirements.NewRequirements(requirements.In(apis.LabelTopologyZone, "test-zone-9"))
	assert.True(t, math.IsInf(worstLaunchPrice(it, nowhere), 1))
}
