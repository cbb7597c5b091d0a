package consolidation_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// Two 4-CPU on-demand nodes each run a 2.5-CPU pod; a third node is empty.
// Emptiness deletes the empty node first. Once it is gone, the default
// budget (10% of two nodes, rounded up: one) keeps multi-node consolidation
// from merging the other two, and single-node consolidation replaces one by
// a cheaper 3-CPU spot node.
func ExampleEvaluate() {
	catalog := instancetypes.Fake(20)
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	np.SetDefaults()
	node := func(name string, pods ...*corev1.Pod) *consolidation.Node {
		it, _ := catalog.Get("fake-it-3")
		return &consolidation.Node{
			Node: &scheduling.Node{Name: name, NodePool: "default", Initialized: true, Pods: pods,
				Capacity: it.Capacity.List(), Allocatable: it.Allocatable().List(),
				Labels: map[string]string{apis.LabelNodePool: "default", apis.LabelInstanceType: it.Name, apis.LabelArch: "amd64", apis.LabelOS: "linux",
					apis.LabelCapacityType: apis.CapacityTypeOnDemand, apis.LabelTopologyZone: "test-zone-1", apis.LabelHostname: name}},
			NodeClaim: &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name}},
		}
	}
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2500m")}}}}}}
	}
	cluster := consolidation.Cluster{
		Nodes:     []*consolidation.Node{node("a", pod("web-a")), node("b", pod("web-b")), node("idle")},
		NodePools: []scheduling.Pool{{NodePool: np, InstanceTypes: catalog}},
	}
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	for range 2 {
		d := consolidation.Evaluate(cluster, now, consolidation.Options{})
		for _, c := range d.Commands {
			fmt.Printf("%s: %s\n", c.Method, c.Reason)
			fmt.Printf("  delete %v, save $%.4f/h\n", c.Delete, c.SavingsPerHour)
			for _, m := range c.Moves {
				fmt.Printf("  %s -> %s\n", m.Pod, m.To)
			}
		}
		cluster.Nodes = cluster.Nodes[:2]
	}
	// Output:
	// emptiness: Empty/delete: 1 node empty
	//   delete [idle], save $1.2590/h
	// single-node-consolidation: Underutilized/replace: 1 node ($1.2590/h) by one spot fake-it-2 ($0.9442/h)
	//   delete [a], save $0.3147/h
	//   default/web-a -> default-1
}
