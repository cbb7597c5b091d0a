package conformance

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// now is the moment every case is evaluated at: a Monday, 12:00 UTC.
var now = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// assorted mirrors the catalog upstream's disruption suite gives its fake
// cloud provider: for every CPU count in {1,2,4,…,64} and memory in
// {1,2,4,…,128} Gi, every zone test-zone-1…3, capacity type, OS (linux,
// windows) and architecture (amd64, arm64), one type with a single offering
// priced 0.1 per CPU plus 0.1 per 10⁹ bytes of memory, 5 pods, and 100m of
// CPU and 10Mi of memory reserved. Its name says all of that.
var assorted = mustCatalog(assortedTypes(nil)...)

// assortedShape is one type of the assorted catalog.
type assortedShape struct {
	cpu, memGi                   int64
	zone, capacityType, os, arch string
}

// assortedShapes lists the assorted catalog in upstream's order, which its
// specs index into.
func assortedShapes() []assortedShape {
	var out []assortedShape
	for _, cpu := range []int64{1, 2, 4, 8, 16, 32, 64} {
		for _, mem := range []int64{1, 2, 4, 8, 16, 32, 64, 128} {
			for _, zone := range []string{"test-zone-1", "test-zone-2", "test-zone-3"} {
				for _, ct := range []string{apis.CapacityTypeSpot, apis.CapacityTypeOnDemand} {
					for _, os := range []string{"linux", "windows"} {
						for _, arch := range []string{apis.ArchitectureAmd64, apis.ArchitectureArm64} {
							out = append(out, assortedShape{cpu, mem, zone, ct, os, arch})
						}
					}
				}
			}
		}
	}
	return out
}

// assortedTypes builds the assorted types in upstream's order; price, when
// set, overrides the price of a type by its index.
func assortedTypes(price map[int]float64) []*instancetypes.InstanceType {
	shapes := assortedShapes()
	out := make([]*instancetypes.InstanceType, len(shapes))
	for i, sh := range shapes {
		p, ok := price[i]
		if !ok {
			p = float64(0.1*float64(sh.cpu)) + float64(0.1*float64(sh.memGi<<30)/1e9)
		}
		out[i] = sh.priced(p)
	}
	return out
}

func (sh assortedShape) name() string {
	return fmt.Sprintf("%d-cpu-%d-mem-%s-%s-%s-%s", sh.cpu, sh.memGi, sh.arch, sh.os, sh.zone, sh.capacityType)
}

func (sh assortedShape) priced(price float64) *instancetypes.InstanceType {
	memory := sh.memGi << 30
	size := "small"
	labels := map[string]string{apis.LabelArch: sh.arch, apis.LabelOS: sh.os, instancetypes.FakeLabelInteger: fmt.Sprint(sh.cpu)}
	absent := []string{instancetypes.FakeLabelSpecial}
	if sh.cpu > 4 && memory > 8<<30 {
		size, absent = "large", nil
		labels[instancetypes.FakeLabelSpecial] = "optional"
	}
	labels[instancetypes.FakeLabelSize] = size
	return mustType(instancetypes.Spec{
		Name:         sh.name(),
		Labels:       labels,
		AbsentLabels: absent,
		Capacity:     resources.New(sh.cpu*1000, memory, 5),
		Overhead:     fakeOverhead,
		Offerings:    []instancetypes.Offering{{Zone: sh.zone, CapacityType: sh.capacityType, Available: true, Price: price}},
	})
}

// fakeOverhead is what upstream's fake types reserve: 100m of CPU and 10Mi.
var fakeOverhead = instancetypes.Overhead{KubeReserved: resources.New(100, 10<<20, 0)}

// customType is upstream's fake.NewInstanceType with given offerings: amd64
// linux, cpu CPUs, 4Gi of memory and 5 pods.
func customType(name string, cpu int64, offerings ...instancetypes.Offering) *instancetypes.InstanceType {
	return mustType(instancetypes.Spec{
		Name:      name,
		Labels:    map[string]string{apis.LabelArch: apis.ArchitectureAmd64, apis.LabelOS: "linux"},
		Capacity:  resources.New(cpu*1000, 4<<30, 5),
		Overhead:  fakeOverhead,
		Offerings: offerings,
	})
}

func offering(zone, capacityType string, price float64, available bool) instancetypes.Offering {
	return instancetypes.Offering{Zone: zone, CapacityType: capacityType, Price: price, Available: available}
}

func mustType(spec instancetypes.Spec) *instancetypes.InstanceType {
	it, err := instancetypes.NewInstanceType(spec)
	if err != nil {
		panic(err)
	}
	return it
}

