package conformance

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// Helpers for the provisioning cases (groups topology, instanceselection,
// defaultconstraints, provisioning): a small world that provisions pods
// round after round, turning each new NodeClaim into a node that later
// rounds see, as upstream's ExpectProvisioned does against its API server.

// fakeZones are the zones of upstream's default fake types.
var fakeZones = []string{"test-zone-1", "test-zone-2", "test-zone-3"}

// GPU resources of upstream's fake types.
const (
	gpuVendorA corev1.ResourceName = "fake.com/vendor-a"
	gpuVendorB corev1.ResourceName = "fake.com/vendor-b"
)

// fakeShape is a type of the default fake catalog.
type fakeShape struct {
	name       string
	cpu, memGi int64
	pods       int64
	arch       string
	extra      corev1.ResourceList
}

// defaultFakeCatalog mirrors the catalog upstream's fake cloud provider
// offers when a test sets none: a 4-CPU 4Gi default type, a 2-CPU 2Gi small
// one, two types with two GPUs of a vendor each, a 16-CPU 128Gi arm64 type
// and a type that holds a single pod; each sold as spot in zones 1 and 2 and
// on-demand in zones 1 to 3, priced from its resources, labelled size
// small (large, and special=optional, above 4 CPUs and 8Gi).
func defaultFakeCatalog() instancetypes.Catalog {
	shapes := []fakeShape{
		{name: "default-instance-type", cpu: 4, memGi: 4, pods: 5},
		{name: "small-instance-type", cpu: 2, memGi: 2, pods: 5},
		{name: "gpu-vendor-instance-type", cpu: 4, memGi: 4, pods: 5, extra: corev1.ResourceList{gpuVendorA: resource.MustParse("2")}},
		{name: "gpu-vendor-b-instance-type", cpu: 4, memGi: 4, pods: 5, extra: corev1.ResourceList{gpuVendorB: resource.MustParse("2")}},
		{name: "arm-instance-type", cpu: 16, memGi: 128, pods: 5, arch: apis.ArchitectureArm64},
		{name: "single-pod-instance-type", cpu: 4, memGi: 4, pods: 1},
	}
	types := make([]*instancetypes.InstanceType, len(shapes))
	for i, sh := range shapes {
		types[i] = sh.build(nil)
	}
	return mustCatalog(types...)
}

// fakeOfferings are upstream's default offerings at one price.
func fakeOfferings(price float64) []instancetypes.Offering {
	return []instancetypes.Offering{
		offering("test-zone-1", apis.CapacityTypeSpot, price, true),
		offering("test-zone-2", apis.CapacityTypeSpot, price, true),
		offering("test-zone-1", apis.CapacityTypeOnDemand, price, true),
		offering("test-zone-2", apis.CapacityTypeOnDemand, price, true),
		offering("test-zone-3", apis.CapacityTypeOnDemand, price, true),
	}
}

// build makes the type; offerings nil means upstream's default ones.
func (sh fakeShape) build(offerings []instancetypes.Offering) *instancetypes.InstanceType {
	arch := sh.arch
	if arch == "" {
		arch = apis.ArchitectureAmd64
	}
	capacity := resources.New(sh.cpu*1000, sh.memGi<<30, sh.pods)
	price := 0.1*float64(sh.cpu) + 0.1*float64(sh.memGi<<30)/1e9
	if len(sh.extra) > 0 {
		capacity = capacity.Add(resources.FromList(sh.extra))
		price += 1
	}
	if offerings == nil {
		offerings = fakeOfferings(price)
	}
	labels := map[string]string{apis.LabelArch: arch, apis.LabelOS: "linux", instancetypes.FakeLabelSize: "small"}
	absent := []string{instancetypes.FakeLabelSpecial}
	if sh.cpu > 4 && sh.memGi > 8 {
		labels[instancetypes.FakeLabelSize], labels[instancetypes.FakeLabelSpecial], absent = "large", "optional", nil
	}
	return mustType(instancetypes.Spec{
		Name:         sh.name,
		Labels:       labels,
		AbsentLabels: absent,
		Capacity:     capacity,
		Overhead:     fakeOverhead,
		Offerings:    offerings,
	})
}

