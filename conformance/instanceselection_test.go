package conformance

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// Upstream's instance-selection suite: the assorted catalog (one offering
// per type), a NodePool allowing spot and on-demand and both
// architectures, claims truncated to 60 types.

func selectionPool(reqs ...corev1.NodeSelectorRequirement) *apis.NodePool {
	if reqs == nil {
		reqs = []corev1.NodeSelectorRequirement{
			req(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot, apis.CapacityTypeOnDemand),
			req(apis.LabelArch, corev1.NodeSelectorOpIn, apis.ArchitectureArm64, apis.ArchitectureAmd64),
		}
	}
	return nodePool("default", withRequirements(reqs...))
}

func selectionWorld(catalog instancetypes.Catalog, reqs ...corev1.NodeSelectorRequirement) *world {
	w := newWorld(catalog, selectionPool(reqs...))
	w.opts = scheduling.Options{MaxInstanceTypes: 60}
	return w
}

// assortedMinPrice is the cheapest offering of the assorted catalog.
var assortedMinPrice = 0.1 + 0.1*float64(1<<30)/1e9

// cheapestWith provisions one pod with opts into a world whose pool has
// reqs (the suite's pool when none) and checks that it launches at the
// catalog's lowest price and that every type the claim may launch has each
// label of want, among its offerings for zone and capacity type.
func cheapestWith(reqs []corev1.NodeSelectorRequirement, want map[string]string, opts ...podOption) func(t *T) {
	return func(t *T) {
		w := selectionWorld(assorted, reqs...)
		p := ppod("p", opts...)
		res := w.provision(p)
		require.True(t, scheduled(p), "%v", res.Unschedulable)
		require.Len(t, res.NodeClaims, 1)
		nc := res.NodeClaims[0]
		require.InDelta(t, assortedMinPrice, nc.PricePerHour, 1e-9)
		for _, name := range nc.InstanceTypeOptions {
			it, _ := assorted.Get(name)
			for k, v := range want {
				require.True(t, it.Requirements.Get(k).Has(v), "option %s lacks %s=%s", name, k, v)
			}
		}
	}
}

func in(key string, values ...string) corev1.NodeSelectorRequirement {
	return req(key, corev1.NodeSelectorOpIn, values...)
}

// minValuesType is one of the small hand-made types of the minValues specs:
// arm64 (unless arch says otherwise) linux, cpu CPUs and as many Gi, one
// spot offering, and an optional numeric label.
func minValuesType(name string, cpu int64, price float64, arch, numeric string) *instancetypes.InstanceType {
	if arch == "" {
		arch = apis.ArchitectureArm64
	}
	labels := map[string]string{apis.LabelArch: arch, apis.LabelOS: "linux"}
	var absent []string
	if numeric != "" {
		labels[numericLabel] = numeric
	} else {
		absent = []string{numericLabel}
	}
	return mustType(instancetypes.Spec{
		Name: name, Labels: labels, AbsentLabels: absent,
		Capacity:  resources.New(cpu*1000, cpu<<30, 5),
		Overhead:  fakeOverhead,
		Offerings: []instancetypes.Offering{offering("test-zone-1-spot", apis.CapacityTypeSpot, price, true)},
	})
}

const numericLabel = "karpenter/numerical-value"

func withMinValues(r corev1.NodeSelectorRequirement, n int) func(*apis.NodePool) {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			apis.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: r.Operator, Values: r.Values, MinValues: &n})
	}
}

// twoPodsTwoNodes provisions two 0.9-CPU pods (with opts) into a pool made
// of reqs over types and checks the outcome: with separate is true, both
// are placed on separate nodes whose first claim has at least two types;
// otherwise neither is placed.
func twoPods(types []*instancetypes.InstanceType, separate bool, maxTypes int, poolOpts []poolOption, opts ...podOption) func(t *T) {
	return func(t *T) {
		w := newWorld(mustCatalog(types...), nodePool("default", poolOpts...))
		w.opts.MaxInstanceTypes = maxTypes
		pods := ppods(2, "p", append([]podOption{requests("cpu", "0.9", "memory", "0.9Gi")}, opts...)...)
		res := w.provision(pods...)
		if !separate {
			require.Equal(t, 0, countScheduled(pods), "%v", res.NodeClaims)
			return
		}
		require.True(t, scheduled(pods...), "%v", res.Unschedulable)
		require.NotEqual(t, pods[0].Spec.NodeName, pods[1].Spec.NodeName)
		require.GreaterOrEqual(t, len(res.NodeClaims[0].InstanceTypeOptions), 2)
	}
}