func mustCatalog(types ...*instancetypes.InstanceType) instancetypes.Catalog {
	c, err := instancetypes.NewCatalog(types...)
	if err != nil {
		panic(err)
	}
	return c
}

// Upstream's suite picks the cheapest and dearest types that have an
// on-demand (or spot) offering; in the assorted catalog those are the
// 1-CPU 1Gi and 64-CPU 128Gi types of the first zone.
const (
	cheapestOnDemand = "1-cpu-1-mem-amd64-linux-test-zone-1-on-demand"
	cheapestSpot     = "1-cpu-1-mem-amd64-linux-test-zone-1-spot"
	dearestOnDemand  = "64-cpu-128-mem-amd64-linux-test-zone-1-on-demand"
	dearestSpot      = "64-cpu-128-mem-amd64-linux-test-zone-1-spot"
)

// cluster is a disruption case's world, built up step by step.
type cluster struct {
	consolidation.Cluster
	opts consolidation.Options
}

func (c *cluster) pool(np *apis.NodePool) *cluster {
	return c.poolWith(np, assorted)
}

// poolWith adds a NodePool whose node class yields catalog.
func (c *cluster) poolWith(np *apis.NodePool, catalog instancetypes.Catalog) *cluster {
	c.NodePools = append(c.NodePools, scheduling.Pool{NodePool: np, InstanceTypes: catalog})
	return c
}

func (c *cluster) node(n *consolidation.Node) *cluster {
	c.Nodes = append(c.Nodes, n)
	return c
}

func (c *cluster) pending(pods ...*corev1.Pod) *cluster {
	c.Pending = append(c.Pending, pods...)
	return c
}

func (c *cluster) evaluate() consolidation.Decision {
	return c.evaluateAt(now)
}

func (c *cluster) evaluateAt(t time.Time) consolidation.Decision {
	return evaluateCase(c.Cluster, t, c.opts)
}

// execute does what the controller does once a command's replacements are
// up: the deleted nodes are marked for deletion (their pods still on them,
// to be placed again by the next evaluation) and count against the budgets.
func (c *cluster) execute(d consolidation.Decision) {
	gone := map[string]bool{}
	for _, name := range deleted(d) {
		gone[name] = true
	}
	for _, n := range c.Nodes {
		if gone[n.Node.Name] {
			n.Deleting = true
		}
	}
}

// passes evaluates up to n times, executing each decision, and returns
// every command found, in order; it stops at the first pass with none.
func (c *cluster) passes(n int) []consolidation.Command {
	var all []consolidation.Command
	for range n {
		d := c.evaluate()
		if len(d.Commands) == 0 {
			break
		}
		all = append(all, d.Commands...)
		c.execute(d)
	}
	return all
}

type poolOption func(*apis.NodePool)

// nodePool is upstream's test NodePool: no requirements, the default
// budget, consolidateAfter 0s, WhenEmptyOrUnderutilized, unless opts say
// otherwise.
func nodePool(name string, opts ...poolOption) *apis.NodePool {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: apis.KindEC2NodeClass, Name: "default"}
	zero := mustDuration("0s")
	np.Spec.Disruption.ConsolidateAfter = zero
	for _, o := range opts {
		o(np)
	}
	np.SetDefaults()
	return np
}

func budgets(b ...apis.Budget) poolOption {
	return func(np *apis.NodePool) { np.Spec.Disruption.Budgets = b }
}

func nodes(n string) apis.Budget { return apis.Budget{Nodes: n} }

func policy(p apis.ConsolidationPolicy) poolOption {
	return func(np *apis.NodePool) { np.Spec.Disruption.ConsolidationPolicy = p }
}

func consolidateAfter(s string) poolOption {
	return func(np *apis.NodePool) { np.Spec.Disruption.ConsolidateAfter = mustDuration(s) }
}

func replicas(n int64) poolOption { return func(np *apis.NodePool) { np.Spec.Replicas = &n } }

type nodeOption func(*consolidation.Node)

// managedNode is an initialized node with its NodeClaim, of the named
// assorted type (its zone and capacity type are the type's only offering's),
// in pool, with allocatable CPU 32 and 100 pods as upstream's suites give
// theirs, initialized an hour ago.
func managedNode(name, pool, instanceType string, opts ...nodeOption) *consolidation.Node {
	return managedNodeOf(assorted, name, pool, instanceType, opts...)
}

