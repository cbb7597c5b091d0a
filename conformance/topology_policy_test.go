package conformance

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
)

// spreadLabel is the custom key the policy cases spread over.
const spreadLabel = "fake-label"

var testTaint = corev1.Taint{Key: "taintname", Value: "taintvalue", Effect: corev1.TaintEffectNoSchedule}

// smallNode adds an unmanaged node with lbls and taints and only 100m of
// CPU, too small for the cases' pods, so that it contributes a domain and
// nothing else.
func smallNode(w *world, name string, lbls map[string]string, taints ...corev1.Taint) {
	n := w.existingNode(name, lbls)
	n.Taints = taints
	n.Allocatable[corev1.ResourceCPU] = resource.MustParse("100m")
	n.Capacity[corev1.ResourceCPU] = resource.MustParse("100m")
}

// maxSkew is the largest difference between two counts of w.skew.
func maxSkew(w *world, cs corev1.TopologySpreadConstraint) int {
	counts := w.skew(cs.TopologyKey, cs.LabelSelector)
	if len(counts) == 0 {
		return 0
	}
	return counts[len(counts)-1] - counts[0]
}

func policyPtr(p corev1.NodeInclusionPolicy) *corev1.NodeInclusionPolicy { return &p }

// taintedPool is a pool whose nodes carry taintKey=value and spreadLabel
// in domains.
func taintedPool(name, value string, domains ...string) *apis.NodePool {
	return nodePool(name, withRequirements(anyCapacityType, req(spreadLabel, corev1.NodeSelectorOpIn, domains...)),
		withTaints(corev1.Taint{Key: "taint-key", Value: value, Effect: corev1.TaintEffectNoSchedule}))
}