// world is a cluster that pods are provisioned into round after round.
type world struct {
	pools   []scheduling.Pool
	nodes   []*scheduling.Node
	daemons []*corev1.Pod
	opts    scheduling.Options
	// pvcs, pvs and classes are what pods' volumes refer to.
	pvcs    []*corev1.PersistentVolumeClaim
	pvs     []*corev1.PersistentVolume
	classes []*storagev1.StorageClass
	// made counts the nodes made from NodeClaims, to name them uniquely.
	made int
	// last is the most recent round's result.
	last scheduling.Result
}

// newWorld is a world whose pools all offer catalog.
func newWorld(catalog instancetypes.Catalog, pools ...*apis.NodePool) *world {
	w := &world{}
	for _, np := range pools {
		w.pools = append(w.pools, scheduling.Pool{NodePool: np, InstanceTypes: catalog})
	}
	return w
}

// setPool replaces the pool of np's name (or adds it) with np, keeping its
// catalog, as re-applying a changed NodePool does.
func (w *world) setPool(np *apis.NodePool) {
	for i := range w.pools {
		if w.pools[i].NodePool.Name == np.Name {
			w.pools[i].NodePool = np
			return
		}
	}
	catalog := defaultFakeCatalog()
	if len(w.pools) > 0 {
		catalog = w.pools[0].InstanceTypes
	}
	w.pools = append(w.pools, scheduling.Pool{NodePool: np, InstanceTypes: catalog})
}

// provision solves for pods, binds them where the result says, and turns
// each new NodeClaim into an initialized node of its launch choice.
func (w *world) provision(pods ...*corev1.Pod) scheduling.Result {
	res := solveCase(scheduling.Input{Pods: pods, Nodes: w.nodes, NodePools: w.pools, DaemonSets: w.daemons, Options: w.opts,
		PersistentVolumeClaims: w.pvcs, PersistentVolumes: w.pvs, StorageClasses: w.classes})
	w.last = res
	byName := map[string]*corev1.Pod{}
	for _, p := range pods {
		byName[p.Namespace+"/"+p.Name] = p
	}
	for _, b := range res.Bindings {
		for _, n := range w.nodes {
			if n.Name == b.Node {
				w.bind(n, byName[b.Pod])
			}
		}
	}
	for _, nc := range res.NodeClaims {
		n := w.nodeFor(nc)
		for _, name := range nc.Pods {
			w.bind(n, byName[name])
		}
		w.nodes = append(w.nodes, n)
	}
	return res
}

func (w *world) bind(n *scheduling.Node, p *corev1.Pod) {
	if p == nil {
		panic("bound a pod that was not provisioned")
	}
	p.Spec.NodeName = n.Name
	p.Status.Phase = corev1.PodRunning
	p.Status.Conditions = nil
	n.Pods = append(n.Pods, p)
}

// nodeFor makes the node a NodeClaim launches: its labels are the claim's
// single-valued requirements, the instance type's labels and the launch
// choice's zone and capacity type.
func (w *world) nodeFor(nc scheduling.NodeClaim) *scheduling.Node {
	w.made++
	name := fmt.Sprintf("node-%d", w.made)
	labels := map[string]string{}
	var it *instancetypes.InstanceType
	var np *apis.NodePool
	for _, p := range w.pools {
		if p.NodePool.Name == nc.NodePool {
			np = p.NodePool
			it, _ = p.InstanceTypes.Get(nc.InstanceType)
		}
	}
	if it == nil {
		panic("no instance type " + nc.InstanceType)
	}
	for _, r := range nc.Requirements {
		if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
			labels[r.Key] = r.Values[0]
		}
	}
	for k, v := range it.Labels() {
		labels[k] = v
	}
	for k, v := range np.Spec.Template.ObjectMeta.Labels {
		labels[k] = v
	}
	labels[apis.LabelHostname] = name
	labels[apis.LabelNodePool] = nc.NodePool
	labels[apis.LabelInstanceType] = nc.InstanceType
	labels[apis.LabelTopologyZone] = nc.Zone
	labels[apis.LabelCapacityType] = nc.CapacityType
	labels[apis.LabelNodeInitialized] = "true"
	return &scheduling.Node{Name: name, NodePool: nc.NodePool, Labels: labels, Taints: np.Spec.Template.Spec.Taints,
		Capacity: it.Capacity.List(), Allocatable: it.Allocatable().List(), Initialized: true}
}

