package consolidation

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/repair"
)

func badFor(d time.Duration) nodeOption {
	return func(n *Node) {
		n.Health = &NodeHealth{Created: now.Add(-2 * time.Hour), Conditions: []corev1.NodeCondition{
			{Type: "BadNode", Status: corev1.ConditionFalse, Reason: "RebootMe", LastTransitionTime: metav1.NewTime(now.Add(-d))}}}
	}
}

func healthy(n *Node) { n.Health = &NodeHealth{Created: now.Add(-2 * time.Hour)} }

func repairOptions(t *testing.T) Options {
	t.Helper()
	m, err := repair.Compile([]repair.Policy{
		{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, ReasonRegex: "RebootMe", Toleration: 10 * time.Minute, Action: repair.Reboot},
		{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, Toleration: 30 * time.Minute, Action: repair.Replace},
	})
	require.NoError(t, err)
	return Options{NodeRepair: m, Reboots: map[string][]time.Time{"a-claim": {now.Add(-3 * time.Hour)}}}
}

// Node repair reads its input and leaves it as it was, and decides alike
// every time.
func TestRepairLeavesInputAndIsDeterministic(t *testing.T) {
	c := Cluster{NodePools: pools(newPool("default")), Nodes: []*Node{
		newNode("a", "default", 4, apis.CapacityTypeOnDemand, pods(2, "a", "1"), badFor(time.Hour)),
		newNode("b", "default", 4, apis.CapacityTypeOnDemand, pods(2, "b", "1"), badFor(time.Hour)),
		newNode("c", "default", 4, apis.CapacityTypeOnDemand, nil, healthy),
		newNode("d", "default", 4, apis.CapacityTypeOnDemand, nil, healthy),
		newNode("e", "default", 4, apis.CapacityTypeOnDemand, nil, healthy),
		newNode("f", "default", 4, apis.CapacityTypeOnDemand, nil, healthy),
		newNode("g", "default", 4, apis.CapacityTypeOnDemand, nil, healthy),
		newNode("h", "default", 4, apis.CapacityTypeOnDemand, nil, healthy),
		newNode("i", "default", 4, apis.CapacityTypeOnDemand, nil, healthy),
		newNode("j", "default", 4, apis.CapacityTypeOnDemand, nil, healthy),
	}}
	opts := repairOptions(t)
	before, err := json.Marshal(struct {
		C Cluster
		R map[string][]time.Time
	}{c, opts.Reboots})
	require.NoError(t, err)
	first := Evaluate(c, now, opts)
	require.Len(t, first.Commands, 1)
	// Equal scores and costs: the name decides.
	assert.Equal(t, "a", first.Commands[0].Reboot)
	for range 3 {
		again := Evaluate(c, now, opts)
		assert.Equal(t, first, again)
	}
	after, err := json.Marshal(struct {
		C Cluster
		R map[string][]time.Time
	}{c, opts.Reboots})
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after), "the evaluation changed its input")

	// Without the gate the same cluster is not repaired: repair notes
	// nothing, and every verdict is what the other methods say.
	opts.NodeRepair = nil
	for _, cmd := range Evaluate(c, now, opts).Commands {
		assert.NotEqual(t, MethodRepair, cmd.Method)
	}
	assert.Equal(t, MethodEmptiness, MethodAfter(MethodRepair))
}

// Repair's simulation places the pods a PDB or do-not-disrupt holds;
// drift's, later in the same evaluation, must not inherit them.
func TestRepairSimulationDoesNotLeakIntoLaterMethods(t *testing.T) {
	m, err := repair.Compile([]repair.Policy{{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, Toleration: 30 * time.Minute,
		TerminationGracePeriod: ptr(time.Minute), Action: repair.Replace}})
	require.NoError(t, err)
	// The held pod fits no instance type: repair, which must place it,
	// finds no command; drift, which launches nothing for it, deletes the
	// node.
	held := newPod("held", "1000", withAnnotation(apis.AnnotationDoNotDisrupt, "true"))
	n := newNode("a", "default", 4, apis.CapacityTypeOnDemand, []*corev1.Pod{held}, badFor(time.Hour), drifted(time.Hour))
	n.NodeClaim.Spec.TerminationGracePeriod = &metav1.Duration{Duration: time.Minute}
	c := Cluster{NodePools: pools(newPool("default")), Nodes: []*Node{n}}
	d := Evaluate(c, now, Options{NodeRepair: m})
	require.Len(t, d.Commands, 1, "%+v", d.Candidates)
	assert.Equal(t, MethodDrift, d.Commands[0].Method)
	assert.Empty(t, d.Commands[0].Replacements, "drift launches nothing for a pod do-not-disrupt holds")
	assert.Contains(t, verdict(t, d, "a").Reason, "drift")
}