var _ = register("topology",
	conformanceCase{Name: "taints-policy-ignore-existing-nodes", Run: func(t *T) {
		w := topoWorld(withLabels(spreadLabel, "baz"))
		smallNode(w, "foo", map[string]string{spreadLabel: "foo"}, testTaint)
		smallNode(w, "bar", map[string]string{spreadLabel: "bar"}, testTaint)
		cs := spread(spreadLabel, 1, corev1.DoNotSchedule, testLabels)
		cs.NodeTaintsPolicy = policyPtr(corev1.NodeInclusionPolicyIgnore)
		w.provision(spreadPods(5, "p", cs, requests("cpu", "1"))...)
		require.Equal(t, []int{1}, w.skew(spreadLabel, cs.LabelSelector), "tainted foo and bar still count as empty domains")
	}},
	conformanceCase{Name: "taints-policy-honor-existing-nodes", Run: func(t *T) {
		w := topoWorld(withLabels(spreadLabel, "baz"))
		smallNode(w, "foo", map[string]string{spreadLabel: "foo"}, testTaint)
		smallNode(w, "bar", map[string]string{spreadLabel: "bar"}, testTaint)
		cs := spread(spreadLabel, 1, corev1.DoNotSchedule, testLabels)
		cs.NodeTaintsPolicy = policyPtr(corev1.NodeInclusionPolicyHonor)
		w.provision(spreadPods(5, "p", cs, requests("cpu", "1"))...)
		require.Equal(t, []int{5}, w.skew(spreadLabel, cs.LabelSelector))
	}},
	conformanceCase{Name: "taints-policy-ignore-pool-domains", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("default", withRequirements(anyCapacityType, req(spreadLabel, corev1.NodeSelectorOpIn, "foo"))),
			taintedPool("tainted", "taint-value", "bar"))
		cs := spread(spreadLabel, 1, corev1.DoNotSchedule, testLabels)
		cs.NodeTaintsPolicy = policyPtr(corev1.NodeInclusionPolicyIgnore)
		w.provision(spreadPods(2, "p", cs)...)
		require.Equal(t, []int{1}, w.skew(spreadLabel, cs.LabelSelector))
	}},
	conformanceCase{Name: "taints-policy-honor-pool-domains", Run: func(t *T) {
		w := newWorld(defaultFakeCatalog(), nodePool("default", withRequirements(anyCapacityType, req(spreadLabel, corev1.NodeSelectorOpIn, "foo"))),
			taintedPool("tainted", "taint-value", "bar"))
		cs := spread(spreadLabel, 1, corev1.DoNotSchedule, testLabels)
		cs.NodeTaintsPolicy = policyPtr(corev1.NodeInclusionPolicyHonor)
		w.provision(spreadPods(2, "p", cs)...)
		require.Equal(t, []int{2}, w.skew(spreadLabel, cs.LabelSelector))
	}},
	conformanceCase{Name: "taints-policy-honor-exclusive-pools", Run: func(t *T) {
		pools := []*apis.NodePool{taintedPool("np-0", "nodepool-0", "foo", "bar"), taintedPool("np-1", "nodepool-1", "foo", "baz")}
		w := newWorld(defaultFakeCatalog(), pools...)
		cs := spread(spreadLabel, 1, corev1.DoNotSchedule, testLabels)
		cs.NodeTaintsPolicy = policyPtr(corev1.NodeInclusionPolicyHonor)
		var pods []*corev1.Pod
		for i := range pools {
			tol := corev1.Toleration{Key: "taint-key", Operator: corev1.TolerationOpEqual, Value: fmt.Sprintf("nodepool-%d", i), Effect: corev1.TaintEffectNoSchedule}
			pods = append(pods, spreadPods((i+1)*2, fmt.Sprintf("d%d", i), cs, tolerates(tol))...)
		}
		w.provision(pods...)
		require.Equal(t, []int{1, 2, 3}, w.skew(spreadLabel, cs.LabelSelector))
	}},
	conformanceCase{Name: "affinity-policy-ignore", Run: func(t *T) {
		w := topoWorld(withLabels(spreadLabel, "baz", "selector", "value"))
		smallNode(w, "foo", map[string]string{spreadLabel: "foo", "selector": "mismatch"})
		smallNode(w, "bar", map[string]string{spreadLabel: "bar", "selector": "mismatch"})
		cs := spread(spreadLabel, 1, corev1.DoNotSchedule, testLabels)
		cs.NodeAffinityPolicy = policyPtr(corev1.NodeInclusionPolicyIgnore)
		w.provision(spreadPods(5, "p", cs, requests("cpu", "1"), nodeSelector("selector", "value"))...)
		require.Equal(t, []int{1}, w.skew(spreadLabel, cs.LabelSelector))
	}},
	conformanceCase{Name: "affinity-policy-honor", Run: func(t *T) {
		w := topoWorld(withLabels(spreadLabel, "baz", "selector", "value"))
		smallNode(w, "foo", map[string]string{spreadLabel: "foo", "selector": "mismatch"})
		smallNode(w, "bar", map[string]string{spreadLabel: "bar", "selector": "mismatch"})
		cs := spread(spreadLabel, 1, corev1.DoNotSchedule, testLabels)
		cs.NodeAffinityPolicy = policyPtr(corev1.NodeInclusionPolicyHonor)
		w.provision(spreadPods(5, "p", cs, requests("cpu", "1"), nodeSelector("selector", "value"))...)
		require.Equal(t, []int{5}, w.skew(spreadLabel, cs.LabelSelector))
	}},
	conformanceCase{Name: "zone-and-capacity-type", Run: func(t *T) {
		zone := zoneSpread
		w := topoWorld()
		for i, round := range []struct{ n, ct, zone int }{{2, 1, 1}, {3, 3, 2}, {3, 5, 4}, {11, 11, 7}} {
			w.provision(spreadPods(round.n, fmt.Sprintf("r%d", i), capacityTypeSpread, spreads(zone))...)
			for _, c := range w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector) {
				require.LessOrEqual(t, c, round.ct, "round %d", i)
			}
			for _, c := range w.skew(apis.LabelTopologyZone, zone.LabelSelector) {
				require.LessOrEqual(t, c, round.zone, "round %d", i)
			}
		}
	}},
	conformanceCase{Name: "hostname-zone-capacity-type", Run: func(t *T) {
		ct := capacityTypeSpread
		zone := spread(apis.LabelTopologyZone, 2, corev1.DoNotSchedule, testLabels)
		host := spread(apis.LabelHostname, 3, corev1.DoNotSchedule, testLabels)
		w := newWorld(assorted, topoPool())
		for i := 1; i < 15; i++ {
			pods := spreadPods(i, fmt.Sprintf("r%d", i), ct, spreads(zone, host))
			w.provision(pods...)
			require.LessOrEqual(t, maxSkew(w, ct), 1, "round %d", i)
			require.LessOrEqual(t, maxSkew(w, zone), 2, "round %d", i)
			require.LessOrEqual(t, maxSkew(w, host), 3, "round %d", i)
			require.True(t, scheduled(pods...), "round %d", i)
		}
	}},
	conformanceCase{Name: "zone-narrowed-by-node-selector", Run: func(t *T) {
		w := topoWorld()
		w.provision(append(spreadPods(5, "a", zoneSpread, nodeSelector(apis.LabelTopologyZone, "test-zone-1")),
			spreadPods(10, "b", zoneSpread, nodeSelector(apis.LabelTopologyZone, "test-zone-2"))...)...)
		require.Equal(t, []int{5, 10}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zone-narrowed-by-node-requirements", Run: func(t *T) {
		w := topoWorld()
		w.provision(spreadPods(10, "p", zoneSpread, nodeRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2")))...)
		require.Equal(t, []int{5, 5}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zone-narrowed-by-required-affinity", Run: func(t *T) {
		w := topoWorld()
		w.provision(spreadPods(6, "a", zoneSpread, nodeRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2")))...)
		require.Equal(t, []int{3, 3}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
		w.setPool(nodePool("default", withRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, fakeZones...))))
		w.provision(spreadPods(1, "b", zoneSpread, nodeRequirements(req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-2", "test-zone-3")))...)
		require.Equal(t, []int{1, 3, 3}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector), "the empty zone 3 takes the pod")
		w.provision(spreadPods(5, "c", zoneSpread)...)
		require.Equal(t, []int{4, 4, 4}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "zone-not-narrowed-by-preference", Run: func(t *T) {
		w := topoWorld()
		w.provision(spreadPods(6, "p", zoneSpread, nodePreference(1, req(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1", "test-zone-2")))...)
		require.Equal(t, []int{2, 2, 2}, w.skew(apis.LabelTopologyZone, zoneSpread.LabelSelector))
	}},
	conformanceCase{Name: "capacity-type-narrowed-by-node-selector", Run: func(t *T) {
		cs := spread(apis.LabelCapacityType, 1, corev1.ScheduleAnyway, testLabels)
		w := topoWorld()
		w.provision(append(spreadPods(5, "a", cs, nodeSelector(apis.LabelCapacityType, apis.CapacityTypeSpot)),
			spreadPods(5, "b", cs, nodeSelector(apis.LabelCapacityType, apis.CapacityTypeOnDemand))...)...)
		require.Equal(t, []int{5, 5}, w.skew(apis.LabelCapacityType, cs.LabelSelector))
	}},
	conformanceCase{Name: "capacity-type-narrowed-by-affinity", Run: func(t *T) {
		w := topoWorld()
		w.provision(spreadPods(3, "a", capacityTypeSpread, nodeRequirements(req(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot)))...)
		require.Equal(t, []int{3}, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector))
		w.provision(spreadPods(1, "b", capacityTypeSpread, nodeRequirements(req(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand, apis.CapacityTypeSpot)))...)
		require.Equal(t, []int{1, 3}, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector))
		w.provision(spreadPods(5, "c", capacityTypeSpread)...)
		require.Equal(t, []int{4, 5}, w.skew(apis.LabelCapacityType, capacityTypeSpread.LabelSelector))
	}},
)
