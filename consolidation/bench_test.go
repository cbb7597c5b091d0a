package consolidation

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/internal/clusterdump"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// benchCluster is a packed cluster of n nodes over the embedded EC2 catalog,
// the worst case for a disruption pass: nothing is empty, the only drifted
// nodes are protected by do-not-disrupt pods, each node's 20 pods fill 96–99%
// of it, so that no pod fits on another node, and workloads are pinned to
// their NodePool and instance type, so that no merge is cheaper. Every method
// runs, multi-node consolidation binary-searches its batch and single-node
// consolidation simulates every candidate, finding nothing. Two NodePools
// (on-demand c/m/r of generation 5+, spot c/m), two DaemonSets, a PDB per
// app, ten pending pods that fit nowhere.
func benchCluster(n int, seed uint64) Cluster {
	rng := rand.New(rand.NewPCG(seed, 0))
	catalog := instancetypes.Default()
	general := newPool("general",
		withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand),
		withRequirement(apis.LabelInstanceCategory, corev1.NodeSelectorOpIn, "c", "m", "r"),
		withRequirement(apis.LabelInstanceGeneration, corev1.NodeSelectorOpGt, "4"),
		withBudgets(apis.Budget{Nodes: "10%"}))
	spot := newPool("spot",
		withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot),
		withRequirement(apis.LabelInstanceCategory, corev1.NodeSelectorOpIn, "c", "m"),
		withBudgets(apis.Budget{Nodes: "10%"}))
	daemons := []*corev1.Pod{benchDaemon("logs"), benchDaemon("metrics")}
	c := Cluster{
		NodePools:  []scheduling.Pool{{NodePool: general, InstanceTypes: catalog}, {NodePool: spot, InstanceTypes: catalog}},
		DaemonSets: daemons,
	}
	types := map[string][]string{"general": {"m5.xlarge", "m5.2xlarge", "c5.2xlarge", "r5.xlarge"}, "spot": {"c5.2xlarge", "m5.2xlarge"}}
	for i := range n {
		pool, capacityType := "general", apis.CapacityTypeOnDemand
		if i%4 == 3 {
			pool, capacityType = "spot", apis.CapacityTypeSpot
		}
		it, _ := catalog.Get(types[pool][rng.IntN(len(types[pool]))])
		c.Nodes = append(c.Nodes, benchNode(rng, fmt.Sprintf("node-%05d", i), pool, capacityType, it, daemons))
	}
	for app := range 50 {
		max := intstr.FromString("20%")
		c.PDBs = append(c.PDBs, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("app-%d", app), Namespace: "default"},
			Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &max, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("app-%d", app)}}}})
	}
	for i := range 10 {
		c.Pending = append(c.Pending, benchPod(fmt.Sprintf("pending-%d", i), "app-0", 1000000, 1<<40, nil))
	}
	return c
}

func benchNode(rng *rand.Rand, name, pool, capacityType string, it *instancetypes.InstanceType, daemons []*corev1.Pod) *Node {
	labels := it.Labels()
	labels[apis.LabelHostname], labels[apis.LabelNodePool], labels[apis.LabelCapacityType] = name, pool, capacityType
	labels[apis.LabelTopologyZone], labels[apis.LabelNodeInitialized] = []string{"us-east-1a", "us-east-1b", "us-east-1c"}[rng.IntN(3)], "true"
	selector := map[string]string{apis.LabelNodePool: pool, apis.LabelInstanceType: it.Name}
	free := it.Allocatable()
	var bound []*corev1.Pod
	for _, d := range daemons {
		p := d.DeepCopy()
		p.Name, p.Spec.NodeName = d.Name+"-"+name, name
		bound = append(bound, p)
		requests, err := resources.PodRequests(p)
		if err != nil {
			panic(err) // benchDaemon's requests are constants
		}
		free = free.Sub(requests)
	}
	fill := 0.96 + 0.03*rng.Float64()
	cpu, memory := int64(float64(free.CPU())*fill/20), int64(float64(free.Memory())*fill/20)
	for j := range 20 {
		p := benchPod(fmt.Sprintf("%s-%d", name, j), fmt.Sprintf("app-%d", rng.IntN(50)), cpu, memory, selector)
		p.Spec.NodeName = name
		bound = append(bound, p)
	}
	n := &Node{
		Node: &scheduling.Node{Name: name, NodePool: pool, Labels: labels, Capacity: it.Capacity.List(), Allocatable: it.Allocatable().List(),
			Pods: bound, Initialized: true},
		NodeClaim:     &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}},
		InitializedAt: now.Add(-48 * time.Hour), LastPodEventAt: now.Add(-time.Duration(rng.IntN(24*60)) * time.Minute),
	}
	if rng.IntN(100) == 0 {
		n.Drift = &DriftStatus{Reason: "NodeClassDrifted", Since: now.Add(-time.Hour)}
		bound[2].Annotations = map[string]string{apis.AnnotationDoNotDisrupt: "true"}
	}
	return n
}

func benchPod(name, app string, cpuMilli, memory int64, selector map[string]string) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": app},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: *resource.NewMilliQuantity(cpuMilli, resource.DecimalSI), corev1.ResourceMemory: *resource.NewQuantity(memory, resource.BinarySI),
		}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning},
	}
	p.Spec.NodeSelector = selector
	return p
}

func benchDaemon(name string) *corev1.Pod {
	p := benchPod(name, name, 100, 128<<20, nil)
	p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: name}}
	return p
}

func BenchmarkEvaluate(b *testing.B) {
	for _, n := range []int{100, 1000, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			c := benchCluster(n, 1)
			var d Decision
			b.ReportAllocs()
			cpu := clusterdump.CPUTime()
			for b.Loop() {
				d = Evaluate(c, now, Options{})
			}
			b.ReportMetric((clusterdump.CPUTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			if len(d.Commands) != 0 {
				b.Fatalf("the packed cluster should have nothing to do, got %v", summary(d))
			}
			e := newEvaluation(c, now, Options{})
			for _, m := range methods {
				m.run(e)
			}
			b.ReportMetric(float64(e.sim.solves), "solves/op")
		})
	}
}
