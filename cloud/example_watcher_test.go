package cloud_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/simulator"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// frozenCluster is a ClusterWatcher written from scratch: a cluster kept
// somewhere else (an inventory service, a dump taken last night) served as
// it was when read. Snapshot hands out copies, as the interface asks, so
// that the caller may change them; a frozen cluster has no changes to
// report, so Watch returns at once without calling fn. A live watcher would
// keep fn and call it on every change until ctx is done.
type frozenCluster struct {
	pods  []*corev1.Pod
	nodes []*corev1.Node
}

func (f *frozenCluster) Snapshot() cloud.ClusterState {
	var s cloud.ClusterState
	for _, p := range f.pods {
		s.Pods = append(s.Pods, p.DeepCopy())
	}
	for _, n := range f.nodes {
		s.Nodes = append(s.Nodes, n.DeepCopy())
	}
	return s
}

func (f *frozenCluster) Watch(context.Context, func(cloud.Change)) {}

// pendingPod is a pod no node has yet, asking for cpu and memory.
func pendingPod(name, cpu, memory string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "work", Image: "worker",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(memory),
			}},
		}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
}

// A ClusterWatcher written from scratch, as the start of a simulation:
// simulator.Config.Cluster reads its snapshot once and adds its objects to
// the scenario's (here, none: the default NodePool and EC2NodeClass are
// used), so four pending batch pods get a node from Karpenter's loop.
func ExampleClusterWatcher() {
	cluster := &frozenCluster{pods: []*corev1.Pod{
		pendingPod("job-a", "2", "4Gi"),
		pendingPod("job-b", "2", "4Gi"),
		pendingPod("job-c", "4", "16Gi"),
		pendingPod("job-d", "500m", "1Gi"),
	}}
	sc, err := simulator.ParseScenario([]byte("seed: 1\nduration: 5m\n"))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := simulator.Run(context.Background(), sc, simulator.Config{Cluster: cluster})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range res.Timeline {
		line := fmt.Sprint(d.At.Duration, " ", d.Kind, " ", strings.Join(d.Nodes, ","))
		if d.Pods > 0 {
			line += fmt.Sprintf(" (%d pods)", d.Pods)
		}
		if d.InstanceType != "" {
			line += " " + d.InstanceType
		}
		fmt.Println(line)
	}
	fmt.Println("pods still pending:", res.Final.PendingPods)
	// Output:
	// 1s launch default-00001 (4 pods) c6a.4xlarge
	// 53s ready default-00001 c6a.4xlarge
	// 53s bind default-00001 (4 pods)
	// pods still pending: 0
}