func noArmWhere(zone string) instancetypes.Catalog {
	var keep []*instancetypes.InstanceType
	for _, it := range assortedTypes(nil) {
		if it.Labels()[apis.LabelArch] == apis.ArchitectureArm64 && (zone == "" || it.Offerings[0].Zone == zone) {
			continue
		}
		keep = append(keep, it)
	}
	return mustCatalog(keep...)
}

var _ = register("instanceselection",
	conformanceCase{Name: "cheapest", Run: cheapestWith(nil, nil)},
	conformanceCase{Name: "cheapest-pod-amd64", Run: cheapestWith(nil, map[string]string{apis.LabelArch: apis.ArchitectureAmd64},
		nodeRequirements(in(apis.LabelArch, apis.ArchitectureAmd64)))},
	conformanceCase{Name: "cheapest-pod-arm64", Run: cheapestWith(nil, map[string]string{apis.LabelArch: apis.ArchitectureArm64},
		nodeRequirements(in(apis.LabelArch, apis.ArchitectureArm64)))},
	conformanceCase{Name: "cheapest-pool-amd64", Run: cheapestWith([]corev1.NodeSelectorRequirement{in(apis.LabelArch, apis.ArchitectureAmd64)},
		map[string]string{apis.LabelArch: apis.ArchitectureAmd64})},
	conformanceCase{Name: "cheapest-pool-arm64", Run: cheapestWith([]corev1.NodeSelectorRequirement{in(apis.LabelArch, apis.ArchitectureArm64)},
		map[string]string{apis.LabelArch: apis.ArchitectureArm64})},
	conformanceCase{Name: "cheapest-pool-windows", Run: cheapestWith([]corev1.NodeSelectorRequirement{in(apis.LabelOS, "windows")},
		map[string]string{apis.LabelOS: "windows"})},
	conformanceCase{Name: "cheapest-pod-windows", Run: cheapestWith(nil, map[string]string{apis.LabelOS: "windows"},
		nodeRequirements(in(apis.LabelOS, "windows")))},
	conformanceCase{Name: "cheapest-pool-windows-again", Run: cheapestWith([]corev1.NodeSelectorRequirement{in(apis.LabelOS, "windows")},
		map[string]string{apis.LabelOS: "windows"})},
	conformanceCase{Name: "cheapest-pod-linux", Run: cheapestWith(nil, map[string]string{apis.LabelOS: "linux"},
		nodeRequirements(in(apis.LabelOS, "linux")))},
	conformanceCase{Name: "cheapest-pod-linux-again", Run: cheapestWith(nil, map[string]string{apis.LabelOS: "linux"},
		nodeRequirements(in(apis.LabelOS, "linux")))},
	conformanceCase{Name: "cheapest-pool-zone", Run: cheapestWith([]corev1.NodeSelectorRequirement{in(apis.LabelTopologyZone, "test-zone-2")},
		map[string]string{apis.LabelTopologyZone: "test-zone-2"})},
	conformanceCase{Name: "cheapest-pod-zone", Run: cheapestWith(nil, map[string]string{apis.LabelTopologyZone: "test-zone-2"},
		nodeRequirements(in(apis.LabelTopologyZone, "test-zone-2")))},
	conformanceCase{Name: "cheapest-pool-spot", Run: cheapestWith([]corev1.NodeSelectorRequirement{in(apis.LabelCapacityType, apis.CapacityTypeSpot)},
		map[string]string{apis.LabelCapacityType: apis.CapacityTypeSpot})},
	conformanceCase{Name: "cheapest-pod-spot", Run: cheapestWith(nil, map[string]string{apis.LabelCapacityType: apis.CapacityTypeSpot},
		nodeRequirements(in(apis.LabelCapacityType, apis.CapacityTypeSpot)))},
	conformanceCase{Name: "cheapest-pool-on-demand-zone", Run: cheapestWith(
		[]corev1.NodeSelectorRequirement{in(apis.LabelCapacityType, apis.CapacityTypeOnDemand), in(apis.LabelTopologyZone, "test-zone-1")},
		map[string]string{apis.LabelCapacityType: apis.CapacityTypeOnDemand, apis.LabelTopologyZone: "test-zone-1"})},
	conformanceCase{Name: "cheapest-pod-spot-zone", Run: cheapestWith(nil,
		map[string]string{apis.LabelCapacityType: apis.CapacityTypeSpot, apis.LabelTopologyZone: "test-zone-1"},
		nodeRequirements(in(apis.LabelCapacityType, apis.CapacityTypeSpot), in(apis.LabelTopologyZone, "test-zone-1")))},
	conformanceCase{Name: "cheapest-pool-spot-pod-zone", Run: cheapestWith([]corev1.NodeSelectorRequirement{in(apis.LabelCapacityType, apis.CapacityTypeSpot)},
		map[string]string{apis.LabelCapacityType: apis.CapacityTypeSpot, apis.LabelTopologyZone: "test-zone-2"},
		nodeRequirements(in(apis.LabelTopologyZone, "test-zone-2")))},
	conformanceCase{Name: "cheapest-pool-four-keys", Run: cheapestWith([]corev1.NodeSelectorRequirement{
		in(apis.LabelArch, apis.ArchitectureArm64), in(apis.LabelOS, "windows"),
		in(apis.LabelCapacityType, apis.CapacityTypeOnDemand), in(apis.LabelTopologyZone, "test-zone-1")},
		map[string]string{apis.LabelArch: apis.ArchitectureArm64, apis.LabelOS: "windows",
			apis.LabelCapacityType: apis.CapacityTypeOnDemand, apis.LabelTopologyZone: "test-zone-1"})},
	conformanceCase{Name: "cheapest-pool-arch-os-pod-spot-zone", Run: cheapestWith(
		[]corev1.NodeSelectorRequirement{in(apis.LabelArch, apis.ArchitectureAmd64), in(apis.LabelOS, "linux")},
		map[string]string{apis.LabelArch: apis.ArchitectureAmd64, apis.LabelOS: "linux",
			apis.LabelCapacityType: apis.CapacityTypeSpot, apis.LabelTopologyZone: "test-zone-2"},
		nodeRequirements(in(apis.LabelCapacityType, apis.CapacityTypeSpot), in(apis.LabelTopologyZone, "test-zone-2")))},
	conformanceCase{Name: "cheapest-pod-four-keys", Run: cheapestWith(nil,
		map[string]string{apis.LabelArch: apis.ArchitectureAmd64, apis.LabelOS: "linux",
			apis.LabelCapacityType: apis.CapacityTypeSpot, apis.LabelTopologyZone: "test-zone-2"},
		nodeRequirements(in(apis.LabelArch, apis.ArchitectureAmd64), in(apis.LabelOS, "linux"),
			in(apis.LabelCapacityType, apis.CapacityTypeSpot), in(apis.LabelTopologyZone, "test-zone-2")))},
	conformanceCase{Name: "no-arm-type", Run: func(t *T) {
		w := selectionWorld(noArmWhere(""))
		p := ppod("p", nodeRequirements(in(apis.LabelArch, apis.ArchitectureArm64)))
		res := w.provision(p)
		require.False(t, scheduled(p))
		require.Empty(t, res.NodeClaims)
	}},
	conformanceCase{Name: "no-arm-type-in-zone", Run: func(t *T) {
		w := selectionWorld(noArmWhere("test-zone-2"))
		p := ppod("p", nodeRequirements(in(apis.LabelArch, apis.ArchitectureArm64), in(apis.LabelTopologyZone, "test-zone-2")))
		res := w.provision(p)
		require.False(t, scheduled(p))
		require.Empty(t, res.NodeClaims)
	}},
	conformanceCase{Name: "no-arm-type-in-zone-pool-arm", Run: func(t *T) {
		w := selectionWorld(noArmWhere("test-zone-2"), in(apis.LabelArch, apis.ArchitectureArm64))
		p := ppod("p", nodeRequirements(in(apis.LabelTopologyZone, "test-zone-2")))
		res := w.provision(p)
		require.False(t, scheduled(p))
		require.Empty(t, res.NodeClaims)
	}},
	conformanceCase{Name: "enough-resources", Run: func(t *T) {
		for _, cpu := range []float64{0.1, 1.0, 2, 2.5, 4, 8, 16} {
			for _, mem := range []float64{0.1, 1.0, 2, 4, 8, 16, 32} {
				w := selectionWorld(assorted)
				pods := ppods(3, "p", requests("cpu", fmt.Sprintf("%0.1f", cpu), "memory", fmt.Sprintf("%0.1fGi", mem)))
				res := w.provision(pods...)
				require.True(t, scheduled(pods...), "cpu %v memory %v", cpu, mem)
				require.Len(t, nodeNames(pods), 1, "cpu %v memory %v", cpu, mem)
				total := resources.New(0, 0, 0)
				for _, p := range pods {
					r, _ := resources.PodRequests(p)
					total = total.Add(r)
				}
				for _, name := range res.NodeClaims[0].InstanceTypeOptions {
					it, _ := assorted.Get(name)
					need := total.Add(it.Overhead.KubeReserved)
					require.Less(t, need.CPU(), it.Capacity.CPU(), name)
					require.Less(t, need.Memory(), it.Capacity.Memory(), name)
				}
			}
		}
	}},
	conformanceCase{Name: "cheaper-on-demand-wins", Run: func(t *T) {
		one := mustType(instancetypes.Spec{Name: "test-instance1", Labels: map[string]string{apis.LabelArch: apis.ArchitectureAmd64, apis.LabelOS: "linux"},
			Capacity: resources.New(1000, 1<<30, 5), Overhead: fakeOverhead, Offerings: []instancetypes.Offering{
				offering("test-zone-1a", apis.CapacityTypeOnDemand, 1.0, true), offering("test-zone-1a", apis.CapacityTypeSpot, 0.2, true)}})
		two := mustType(instancetypes.Spec{Name: "test-instance2", Labels: map[string]string{apis.LabelArch: apis.ArchitectureAmd64, apis.LabelOS: "linux"},
			Capacity: resources.New(1000, 1<<30, 5), Overhead: fakeOverhead, Offerings: []instancetypes.Offering{
				offering("test-zone-1a", apis.CapacityTypeOnDemand, 1.3, true), offering("test-zone-1a", apis.CapacityTypeSpot, 0.1, true)}})
		w := newWorld(mustCatalog(one, two), nodePool("default", withRequirements(in(apis.LabelCapacityType, apis.CapacityTypeOnDemand))))
		p := ppod("p")
		w.provision(p)
		require.True(t, scheduled(p))
		require.Equal(t, "test-instance1", w.nodeOf(p).Labels[apis.LabelInstanceType])
	}},
	conformanceCase{Name: "min-values-instance-type", Run: twoPods(
		[]*instancetypes.InstanceType{minValuesType("instance-type-1", 1, 0.52, "", ""), minValuesType("instance-type-2", 4, 1.0, "", "")}, true, 0,
		[]poolOption{withMinValues(in(apis.LabelInstanceType, "instance-type-1", "instance-type-2"), 2)})},
	conformanceCase{Name: "min-values-gt", Run: twoPods(
		[]*instancetypes.InstanceType{minValuesType("instance-type-1", 1, 0.52, "", "2"), minValuesType("instance-type-2", 1, 1.0, "", "3"),
			minValuesType("instance-type-3", 4, 1.2, "", "4")}, true, 0,
		[]poolOption{withMinValues(req(numericLabel, corev1.NodeSelectorOpGt, "2"), 2)})},
	conformanceCase{Name: "min-values-gt-unmet", Run: twoPods(
		[]*instancetypes.InstanceType{minValuesType("instance-type-1", 1, 0.52, "", "2"), minValuesType("instance-type-2", 4, 1.0, "", "3")}, false, 0,
		[]poolOption{withMinValues(req(numericLabel, corev1.NodeSelectorOpExists), 2)},
		nodeRequirements(req(numericLabel, corev1.NodeSelectorOpGt, "2")))},
	conformanceCase{Name: "min-values-lt", Run: twoPods(
		[]*instancetypes.InstanceType{minValuesType("instance-type-1", 1, 0.52, "", "2"), minValuesType("instance-type-2", 2, 1.0, "", "3"),
			minValuesType("instance-type-3", 4, 1.2, "", "4")}, true, 0,
		[]poolOption{withMinValues(req(numericLabel, corev1.NodeSelectorOpLt, "4"), 2)})},
	conformanceCase{Name: "min-values-lt-unmet", Run: twoPods(
		[]*instancetypes.InstanceType{minValuesType("instance-type-1", 2, 0.52, "", "2"), minValuesType("instance-type-2", 4, 1.2, "", "4")}, false, 0,
		[]poolOption{withMinValues(req(numericLabel, corev1.NodeSelectorOpLt, "4"), 2)})},
	conformanceCase{Name: "min-values-in-and-not-in", Run: twoPods(
		[]*instancetypes.InstanceType{minValuesType("instance-type-1", 1, 0.52, "", ""), minValuesType("instance-type-2", 2, 1.0, "", ""),
			minValuesType("instance-type-3", 4, 1.2, "", "")}, true, 0,
		[]poolOption{withMinValues(in(apis.LabelInstanceType, "instance-type-1", "instance-type-2", "instance-type-3"), 1),
			withMinValues(req(apis.LabelInstanceType, corev1.NodeSelectorOpNotIn, "instance-type-3"), 2)})},
	conformanceCase{Name: "min-values-gt-and-lt", Run: twoPods(
		[]*instancetypes.InstanceType{minValuesType("instance-type-1", 1, 0.52, "", "2"), minValuesType("instance-type-2", 1, 1.0, "", "3"),
			minValuesType("instance-type-3", 4, 1.2, "", "4"), minValuesType("instance-type-4", 4, 1.2, "", "5")}, true, 0,
		[]poolOption{withMinValues(req(numericLabel, corev1.NodeSelectorOpGt, "2"), 1), withMinValues(req(numericLabel, corev1.NodeSelectorOpLt, "5"), 2)})},
	conformanceCase{Name: "min-values-too-few-types", Run: func(t *T) {
		w := newWorld(mustCatalog(assortedTypes(nil)[:10]...), nodePool("default", withMinValues(req(apis.LabelInstanceType, corev1.NodeSelectorOpExists), 11)))
		p := ppod("p")
		w.provision(p)
		require.False(t, scheduled(p))
	}},
	conformanceCase{Name: "min-values-after-truncation", Run: twoPods(
		[]*instancetypes.InstanceType{minValuesType("instance-type-1", 1, 0.52, "", ""), minValuesType("instance-type-2", 4, 1.0, "", "")}, false, 1,
		[]poolOption{withMinValues(in(apis.LabelInstanceType, "instance-type-1", "instance-type-2"), 2)})},
	conformanceCase{Name: "min-values-largest-of-operators", Run: twoPods(
		[]*instancetypes.InstanceType{minValuesType("instance-type-1", 1, 0.52, "", ""), minValuesType("instance-type-2", 4, 1.0, "", "")}, true, 0,
		[]poolOption{withMinValues(req(apis.LabelInstanceType, corev1.NodeSelectorOpExists), 1),
			withMinValues(in(apis.LabelInstanceType, "instance-type-1", "instance-type-2"), 2)})},
	conformanceCase{Name: "min-values-several-keys", Run: twoPods(
		[]*instancetypes.InstanceType{minValuesType("instance-type-1", 1, 0.52, "", ""), minValuesType("instance-type-2", 4, 1.0, apis.ArchitectureAmd64, "")}, true, 0,
		[]poolOption{withMinValues(req(apis.LabelArch, corev1.NodeSelectorOpExists), 2),
			withMinValues(in(apis.LabelInstanceType, "instance-type-1", "instance-type-2"), 1)})},
)