// managedNodeOf is managedNode with a type from catalog.
func managedNodeOf(catalog instancetypes.Catalog, name, pool, instanceType string, opts ...nodeOption) *consolidation.Node {
	it, ok := catalog.Get(instanceType)
	if !ok {
		panic("no instance type " + instanceType)
	}
	o := it.Offerings[0]
	labels := map[string]string{
		apis.LabelHostname: name, apis.LabelNodePool: pool, apis.LabelInstanceType: it.Name,
		apis.LabelCapacityType: o.CapacityType, apis.LabelTopologyZone: o.Zone, apis.LabelNodeInitialized: "true",
	}
	for k, v := range it.Labels() {
		if _, set := labels[k]; !set {
			labels[k] = v
		}
	}
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("32"), corev1.ResourcePods: resource.MustParse("100"),
		corev1.ResourceMemory: resource.MustParse("128Gi")}
	n := &consolidation.Node{
		Node: &scheduling.Node{Name: name, NodePool: pool, Labels: labels, Capacity: alloc.DeepCopy(), Allocatable: alloc,
			Initialized: true},
		NodeClaim:     &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}},
		InitializedAt: now.Add(-time.Hour),
	}
	for _, opt := range opts {
		opt(n)
	}
	return n
}

func withPods(pods ...*corev1.Pod) nodeOption {
	return func(n *consolidation.Node) {
		for _, p := range pods {
			p.Spec.NodeName = n.Node.Name
		}
		n.Node.Pods = append(n.Node.Pods, pods...)
	}
}

func nodeAnnotation(k, v string) nodeOption {
	return func(n *consolidation.Node) {
		if n.Annotations == nil {
			n.Annotations = map[string]string{}
		}
		n.Annotations[k] = v
	}
}

func driftedFor(d time.Duration) nodeOption {
	return func(n *consolidation.Node) {
		n.Drift = &consolidation.DriftStatus{Reason: "NodePoolDrifted", Since: now.Add(-d)}
	}
}

func initializedAgo(d time.Duration) nodeOption {
	return func(n *consolidation.Node) { n.InitializedAt = now.Add(-d) }
}

func terminationGracePeriod(d time.Duration) nodeOption {
	return func(n *consolidation.Node) { n.NodeClaim.Spec.TerminationGracePeriod = &metav1.Duration{Duration: d} }
}

func lastPodEventAgo(d time.Duration) nodeOption {
	return func(n *consolidation.Node) { n.LastPodEventAt = now.Add(-d) }
}

func memory(q string) nodeOption {
	return func(n *consolidation.Node) {
		n.Node.Allocatable[corev1.ResourceMemory] = resource.MustParse(q)
		n.Node.Capacity[corev1.ResourceMemory] = resource.MustParse(q)
	}
}

func mustQuantity(q string) resource.Quantity { return resource.MustParse(q) }

func allocatable(cpu string) nodeOption {
	return func(n *consolidation.Node) {
		q := resource.MustParse(cpu)
		n.Node.Allocatable[corev1.ResourceCPU] = q
		n.Node.Capacity[corev1.ResourceCPU] = q
	}
}

type podOption func(*corev1.Pod)

// pod is a running pod of a ReplicaSet requesting cpu, as upstream's
// test.Pod() is (its default requests nothing; pass "" for that).
func pod(name, cpu string, opts ...podOption) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{"app": "test"},
			CreationTimestamp: metav1.NewTime(now.Add(-2 * time.Hour)),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs-uid"}}},
		Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: now.Add(-2 * time.Hour)}},
	}
	if cpu != "" {
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func ownedBy(kind string) podOption {
	return func(p *corev1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: "owner", UID: "owner-uid"}}
	}
}

func terminating(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Second)} }

func pendingPod(p *corev1.Pod) {
	p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}}
}

func podAnnotation(k, v string) podOption {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
}

func podLabel(k, v string) podOption { return func(p *corev1.Pod) { p.Labels[k] = v } }

func startedAgo(d time.Duration) podOption {
	return func(p *corev1.Pod) { p.Status.StartTime = &metav1.Time{Time: now.Add(-d)} }
}

func (c *cluster) pdb(name string, maxUnavailable intstr.IntOrString, selector map[string]string) *cluster {
	c.PDBs = append(c.PDBs, &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &maxUnavailable, Selector: &metav1.LabelSelector{MatchLabels: selector}},
	})
	return c
}

// deleted is every node the decision's commands delete, sorted.
func deleted(d consolidation.Decision) []string {
	var out []string
	for _, c := range d.Commands {
		out = append(out, c.Delete...)
	}
	slices.Sort(out)
	return out
}

func mustDuration(s string) apis.NillableDuration {
	d, err := apis.ParseNillableDuration(s)
	if err != nil {
		panic(err)
	}
	return d
}

// replacements counts the NodeClaims the decision's commands launch.
func replacements(d consolidation.Decision) int {
	n := 0
	for _, c := range d.Commands {
		n += len(c.Replacements)
	}
	return n
}
