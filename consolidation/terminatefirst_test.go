package consolidation

import (
	"maps"
	"time"

	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
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
	assert.Contains(t, verdict(t, d, "reserved").Reason, "every capacity reservation these instance types could launch into is full")
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

// Static drift's terminate-first (staticdrift.go): a static NodePool at its
// node limit deletes drifted nodes first, as many as the budget allows;
// without the gate, or while the NodePool is not Ready, they stay.
func TestTerminateFirstStaticAtLimit(t *testing.T) {
	np := newPool("static", withReplicas(3), withBudgets(apis.Budget{Nodes: "2"}))
	np.Spec.Limits = corev1.ResourceList{"nodes": resource.MustParse("3")}
	cluster := func() Cluster {
		return Cluster{Nodes: []*Node{
			newNode("s-0", "static", 2, apis.CapacityTypeOnDemand, nil, drifted(time.Hour)),
			newNode("s-1", "static", 2, apis.CapacityTypeOnDemand, nil, drifted(2*time.Hour)),
			newNode("s-2", "static", 2, apis.CapacityTypeOnDemand, nil, drifted(3*time.Hour)),
		}, NodePools: pools(np)}
	}
	requireNoCommand(t, Evaluate(cluster(), now, Options{}))

	d := Evaluate(cluster(), now, terminateFirstOn)
	require.Len(t, d.Commands, 2, "the budget allows two: %v", d.Candidates)
	for i, want := range []string{"s-2", "s-1"} {
		c := d.Commands[i]
		assert.Equal(t, MethodStaticDrift, c.Method)
		assert.Equal(t, []string{want}, c.Delete)
		assert.Empty(t, c.Replacements)
		assert.True(t, c.TerminateFirst)
		assert.Contains(t, c.Reason, "terminate first (the NodePool is at its node limit (3); static provisioning refills the NodePool)")
	}
	assert.Contains(t, verdict(t, d, "s-0").Reason, "budget")

	np.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "NodeClassNotReady"}}
	d = Evaluate(cluster(), now, terminateFirstOn)
	requireNoCommand(t, d)
	assert.Contains(t, verdict(t, d, "s-2").Reason, "at its node limit (3), and it cannot launch a replacement first")
}

// A static NodePool whose only offerings are full reservations deletes
// first, with the gate, the drifted nodes holding a unit of an offered
// reservation; a node launched on-demand with a stale reservation label is
// blocked.
func TestTerminateFirstStaticFullReservations(t *testing.T) {
	c := reservedDriftCluster(t, true, nil, apis.CapacityTypeReserved)
	np := c.NodePools[0].NodePool
	replicas := int64(2)
	np.Spec.Replicas = &replicas
	stale := *c.Nodes[0]
	sn := *c.Nodes[0].Node
	sn.Name, sn.Labels = "stale", maps.Clone(sn.Labels)
	sn.Labels[apis.LabelHostname] = "stale"
	sn.Labels[apis.LabelCapacityType] = apis.CapacityTypeOnDemand
	stale.Node = &sn
	stale.NodeClaim = &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "stale-claim"}}
	stale.Drift = &DriftStatus{Reason: "NodePoolDrifted", Since: now.Add(-2 * time.Hour)}
	c.Nodes = append(c.Nodes, &stale)

	// Without the gate both are replaced first, whatever the reservation.
	d := Evaluate(c, now, Options{})
	require.Len(t, d.Commands, 2, "%v", d.Candidates)
	for _, cmd := range d.Commands {
		assert.False(t, cmd.TerminateFirst)
		assert.Len(t, cmd.Replacements, 1)
	}
	d = Evaluate(c, now, terminateFirstOn)
	require.Len(t, d.Commands, 1, "%v", d.Candidates)
	assert.Equal(t, []string{"reserved"}, d.Commands[0].Delete)
	assert.True(t, d.Commands[0].TerminateFirst)
	assert.Contains(t, verdict(t, d, "stale").Reason, "capacity reservations are full, and it cannot launch a replacement first")
}
