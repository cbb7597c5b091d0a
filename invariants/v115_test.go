package invariants

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

func rebootingClaim(n *consolidation.Node) *consolidation.Node {
	n.NodeClaim.Status.Conditions = []metav1.Condition{{Type: "Rebooting", Status: metav1.ConditionTrue, Reason: "RebootRequested"}}
	return n
}

// Karpenter v1.15's rebooting nodes: no candidate, and disrupting against
// every budget.
func TestCheckDisruptionRebootingNodes(t *testing.T) {
	del := func(names ...string) consolidation.Decision {
		return consolidation.Decision{Commands: []consolidation.Command{{Method: consolidation.MethodEmptiness, Delete: names, Replacements: []scheduling.NodeClaim{}}}}
	}
	c := cluster(newPool("default"), rebootingClaim(managed(node("rebooting", "default", "test-zone-1", 2))))
	if vs := CheckDisruption(c, del("rebooting"), now); !slices.ContainsFunc(vs, func(v Violation) bool { return v.Rule == RuleDisruptionCandidate }) {
		t.Errorf("deleting a rebooting node: want a %s violation, got %v", RuleDisruptionCandidate, vs)
	}
	// Budget 1, one node rebooting (its reboot issued: not initialized):
	// no disruption is left.
	issued := rebootingClaim(managed(node("issued", "default", "test-zone-1", 2)))
	issued.Node.Initialized = false
	c = cluster(newPool("default", poolBudget("1")), issued, managed(node("idle", "default", "test-zone-1", 2)))
	if vs := CheckDisruption(c, del("idle"), now); !slices.ContainsFunc(vs, func(v Violation) bool { return v.Rule == RuleBudget }) {
		t.Errorf("past the budget with a node rebooting: want a %s violation, got %v", RuleBudget, vs)
	}
}

// TestCheckDisruptionAcceptsTerminateFirst: a terminate-first drift command
// moves no pod to a replacement; its pods wait for provisioning, and break
// no rule.
func TestCheckDisruptionAcceptsTerminateFirst(t *testing.T) {
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{Name: "r-type", Labels: map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux"},
		Capacity:  resources.New(4000, 16<<30, 110),
		Offerings: []instancetypes.Offering{{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved, Price: 0.00001, Available: true, ReservationID: "r-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := instancetypes.NewCatalog(it)
	if err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{apis.LabelHostname: "reserved", apis.LabelNodePool: "default", apis.LabelInstanceType: "r-type",
		apis.LabelCapacityType: apis.CapacityTypeReserved, apis.LabelCapacityReservationID: "r-1", apis.LabelTopologyZone: "test-zone-1",
		apis.LabelArch: "amd64", apis.LabelOS: "linux"}
	web := newPod("web", "1")
	web.Spec.NodeName = "reserved"
	n := managed(&scheduling.Node{Name: "reserved", NodePool: "default", Labels: labels, Capacity: it.Capacity.List(),
		Allocatable: it.Allocatable().List(), Pods: []*corev1.Pod{web}, Initialized: true})
	n.Drift = &consolidation.DriftStatus{Reason: "NodePoolDrifted", Since: now.Add(-time.Hour)}
	c := consolidation.Cluster{Nodes: []*consolidation.Node{n}, NodePools: []scheduling.Pool{{NodePool: newPool("default"), InstanceTypes: catalog}}}
	d := consolidation.Evaluate(c, now, consolidation.Options{TerminateFirstDrift: true})
	if len(d.Commands) != 1 || !d.Commands[0].TerminateFirst {
		t.Fatalf("want one terminate-first command, got %+v (%v)", d.Commands, d.Candidates)
	}
	if vs := CheckDisruption(c, d, now); len(vs) > 0 {
		t.Fatalf("violations on a terminate-first decision:\n%v", Err(vs))
	}
}
