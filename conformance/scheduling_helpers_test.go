package conformance

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// Upstream's scheduling suite runs against its fake cloud provider's six
// default types, every one sold as spot in test-zone-1 and -2 and on-demand
// in test-zone-1, -2 and -3, priced 0.1 per CPU, 0.1 per 10⁹ bytes of
// memory and 1 per kind of GPU. The fake types allow several operating
// systems at once; a karpsim type has one value per label, so these are
// linux (only a pod selecting another OS could tell).
const (
	vendorA corev1.ResourceName = "fake.com/vendor-a"
	vendorB corev1.ResourceName = "fake.com/vendor-b"
)

func schedCatalog() instancetypes.Catalog {
	return mustCatalog(
		fakeProviderType("default-instance-type", apis.ArchitectureAmd64, nil),
		fakeProviderType("small-instance-type", apis.ArchitectureAmd64, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("2Gi")}),
		fakeProviderType("gpu-vendor-instance-type", apis.ArchitectureAmd64, corev1.ResourceList{vendorA: resource.MustParse("2")}),
		fakeProviderType("gpu-vendor-b-instance-type", apis.ArchitectureAmd64, corev1.ResourceList{vendorB: resource.MustParse("2")}),
		fakeProviderType("arm-instance-type", apis.ArchitectureArm64, corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("16"), corev1.ResourceMemory: resource.MustParse("128Gi")}),
		fakeProviderType("single-pod-instance-type", apis.ArchitectureAmd64, corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}),
	)
}

// fakeProviderType is one fake type: 4 CPUs, 4Gi and 5 pods unless capacity
// says otherwise, labelled size, special and integer as upstream's are.
func fakeProviderType(name, arch string, capacity corev1.ResourceList, offerings ...instancetypes.Offering) *instancetypes.InstanceType {
	list := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("4Gi"), corev1.ResourcePods: resource.MustParse("5")}
	for k, v := range capacity {
		list[k] = v
	}
	cpu, mem := list.Cpu().Value(), list.Memory().Value()
	if len(offerings) == 0 {
		price := 0.1*float64(cpu) + 0.1*float64(mem)/1e9
		if _, ok := list[vendorA]; ok {
			price++
		}
		if _, ok := list[vendorB]; ok {
			price++
		}
		for _, o := range []struct{ zone, ct string }{
			{"test-zone-1", apis.CapacityTypeSpot}, {"test-zone-2", apis.CapacityTypeSpot},
			{"test-zone-1", apis.CapacityTypeOnDemand}, {"test-zone-2", apis.CapacityTypeOnDemand}, {"test-zone-3", apis.CapacityTypeOnDemand},
		} {
			offerings = append(offerings, offering(o.zone, o.ct, price, true))
		}
	}
	labels := map[string]string{apis.LabelArch: arch, apis.LabelOS: "linux", instancetypes.FakeLabelInteger: fmt.Sprint(cpu), instancetypes.FakeLabelSize: "small"}
	absent := []string{instancetypes.FakeLabelSpecial}
	if cpu > 4 && mem > 8<<30 {
		labels[instancetypes.FakeLabelSize], labels[instancetypes.FakeLabelSpecial] = "large", "optional"
		absent = nil
	}
	return mustType(instancetypes.Spec{Name: name, Labels: labels, AbsentLabels: absent, Capacity: resources.FromList(list),
		Overhead: fakeOverhead, Offerings: offerings})
}

// schedPool is the suite's NodePool: upstream's test NodePool allowing
// spot, on-demand and reserved capacity.
func schedPool(opts ...poolOption) *apis.NodePool {
	return nodePool("default", append([]poolOption{withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn,
		apis.CapacityTypeSpot, apis.CapacityTypeOnDemand, apis.CapacityTypeReserved)}, opts...)...)
}

func withRequirement(key string, op corev1.NodeSelectorOperator, values ...string) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			apis.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
	}
}

// onlyRequirement replaces the pool's requirements, as upstream's specs
// that assign them do.
func onlyRequirement(key string, op corev1.NodeSelectorOperator, values ...string) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{{Key: key, Operator: op, Values: values}}
	}
}

