package conformance

import (
	"strings"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
)

// Upstream's repair_terminatefirst_test.go at v1.15.0: node repair with
// the TerminateFirstRepair gate, which deletes a node first when its
// NodePool cannot launch a replacement before it (a static NodePool at its
// node limit or whose reservations are full, a node in a full reservation
// its pods need).

// repairTGP is the suite's policy drain bound, carried on every path.
const repairTGP = 10 * time.Minute

// tfCluster is the suite's cluster: badNode with a 10-minute bound, the
// TerminateFirstRepair gate as given.
func tfCluster(t *T, gate bool) *cluster {
	t.Helper()
	policy := badNode
	policy.TerminationGracePeriod = durationPtr(repairTGP)
	c := repairCluster(t, policy)
	c.opts.TerminateFirstRepair = gate
	return c
}

// staticAtLimit is a static NodePool whose node limit is its replicas.
func staticAtLimit(n int64) *apis.NodePool { return repairPool(replicas(n), nodeLimit(n)) }

func poolNotReady(np *apis.NodePool) {
	np.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "NotReady", LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}
}

func poolDeleting(np *apis.NodePool) {
	np.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Minute)}
	np.Finalizers = []string{"karpenter.sh/test-finalizer"}
}

// reservationOf is the reservation the suite adds to its dearest type.
const reservationOf = "r-" + dearestOnDemand

// reservedDearest is the assorted catalog in which the dearest on-demand
// type also has reservation r-<name> in its zone with units units left
// (available as said), at a millionth of its price; onDemand false makes
// its on-demand offering unavailable.
func reservedDearest(units int, available, onDemand bool) instancetypes.Catalog {
	var types []*instancetypes.InstanceType
	for _, it := range assortedTypes(nil) {
		if it.Name == dearestOnDemand {
			o := it.Offerings[0]
			o.Available = onDemand
			spec := instancetypes.Spec{Name: it.Name, Labels: it.Labels(), Capacity: it.Capacity, Overhead: it.Overhead,
				Offerings: []instancetypes.Offering{o, {Zone: o.Zone, CapacityType: apis.CapacityTypeReserved, Price: o.Price / 1e6,
					Available: available, ReservationID: reservationOf, ReservationCapacity: units}}}
			delete(spec.Labels, apis.LabelInstanceType)
			delete(spec.Labels, apis.LabelTopologyZone)
			delete(spec.Labels, apis.LabelCapacityType)
			if _, ok := it.Labels()[instancetypes.FakeLabelSpecial]; !ok {
				spec.AbsentLabels = []string{instancetypes.FakeLabelSpecial}
			}
			it = mustType(spec)
		}
		types = append(types, it)
	}
	return mustCatalog(types...)
}

// dearestOnly restricts a NodePool to the dearest type in the capacity
// types given.
func dearestOnly(capacityTypes ...string) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
			{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{dearestOnDemand}},
			{Key: apis.LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: capacityTypes},
		}
	}
}

// reservedNodeIn makes a node of the dearest type one launched into
// reservation id.
func reservedNodeIn(catalog instancetypes.Catalog, name, id string, opts ...nodeOption) *consolidation.Node {
	n := managedNodeOf(catalog, name, "default", dearestOnDemand, opts...)
	n.Node.Labels[apis.LabelCapacityType] = apis.CapacityTypeReserved
	n.Node.Labels[apis.LabelCapacityReservationID] = id
	n.Health = &consolidation.NodeHealth{Created: n.InitializedAt}
	badFor(31 * time.Minute)(n)
	return n
}

// terminateFirst checks the decision is one repair command deleting node
// first, with no replacement and the suite's drain bound.
func terminateFirst(t *T, d consolidation.Decision, node string) consolidation.Command {
	t.Helper()
	cmd := repairCommand(t, d)
	require.True(t, cmd.TerminateFirst, "%+v", cmd)
	require.Equal(t, []string{node}, cmd.Delete)
	require.Empty(t, cmd.Replacements)
	require.Equal(t, repairTGP, boundOf(t, cmd))
	require.Contains(t, cmd.Reason, "BadNode=False")
	return cmd
}

// replaceFirst checks the decision is one repair command replacing node
// with one new node.
func replaceFirst(t *T, d consolidation.Decision, node string) {
	t.Helper()
	cmd := repairCommand(t, d)
	require.False(t, cmd.TerminateFirst)
	require.Equal(t, []string{node}, cmd.Delete)
	require.Len(t, cmd.Replacements, 1)
	require.Equal(t, repairTGP, boundOf(t, cmd))
}

// staticReservedCluster is the "Static Capacity Reservations" context:
// a static NodePool of one replica, limit 2, of the dearest type in the
// capacity types given, whose reservation has units left.
func staticReservedCluster(t *T, gate bool, catalog instancetypes.Catalog, capacityTypes ...string) *cluster {
	return tfCluster(t, gate).poolWith(repairPool(replicas(1), nodeLimit(2), dearestOnly(capacityTypes...)), catalog)
}