// node is a node the world already has, by name.
func (w *world) node(name string) *scheduling.Node {
	for _, n := range w.nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// nodeOf is the node p was bound to, nil when it is not scheduled.
func (w *world) nodeOf(p *corev1.Pod) *scheduling.Node {
	if p.Spec.NodeName == "" {
		return nil
	}
	return w.node(p.Spec.NodeName)
}

// skew counts, per value of key, the pods of namespace on the world's nodes
// that the selector matches (all pods when it is nil, as upstream's helper
// does), sorted ascending; nodes without key are skipped, and so are pods
// that have finished or are being deleted.
func (w *world) skew(key string, selector *metav1.LabelSelector) []int {
	sel := labels.Everything()
	if selector != nil {
		var err error
		if sel, err = metav1.LabelSelectorAsSelector(selector); err != nil {
			panic(err)
		}
	}
	count := map[string]int{}
	for _, n := range w.nodes {
		v, ok := n.Labels[key]
		if !ok {
			continue
		}
		for _, p := range n.Pods {
			done := p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded || p.DeletionTimestamp != nil
			if !done && p.Namespace == "default" && sel.Matches(labels.Set(p.Labels)) {
				count[v]++
			}
		}
	}
	out := make([]int, 0, len(count))
	for _, c := range count {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// existingNode adds a node that was not made by provisioning, with labels,
// 32 CPUs and room for 100 pods.
func (w *world) existingNode(name string, lbls map[string]string, pods ...*corev1.Pod) *scheduling.Node {
	l := map[string]string{apis.LabelHostname: name}
	for k, v := range lbls {
		l[k] = v
	}
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourcePods: resource.MustParse("100"),
		corev1.ResourceMemory: resource.MustParse("128Gi")}
	n := &scheduling.Node{Name: name, Labels: l, Capacity: alloc.DeepCopy(), Allocatable: alloc, Initialized: true}
	for _, p := range pods {
		w.bind(n, p)
	}
	w.nodes = append(w.nodes, n)
	return n
}

// ppod is a pending pod, as upstream's test.UnschedulablePod: it requests
// nothing unless options say so, in namespace default.
func ppod(name string, opts ...podOption) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{},
			CreationTimestamp: metav1.NewTime(now.Add(-time.Minute))},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
	}
	pendingPod(p)
	for _, o := range opts {
		o(p)
	}
	return p
}

// ppods is n pending pods named prefix-0 … prefix-(n-1), each built with opts.
func ppods(n int, prefix string, opts ...podOption) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = ppod(fmt.Sprintf("%s-%d", prefix, i), opts...)
	}
	return out
}

func labelled(kv ...string) podOption {
	return func(p *corev1.Pod) {
		for i := 0; i < len(kv); i += 2 {
			p.Labels[kv[i]] = kv[i+1]
		}
	}
}

func inNamespace(ns string) podOption { return func(p *corev1.Pod) { p.Namespace = ns } }