func withTemplateLabel(k, v string) poolOption {
	return func(np *apis.NodePool) {
		if np.Spec.Template.ObjectMeta.Labels == nil {
			np.Spec.Template.ObjectMeta.Labels = map[string]string{}
		}
		np.Spec.Template.ObjectMeta.Labels[k] = v
	}
}

// schedWorld is a scheduling case's input, built up step by step.
type schedWorld struct {
	in      scheduling.Input
	catalog instancetypes.Catalog
}

// newSchedWorld has the given pools, each yielding the suite's default types.
func newSchedWorld(pools ...*apis.NodePool) *schedWorld {
	return newWorldOf(schedCatalog(), pools...)
}

func newWorldOf(catalog instancetypes.Catalog, pools ...*apis.NodePool) *schedWorld {
	w := &schedWorld{catalog: catalog}
	for _, np := range pools {
		w.in.NodePools = append(w.in.NodePools, scheduling.Pool{NodePool: np, InstanceTypes: catalog})
	}
	return w
}

func (w *schedWorld) solve(pods ...*corev1.Pod) scheduling.Result {
	in := w.in
	in.Pods = append(slices.Clone(in.Pods), pods...)
	return solveCase(in)
}

// unschedPod is upstream's pending test pod: it asks for nothing unless
// cpu is set.
func unschedPod(name, cpu string, opts ...podOption) *corev1.Pod {
	return pod(name, cpu, append([]podOption{pendingPod}, opts...)...)
}

// claimOf is the new NodeClaim the pod was placed on; the case fails when
// there is none.
func claimOf(t *T, res scheduling.Result, p *corev1.Pod) scheduling.NodeClaim {
	t.Helper()
	for _, c := range res.NodeClaims {
		if slices.Contains(c.Pods, apis.PodKey(p)) {
			return c
		}
	}
	t.Fatalf("pod %s is on no new NodeClaim: %s", apis.PodKey(p), describe(res))
	return scheduling.NodeClaim{}
}

func expectNotScheduled(t *T, res scheduling.Result, pods ...*corev1.Pod) {
	t.Helper()
	for _, p := range pods {
		if !slices.ContainsFunc(res.Unschedulable, func(u scheduling.Unschedulable) bool { return u.Pod == apis.PodKey(p) }) {
			t.Fatalf("pod %s was placed: %s", apis.PodKey(p), describe(res))
		}
	}
}

func describe(res scheduling.Result) string {
	var b strings.Builder
	for _, c := range res.NodeClaims {
		fmt.Fprintf(&b, "[claim %s %s %s %s pods=%v reqs=%v] ", c.Name, c.InstanceType, c.Zone, c.CapacityType, c.Pods, c.Requirements)
	}
	for _, bd := range res.Bindings {
		fmt.Fprintf(&b, "[%s→%s] ", bd.Pod, bd.Node)
	}
	for _, u := range res.Unschedulable {
		fmt.Fprintf(&b, "[%s unschedulable: %s] ", u.Pod, u.Reason)
	}
	return b.String()
}

// label is the value the claim's node would carry for key, and whether it
// would carry one: the launch choice for zone, capacity type and instance
// type, a single-valued In requirement, or else the launched type's label.
func (w *schedWorld) label(c scheduling.NodeClaim, key string) (string, bool) {
	switch key {
	case apis.LabelTopologyZone:
		return c.Zone, true
	case apis.LabelCapacityType:
		return c.CapacityType, true
	case apis.LabelInstanceType:
		return c.InstanceType, true
	}
	for _, r := range c.Requirements {
		if r.Key == key && r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
			return r.Values[0], true
		}
	}
	if it, ok := w.catalog.Get(c.InstanceType); ok {
		v, ok := it.Labels()[key]
		return v, ok
	}
	return "", false
}

func (w *schedWorld) expectLabel(t *T, c scheduling.NodeClaim, key, want string) {
	t.Helper()
	got, ok := w.label(c, key)
	if !ok || got != want {
		t.Fatalf("claim %s: label %s is %q (set %v), want %q; requirements %v", c.Name, key, got, ok, want, c.Requirements)
	}
}

