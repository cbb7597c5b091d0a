package invariants

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/repair"
	"github.com/karpsim/karpsim/scheduling"
)

// unhealthy gives a node a BadNode=False condition an hour old.
func unhealthy(n *consolidation.Node) *consolidation.Node {
	n.Health = &consolidation.NodeHealth{Created: now.Add(-2 * time.Hour), Conditions: []corev1.NodeCondition{
		{Type: "BadNode", Status: corev1.ConditionFalse, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}}
	return n
}

func withHealth(n *consolidation.Node) *consolidation.Node {
	n.Health = &consolidation.NodeHealth{Created: now.Add(-2 * time.Hour)}
	return n
}

func hasRule(vs []Violation, rule string) bool {
	return slices.ContainsFunc(vs, func(v Violation) bool { return v.Rule == rule })
}

// Node repair (v1.15): its own decisions break no rule, though it takes a
// do-not-disrupt node and, with a bounded drain, a node whose pod blocks
// eviction; do-not-repair and the Unhealthy budget still hold.
func TestCheckDisruptionNodeRepair(t *testing.T) {
	bound := 5 * time.Minute
	m, err := repair.Compile([]repair.Policy{{ConditionType: "BadNode", ConditionStatus: corev1.ConditionFalse, Toleration: 30 * time.Minute,
		TerminationGracePeriod: &bound, Action: repair.Replace}})
	if err != nil {
		t.Fatal(err)
	}
	bad := unhealthy(managed(node("bad", "default", "test-zone-1", 4, newPod("blocking", "1", annotate(apis.AnnotationDoNotDisrupt, "true")))))
	bad.Annotations = map[string]string{apis.AnnotationDoNotDisrupt: "true"}
	c := cluster(newPool("default"), bad, withHealth(managed(node("a", "default", "test-zone-1", 4))),
		withHealth(managed(node("b", "default", "test-zone-1", 4))), withHealth(managed(node("c", "default", "test-zone-1", 4))),
		withHealth(managed(node("d", "default", "test-zone-1", 4))))
	d := consolidation.Evaluate(c, now, consolidation.Options{NodeRepair: m})
	if len(d.Commands) != 1 || d.Commands[0].Method != consolidation.MethodRepair {
		t.Fatalf("want one repair command, got %+v", d)
	}
	if vs := CheckDisruption(c, d, now); len(vs) > 0 {
		t.Fatalf("violations on node repair's own decision %v:\n%v", d.Commands, Err(vs))
	}

	// The same command without its drain bound evicts a do-not-disrupt pod.
	unbounded := d
	unbounded.Commands = slices.Clone(d.Commands)
	unbounded.Commands[0].TerminationGracePeriod = nil
	if vs := CheckDisruption(c, unbounded, now); !hasRule(vs, RuleDoNotDisrupt) {
		t.Errorf("an unbounded repair of a node with a do-not-disrupt pod: want a %s violation, got %v", RuleDoNotDisrupt, vs)
	}

	// A reboot of a do-not-repair node, past a zero budget.
	vetoed := unhealthy(managed(node("vetoed", "default", "test-zone-1", 2)))
	vetoed.Annotations = map[string]string{apis.AnnotationDoNotRepair: "true"}
	c = cluster(newPool("default", poolBudget("0")), vetoed)
	reboot := consolidation.Decision{Commands: []consolidation.Command{{Method: consolidation.MethodRepair, Reboot: "vetoed",
		Delete: []string{}, Replacements: []scheduling.NodeClaim{}, TerminationGracePeriod: &metav1.Duration{Duration: bound}}}}
	vs := CheckDisruption(c, reboot, now)
	if !hasRule(vs, RuleDoNotDisrupt) || !hasRule(vs, RuleBudget) {
		t.Errorf("rebooting a do-not-repair node past a zero budget: want %s and %s violations, got %v", RuleDoNotDisrupt, RuleBudget, vs)
	}

	// NotReady nodes do not use up the Unhealthy budget, and an
	// uninitialized node takes none.
	notReady := withHealth(managed(node("not-ready", "default", "test-zone-1", 2)))
	notReady.NotReady = true
	fresh := unhealthy(managed(node("fresh", "default", "test-zone-1", 2)))
	fresh.Node.Initialized = false
	c = cluster(newPool("default", poolBudget("1")), notReady, unhealthy(managed(node("bad", "default", "test-zone-1", 2))), fresh)
	for _, name := range []string{"bad", "fresh"} {
		cmd := consolidation.Decision{Commands: []consolidation.Command{{Method: consolidation.MethodRepair, Delete: []string{name},
			Replacements: []scheduling.NodeClaim{}, TerminationGracePeriod: &metav1.Duration{Duration: bound}}}}
		if vs := CheckDisruption(c, cmd, now); hasRule(vs, RuleBudget) {
			t.Errorf("repairing %s under an Unhealthy budget of 1 with a NotReady node: %v", name, vs)
		}
	}
}