var _ = register("repair-terminate-first",
	conformanceCase{Name: "static-at-limit-deleted-first", Run: func(t *T) {
		c := tfCluster(t, true).pool(staticAtLimit(1)).node(repairNode("bad", "default", badFor(31*time.Minute)))
		cmd := terminateFirst(t, c.evaluate(), "bad")
		require.Contains(t, cmd.Reason, "at its node limit (1)")
	}},
	conformanceCase{Name: "static-below-limit-replaced-first", Run: func(t *T) {
		c := tfCluster(t, true).pool(repairPool(replicas(1), nodeLimit(2))).node(repairNode("bad", "default", badFor(31*time.Minute)))
		replaceFirst(t, c.evaluate(), "bad")
	}},
	conformanceCase{Name: "static-at-limit-gate-off-blocked", Run: func(t *T) {
		c := tfCluster(t, false).pool(staticAtLimit(1)).node(repairNode("bad", "default", badFor(31*time.Minute)))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "at its node limit (1) and cannot stage a replacement")
	}},
	conformanceCase{Name: "static-at-limit-not-ready-blocked", Run: func(t *T) {
		np := staticAtLimit(1)
		poolNotReady(np)
		c := tfCluster(t, true).pool(np).node(repairNode("bad", "default", badFor(31*time.Minute)))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "cannot stage a replacement")
	}},
	conformanceCase{Name: "static-scaling-down-skipped", Run: func(t *T) {
		c := tfCluster(t, true).pool(repairPool(replicas(1), nodeLimit(3))).
			node(repairNode("bad", "default", badFor(31*time.Minute))).node(repairNode("ok", "default"))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "scaling down")
		require.NotContains(t, verdictOf(d, "bad"), "cannot stage")
	}},
	conformanceCase{Name: "reserved-full-gate-off-blocked", Run: func(t *T) {
		catalog := reservedDearest(0, true, true)
		c := tfCluster(t, false).poolWith(repairPool(dearestOnly(apis.CapacityTypeReserved)), catalog).
			node(reservedNodeIn(catalog, "bad", reservationOf, withPods(pod("p", ""))))
		noRepair(t, c.evaluate())
	}},
	conformanceCase{Name: "dynamic-replaced-first", Run: func(t *T) {
		c := tfCluster(t, true).pool(repairPool()).node(repairNode("bad", "default", withPods(pod("p", "")), badFor(31*time.Minute)))
		replaceFirst(t, c.evaluate(), "bad")
	}},
	conformanceCase{Name: "one-command-per-pass", Run: func(t *T) {
		c := tfCluster(t, true).pool(staticAtLimit(10)).
			node(repairNode("bad-0", "default", badFor(31*time.Minute))).node(repairNode("bad-1", "default", badFor(31*time.Minute))).
			healthyNodes(8, "default")
		c.NodePools[0].NodePool.Spec.Disruption.Budgets = []apis.Budget{nodes("100%")}
		terminateFirst(t, c.evaluate(), "bad-0")
	}},
	conformanceCase{Name: "reserved-full-deleted-first", Run: func(t *T) {
		catalog := reservedDearest(0, true, true)
		c := tfCluster(t, true).poolWith(repairPool(dearestOnly(apis.CapacityTypeReserved)), catalog).
			node(reservedNodeIn(catalog, "bad", reservationOf, withPods(pod("p", ""))))
		cmd := terminateFirst(t, c.evaluate(), "bad")
		require.Contains(t, cmd.Reason, "reservation "+reservationOf+" is full; provisioning launches 1 new node into the freed unit")
		require.Empty(t, cmd.Moves, "the pod waits for the node launched into the freed unit")
	}},
	conformanceCase{Name: "reserved-full-blocking-pod-planned", Run: func(t *T) {
		catalog := reservedDearest(0, true, true)
		blocking := pod("blocking", "", podAnnotation(apis.AnnotationDoNotDisrupt, "true"))
		c := tfCluster(t, true).poolWith(repairPool(dearestOnly(apis.CapacityTypeReserved)), catalog).
			node(reservedNodeIn(catalog, "bad", reservationOf, withPods(blocking)))
		cmd := terminateFirst(t, c.evaluate(), "bad")
		require.Contains(t, cmd.Reason, "provisioning launches 1 new node into the freed unit", "the blocking pod is planned too")
	}},
	conformanceCase{Name: "static-no-limit-gate-on", Run: func(t *T) {
		c := tfCluster(t, true).pool(repairPool(replicas(1))).node(repairNode("bad", "default", badFor(31*time.Minute)))
		replaceFirst(t, c.evaluate(), "bad")
	}},
	conformanceCase{Name: "static-no-limit-gate-off", Run: func(t *T) {
		c := tfCluster(t, false).pool(repairPool(replicas(1))).node(repairNode("bad", "default", badFor(31*time.Minute)))
		replaceFirst(t, c.evaluate(), "bad")
	}},
	conformanceCase{Name: "static-below-limit-gate-off", Run: func(t *T) {
		c := tfCluster(t, false).pool(repairPool(replicas(1), nodeLimit(2))).node(repairNode("bad", "default", badFor(31*time.Minute)))
		replaceFirst(t, c.evaluate(), "bad")
	}},
	conformanceCase{Name: "drift-gate-does-not-count", Run: func(t *T) {
		c := tfCluster(t, false).pool(staticAtLimit(1)).node(repairNode("bad", "default", badFor(31*time.Minute)))
		c.opts.TerminateFirstDrift = true
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "cannot stage a replacement")
	}},
	conformanceCase{Name: "static-at-limit-deleting-blocked", Run: func(t *T) {
		np := staticAtLimit(1)
		poolDeleting(np)
		c := tfCluster(t, true).pool(np).node(repairNode("bad", "default", badFor(31*time.Minute)))
		noRepair(t, c.evaluate())
	}},
	conformanceCase{Name: "static-full-reservation-below-limit", Run: func(t *T) {
		catalog := reservedDearest(0, true, true)
		c := staticReservedCluster(t, true, catalog, apis.CapacityTypeReserved).node(reservedNodeIn(catalog, "bad", reservationOf))
		cmd := terminateFirst(t, c.evaluate(), "bad")
		require.Contains(t, cmd.Reason, "capacity reservations are full")
	}},
	conformanceCase{Name: "static-on-demand-unavailable-waits", Run: func(t *T) {
		catalog := reservedDearest(0, true, false)
		c := staticReservedCluster(t, true, catalog, apis.CapacityTypeReserved, apis.CapacityTypeOnDemand).node(reservedNodeIn(catalog, "bad", reservationOf))
		cmd := repairCommand(t, c.evaluate())
		require.False(t, cmd.TerminateFirst)
		require.Len(t, cmd.Replacements, 1)
	}},
	conformanceCase{Name: "static-full-reservation-not-ready-blocked", Run: func(t *T) {
		catalog := reservedDearest(0, true, true)
		c := staticReservedCluster(t, true, catalog, apis.CapacityTypeReserved).node(reservedNodeIn(catalog, "bad", reservationOf))
		poolNotReady(c.NodePools[0].NodePool)
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "capacity reservations are full and cannot stage a replacement")
	}},
	conformanceCase{Name: "static-reservation-no-longer-offered-blocked", Run: func(t *T) {
		catalog := reservedDearest(0, true, true)
		c := staticReservedCluster(t, true, catalog, apis.CapacityTypeReserved).node(reservedNodeIn(catalog, "bad", "r-canceled"))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "capacity reservations are full and cannot stage a replacement")
	}},
	conformanceCase{Name: "static-reservation-unavailable-blocked", Run: func(t *T) {
		catalog := reservedDearest(0, false, true)
		c := staticReservedCluster(t, true, catalog, apis.CapacityTypeReserved).node(reservedNodeIn(catalog, "bad", reservationOf))
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "capacity reservations are full and cannot stage a replacement")
	}},
	conformanceCase{Name: "static-stale-reservation-label-blocked", Run: func(t *T) {
		catalog := reservedDearest(0, true, true)
		n := reservedNodeIn(catalog, "bad", reservationOf)
		n.Node.Labels[apis.LabelCapacityType] = apis.CapacityTypeOnDemand
		c := staticReservedCluster(t, true, catalog, apis.CapacityTypeReserved).node(n)
		d := c.evaluate()
		noRepair(t, d)
		require.Contains(t, verdictOf(d, "bad"), "capacity reservations are full and cannot stage a replacement")
	}},
	conformanceCase{Name: "static-reservation-with-room-replaced-first", Run: func(t *T) {
		catalog := reservedDearest(1, true, true)
		c := staticReservedCluster(t, true, catalog, apis.CapacityTypeReserved).node(reservedNodeIn(catalog, "bad", reservationOf))
		replaceFirst(t, c.evaluate(), "bad")
	}},
	conformanceCase{Name: "static-on-demand-fallback-replaced-first", Run: func(t *T) {
		catalog := reservedDearest(0, true, true)
		c := staticReservedCluster(t, true, catalog, apis.CapacityTypeReserved, apis.CapacityTypeOnDemand).node(reservedNodeIn(catalog, "bad", reservationOf))
		replaceFirst(t, c.evaluate(), "bad")
	}},
	conformanceCase{Name: "static-full-reservation-gate-off-replaced-first", Run: func(t *T) {
		catalog := reservedDearest(0, true, true)
		c := staticReservedCluster(t, false, catalog, apis.CapacityTypeReserved).node(reservedNodeIn(catalog, "bad", reservationOf))
		d := c.evaluate()
		replaceFirst(t, d, "bad")
		require.True(t, strings.HasPrefix(d.Commands[0].Reason, "Unhealthy/replace:"), d.Commands[0].Reason)
	}},
)