func requests(kv ...string) podOption {
	return func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		for i := 0; i < len(kv); i += 2 {
			c.Resources.Requests[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
	}
}

func limits(kv ...string) podOption {
	return func(p *corev1.Pod) {
		c := &p.Spec.Containers[0]
		if c.Resources.Limits == nil {
			c.Resources.Limits = corev1.ResourceList{}
		}
		for i := 0; i < len(kv); i += 2 {
			c.Resources.Limits[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
	}
}

func nodeSelector(kv ...string) podOption {
	return func(p *corev1.Pod) {
		if p.Spec.NodeSelector == nil {
			p.Spec.NodeSelector = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			p.Spec.NodeSelector[kv[i]] = kv[i+1]
		}
	}
}

func req(key string, op corev1.NodeSelectorOperator, values ...string) corev1.NodeSelectorRequirement {
	return corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values}
}

func podNodeAffinity(p *corev1.Pod) *corev1.NodeAffinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.NodeAffinity == nil {
		p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	return p.Spec.Affinity.NodeAffinity
}

// nodeRequirements adds one required node-selector term holding reqs.
func nodeRequirements(reqs ...corev1.NodeSelectorRequirement) podOption {
	return func(p *corev1.Pod) {
		a := podNodeAffinity(p)
		if a.RequiredDuringSchedulingIgnoredDuringExecution == nil {
			a.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{}
		}
		terms := &a.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		*terms = append(*terms, corev1.NodeSelectorTerm{MatchExpressions: reqs})
	}
}

// nodePreference adds a preferred node-affinity term of weight holding reqs.
func nodePreference(weight int32, reqs ...corev1.NodeSelectorRequirement) podOption {
	return func(p *corev1.Pod) {
		a := podNodeAffinity(p)
		a.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.PreferredSchedulingTerm{Weight: weight, Preference: corev1.NodeSelectorTerm{MatchExpressions: reqs}})
	}
}

func tolerates(tol ...corev1.Toleration) podOption {
	return func(p *corev1.Pod) { p.Spec.Tolerations = append(p.Spec.Tolerations, tol...) }
}

// spread is a topology spread constraint over key with maxSkew, selecting
// pods by matchLabels (nil for no selector).
func spread(key string, maxSkew int32, when corev1.UnsatisfiableConstraintAction, match map[string]string) corev1.TopologySpreadConstraint {
	c := corev1.TopologySpreadConstraint{TopologyKey: key, MaxSkew: maxSkew, WhenUnsatisfiable: when}
	if match != nil {
		c.LabelSelector = &metav1.LabelSelector{MatchLabels: match}
	}
	return c
}

func spreads(cs ...corev1.TopologySpreadConstraint) podOption {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, cs...)
	}
}

func podAffinityOf(p *corev1.Pod) *corev1.Affinity {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	return p.Spec.Affinity
}

// affinityTerm selects pods by matchLabels over key.
func affinityTerm(key string, match map[string]string) corev1.PodAffinityTerm {
	return corev1.PodAffinityTerm{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: match}}
}

func requiredAffinity(terms ...corev1.PodAffinityTerm) podOption {
	return func(p *corev1.Pod) {
		a := podAffinityOf(p)
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, terms...)
	}
}

func preferredAffinity(weight int32, term corev1.PodAffinityTerm) podOption {
	return func(p *corev1.Pod) {
		a := podAffinityOf(p)
		if a.PodAffinity == nil {
			a.PodAffinity = &corev1.PodAffinity{}
		}
		a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: term})
	}
}

func requiredAntiAffinity(terms ...corev1.PodAffinityTerm) podOption {
	return func(p *corev1.Pod) {
		a := podAffinityOf(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, terms...)
	}
}

func preferredAntiAffinity(weight int32, term corev1.PodAffinityTerm) podOption {
	return func(p *corev1.Pod) {
		a := podAffinityOf(p)
		if a.PodAntiAffinity == nil {
			a.PodAntiAffinity = &corev1.PodAntiAffinity{}
		}
		a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
			corev1.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: term})
	}
}

// withRequirements sets the pool's requirements.
func withRequirements(reqs ...corev1.NodeSelectorRequirement) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Requirements = nil
		for _, r := range reqs {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
				apis.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: r.Operator, Values: r.Values})
		}
	}
}

func withLabels(kv ...string) poolOption {
	return func(np *apis.NodePool) {
		if np.Spec.Template.ObjectMeta.Labels == nil {
			np.Spec.Template.ObjectMeta.Labels = map[string]string{}
		}
		for i := 0; i < len(kv); i += 2 {
			np.Spec.Template.ObjectMeta.Labels[kv[i]] = kv[i+1]
		}
	}
}

func withTaints(taints ...corev1.Taint) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Taints = append(np.Spec.Template.Spec.Taints, taints...)
	}
}

func withWeight(w int32) poolOption { return func(np *apis.NodePool) { np.Spec.Weight = &w } }

// anyCapacityType is the requirement upstream's topology suite gives its
// NodePool: every capacity type.
var anyCapacityType = req(apis.LabelCapacityType, corev1.NodeSelectorOpExists)

// scheduled reports whether every pod was bound.
func scheduled(pods ...*corev1.Pod) bool {
	for _, p := range pods {
		if p.Spec.NodeName == "" {
			return false
		}
	}
	return true
}

// countScheduled counts the pods that were bound.
func countScheduled(pods []*corev1.Pod) int {
	n := 0
	for _, p := range pods {
		if p.Spec.NodeName != "" {
			n++
		}
	}
	return n
}
