package consolidation

import (
	"time"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// Terminate-first drift (v1.15, the TerminateFirstDrift gate), after
// upstream's terminatefirst_test.go "Drift/Reserved": a drifted node
// launched into reservation r-1, whose only unit it holds, in a NodePool
// that allows r-reserved in the capacity types given.
func reservedDriftCluster(t *testing.T, available bool, pods []*corev1.Pod, capacityTypes ...string) Cluster {
	t.Helper()
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:     "r-reserved",
		Labels:   map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux"},
		Capacity: resources.New(8000, 32<<30, 110),
		Offerings: []instancetypes.Offering{
			{Zone: "test-zone-1", CapacityType: apis.CapacityTypeOnDemand, Price: 0.40, Available: true},
			{Zone: "test-zone-1", CapacityType: apis.CapacityTypeReserved, Price: 0.0000004, Available: available, ReservationID: "r-1"},
		},
	})
	require.NoError(t, err)
	catalog, err := instancetypes.NewCatalog(it)
	require.NoError(t, err)
	np := newPool("default", withRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "r-reserved"),
		withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, capacityTypes...))
	labels := map[string]string{
		apis.LabelHostname: "reserved", apis.LabelNodePool: "default", apis.LabelInstanceType: "r-reserved",
		apis.LabelCapacityType: apis.CapacityTypeReserved, apis.LabelCapacityReservationID: "r-1",
		apis.LabelTopologyZone: "test-zone-1", apis.LabelArch: "amd64", apis.LabelOS: "linux", apis.LabelNodeInitialized: "true",
	}
	for _, p := range pods {
		p.Spec.NodeName = "reserved"
	}
	n := &Node{
		Node: &scheduling.Node{Name: "reserved", NodePool: "default", Labels: labels, Capacity: it.Capacity.List(), Allocatable: it.Allocatable().List(),
			Pods: pods, Initialized: true},
		NodeClaim:     &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "reserved-claim"}},
		InitializedAt: now.Add(-time.Hour),
		Drift:         &DriftStatus{Reason: "NodePoolDrifted", Since: now.Add(-time.Hour)},
	}
	return Cluster{Nodes: []*Node{n}, NodePools: []scheduling.Pool{{NodePool: np, InstanceTypes: catalog}}}
}

func apartPods(n int) []*corev1.Pod {
	out := pods(n, "apart", "1", withLabel("app", "apart"))
	for _, p := range out {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "apart"}}, TopologyKey: apis.LabelHostname}}}}
	}
	return out
}

var terminateFirstOn = Options{TerminateFirstDrift: true}

func TestTerminateFirstDriftFullReservation(t *testing.T) {
	c := reservedDriftCluster(t, true, []*corev1.Pod{newPod("web", "1")}, apis.CapacityTypeReserved)
	d := Evaluate(c, now, terminateFirstOn)
	require.Len(t, d.Commands, 1, "%v", d.Candidates)
	cmd := d.Commands[0]
	assert.Equal(t, MethodDrift, cmd.Method)
	assert.Equal(t, []string{"reserved"}, cmd.Delete)
	assert.Empty(t, cmd.Replacements, "delete-only")
	assert.True(t, cmd.TerminateFirst)
	assert.Empty(t, cmd.Moves, "the pod goes to the node provisioning launches into the freed unit")
	assert.Contains(t, cmd.Reason, "terminate first (reservation r-1 is full; provisioning launches 1 new node into the freed unit)")
	assert.Contains(t, verdict(t, d, "reserved").Reason, "terminated first")
}

func TestTerminateFirstDriftNeedsTheGate(t *testing.T) {
	c := reservedDriftCluster(t, true, []*corev1.Pod{newPod("web", "1")}, apis.CapacityTypeReserved)
	d := Evaluate(c, now, Options{})
	requireNoCommand(t, d)
	assert.Contains(t, verdict(t, d, "reserved").Reason, "reserved capacity exhausted")
}

func TestTerminateFirstDriftOneUnitOnly(t *testing.T) {
	// Two pods that need a node each: the freed unit holds one.
	c := reservedDriftCluster(t, true, apartPods(2), apis.CapacityTypeReserved)
	requireNoCommand(t, Evaluate(c, now, terminateFirstOn))
}

func TestTerminateFirstDriftUnavailableReservation(t *testing.T) {
	// A reservation unavailable for another reason stays so once credited.
	c := reservedDriftCluster(t, false, []*corev1.Pod{newPod("web", "1")}, apis.CapacityTypeReserved)
	requireNoCommand(t, Evaluate(c, now, terminateFirstOn))
}

func TestTerminateFirstDriftReplacesFirstWithFallback(t *testing.T) {
	// On-demand is allowed too: the replacement launches first, on-demand.
	c := reservedDriftCluster(t, true, []*corev1.Pod{newPod("web", "1")}, apis.CapacityTypeReserved, apis.CapacityTypeOnDemand)
	d := Evaluate(c, now, terminateFirstOn)
	require.Len(t, d.Commands, 1, "%v", d.Candidates)
	require.Len(t, d.Commands[0].Replacements, 1)
	assert.Equal(t, apis.CapacityTypeOnDemand, d.Commands[0].Replacements[0].CapacityType)
}

func TestTerminateFirstDriftOnlyReservedNodes(t *testing.T) {
	// A node launched on-demand that carries a reservation label is no
	// reserved node: drift stays blocked.
	c := reservedDriftCluster(t, true, []*corev1.Pod{newPod("web", "1")}, apis.CapacityTypeReserved)
	c.Nodes[0].Node.Labels[apis.LabelCapacityType] = apis.CapacityTypeOnDemand
	requireNoCommand(t, Evaluate(c, now, terminateFirstOn))
}
