package clusterautoscaler

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/instancetypes"
)

// fakeCluster is a cluster in memory for the Autoscaler's tests: nodes are
// ready as soon as they are added, and the test binds pods itself.
type fakeCluster struct {
	nodes   []*Node
	pending []*corev1.Pod
	pdbs    []*policyv1.PodDisruptionBudget
	gen     uint64
	wakes   []Wake
}

func (f *fakeCluster) Pending() []*corev1.Pod                { return f.pending }
func (f *fakeCluster) Nodes() []*Node                        { return f.nodes }
func (f *fakeCluster) DaemonSets() []*corev1.Pod             { return nil }
func (f *fakeCluster) PDBs() []*policyv1.PodDisruptionBudget { return f.pdbs }
func (f *fakeCluster) Generation() uint64                    { return f.gen }
func (f *fakeCluster) WakeAt(_ time.Time, w Wake)            { f.wakes = append(f.wakes, w) }
func (f *fakeCluster) AddNode(_ context.Context, n *Node) error {
	n.Ready = true
	f.nodes = append(f.nodes, n)
	f.gen++
	return nil
}
func (f *fakeCluster) Drain(_ context.Context, n *Node) (int, error) {
	for i, m := range f.nodes {
		if m == n {
			f.nodes = append(f.nodes[:i], f.nodes[i+1:]...)
		}
	}
	f.gen++
	return len(n.Node.Pods), nil
}

func webPod(name string) *corev1.Pod {
	yes := true
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{"app": "web"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-1", Controller: &yes}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1Gi")}}}}},
	}
}

// twoNodes starts CA with a group of min 2, and puts one web pod on each
// node.
func twoNodes(t *testing.T, pdbs ...*policyv1.PodDisruptionBudget) (*Autoscaler, *fakeCluster) {
	t.Helper()
	catalog, err := instancetypes.NewAWS(instancetypes.EmbeddedFacts(), instancetypes.AWSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	mem, err := cloud.NewMemory(cloud.MemoryConfig{Clock: cloud.NewManualClock(start), Catalog: catalog})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeCluster{pdbs: pdbs}
	a, err := New(Config{Spec: Spec{NodeGroups: []NodeGroup{{Name: "g", InstanceTypes: []string{"m5.2xlarge"}, Min: 1, Max: 5}}},
		Catalog: catalog, Cluster: f, Launcher: mem, Timers: f})
	if err != nil {
		t.Fatal(err)
	}
	a.Start(context.Background(), start)
	g := a.byName["g"]
	g.target++
	a.launchOne(context.Background(), g, true)
	if len(f.nodes) != 2 {
		t.Fatalf("%d nodes, want 2", len(f.nodes))
	}
	for i, n := range f.nodes {
		n.Node.Pods = []*corev1.Pod{webPod(fmt.Sprintf("web-%d", i))}
		n.Node.Pods[0].Spec.NodeName = n.Name()
	}
	return a, f
}

func TestUnremovableSaysWhy(t *testing.T) {
	two := intstr.FromInt32(2)
	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
	a, _ := twoNodes(t, pdb)
	why := a.Unremovable()
	if len(why) != 2 {
		t.Fatalf("Unremovable = %v, want both nodes", why)
	}
	for node, reason := range why {
		if !strings.Contains(reason, "not enough pod disruption budget to move default/web-") {
			t.Errorf("%s: %q, want the PDB", node, reason)
		}
	}

	a, _ = twoNodes(t)
	if why := a.Unremovable(); len(why) != 1 {
		t.Errorf("without the PDB, Unremovable = %v, want one node (its pod has nowhere to go once the other is removed)", why)
	}
}

func TestScaleDownHonoursMinSize(t *testing.T) {
	a, f := twoNodes(t)
	ctx, now := context.Background(), a.now()
	for i := range 70 {
		a.Wake(ctx, WakeScan, now.Add(time.Duration(i)*10*time.Second))
	}
	if len(f.nodes) != 1 {
		t.Fatalf("%d nodes after 11 minutes, want one removed once unneeded for 10 minutes", len(f.nodes))
	}
	for i := range 70 {
		a.Wake(ctx, WakeScan, now.Add(time.Duration(70+i)*10*time.Second))
	}
	if len(f.nodes) != 1 {
		t.Errorf("%d nodes, want the group's min size, 1", len(f.nodes))
	}
}