// specOf is what it was built from, to build a variant of it.
func specOf(it *instancetypes.InstanceType) instancetypes.Spec {
	labels := map[string]string{}
	for k, v := range it.Labels() {
		switch k {
		case apis.LabelInstanceType, apis.LabelTopologyZone, apis.LabelCapacityType:
		default:
			labels[k] = v
		}
	}
	var absent []string
	if _, ok := labels[instancetypes.FakeLabelSpecial]; !ok {
		absent = []string{instancetypes.FakeLabelSpecial}
	}
	return instancetypes.Spec{Name: it.Name, Labels: labels, AbsentLabels: absent, Capacity: it.Capacity, Overhead: it.Overhead,
		Offerings: slices.Clone(it.Offerings)}
}

// launch turns every NodeClaim of res into an in-flight node of w (not yet
// initialized) carrying the pods placed on it and the launch choice's
// labels, as the cloud provider would create it; it returns the nodes.
// Nodes are named node-0, node-1… in launch order: a later solve names its
// claims default-1… again, and node names must not collide with them.
func (w *schedWorld) launch(res scheduling.Result, pods ...*corev1.Pod) []*scheduling.Node {
	byKey := map[string]*corev1.Pod{}
	for _, p := range pods {
		byKey[apis.PodKey(p)] = p
	}
	var out []*scheduling.Node
	for _, c := range res.NodeClaims {
		it, ok := w.catalog.Get(c.InstanceType)
		if !ok {
			panic("no instance type " + c.InstanceType)
		}
		name := fmt.Sprintf("node-%d", len(w.in.Nodes))
		labels := map[string]string{apis.LabelHostname: name, apis.LabelNodePool: c.NodePool}
		for k, v := range it.Labels() {
			labels[k] = v
		}
		for _, r := range c.Requirements {
			if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
				labels[r.Key] = r.Values[0]
			}
		}
		labels[apis.LabelTopologyZone], labels[apis.LabelCapacityType], labels[apis.LabelInstanceType] = c.Zone, c.CapacityType, c.InstanceType
		n := &scheduling.Node{Name: name, NodePool: c.NodePool, Labels: labels, Capacity: it.Capacity.List(), Allocatable: it.Allocatable().List()}
		for _, np := range w.in.NodePools {
			if np.NodePool.Name == c.NodePool {
				n.Taints = append(slices.Clone(np.NodePool.Spec.Template.Spec.Taints), np.NodePool.Spec.Template.Spec.StartupTaints...)
				n.StartupTaints = slices.Clone(np.NodePool.Spec.Template.Spec.StartupTaints)
			}
		}
		for _, key := range c.Pods {
			if p, ok := byKey[key]; ok {
				bound := p.DeepCopy()
				bound.Spec.NodeName = name
				bound.Status = corev1.PodStatus{Phase: corev1.PodRunning}
				n.Pods = append(n.Pods, bound)
			}
		}
		w.in.Nodes = append(w.in.Nodes, n)
		out = append(out, n)
	}
	return out
}

// boundTo is the name of the existing node the pod was bound to, or "".
func boundTo(res scheduling.Result, p *corev1.Pod) string {
	for _, b := range res.Bindings {
		if b.Pod == apis.PodKey(p) {
			return b.Node
		}
	}
	return ""
}

func withStartupTaint(taint corev1.Taint) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.StartupTaints = append(np.Spec.Template.Spec.StartupTaints, taint)
	}
}

// daemonPod is a DaemonSet's pod template as a solve reads it.
func daemonPod(name string, opts ...podOption) *corev1.Pod {
	return pod(name, "", append([]podOption{ownedBy("DaemonSet")}, opts...)...)
}

func expectScheduled(t *T, res scheduling.Result, pods ...*corev1.Pod) {
	t.Helper()
	for _, p := range pods {
		if slices.ContainsFunc(res.Unschedulable, func(u scheduling.Unschedulable) bool { return u.Pod == apis.PodKey(p) }) {
			t.Fatalf("pod %s was not placed: %s", apis.PodKey(p), describe(res))
		}
	}
}
