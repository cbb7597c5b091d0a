// Command livecontroller runs Karpenter's loop (package controller) the way
// it runs against a real cluster: controller.Runner.Run on the wall clock,
// reading the cluster through a cloud.ClusterWatcher, writing NodeClaims and
// taints through a cloud.ClusterWriter, launching through a cloud.Launcher.
// Here those are the in-memory API server (cloud.MemoryCluster) and cloud
// (cloud.Memory), and a goroutine plays the kubelet (nodes join and become
// Ready) and the kube-scheduler (pending pods are bound); a real deployment
// plugs in a Kubernetes client and its cloud instead.
//
// The loop's intervals are shortened (controller.Timings) so that a scale
// up and down takes a second or two instead of a minute.
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "livecontroller:", err)
		os.Exit(1)
	}
}

// The kubelet's timings: a node joins this long after its NodeClaim is
// created, and is Ready this long after joining.
const (
	registerAfter = 300 * time.Millisecond
	readyAfter    = 200 * time.Millisecond
)

func run(out io.Writer) error {
	cluster := &cloud.MemoryCluster{}
	defaults, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	if err != nil {
		return err
	}
	if err := cluster.Apply(defaults.NodePools[0], defaults.EC2NodeClasses[0]); err != nil {
		return err
	}
	launcher, err := cloud.NewMemory(cloud.MemoryConfig{Clock: cloud.WallClock{}, Catalog: instancetypes.Default()})
	if err != nil {
		return err
	}

	var mu sync.Mutex
	var decisions []controller.Decision
	runner, err := controller.NewRunner(controller.RunnerConfig{
		Watcher: cluster, Writer: cluster, Launcher: launcher,
		Timings: controller.Timings{BatchIdle: 50 * time.Millisecond, BatchMax: 500 * time.Millisecond,
			DisruptionInterval: 100 * time.Millisecond, ValidationDelay: 200 * time.Millisecond,
			UnschedulableRetry: time.Second, DisruptionRecheck: time.Second, NominationWindow: 200 * time.Millisecond},
		Record: func(d controller.Decision) {
			mu.Lock()
			defer mu.Unlock()
			decisions = append(decisions, d)
		},
	})
	if err != nil {
		return err
	}
	defer runner.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runner.Run(ctx) }()
	go kubeletAndScheduler(ctx, cluster)

	for i := range 10 {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("inflate-%d", i),
			CreationTimestamp: metav1.Now()}}
		pod.Spec.Containers = []corev1.Container{{Name: "inflate", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("1536Mi")}}}}
		if err := cluster.Apply(pod); err != nil {
			return err
		}
	}
	if err := waitFor(10*time.Second, func(s cloud.ClusterState) bool {
		return len(s.Pods) > 0 && !slices.ContainsFunc(s.Pods, func(p *corev1.Pod) bool { return p.Spec.NodeName == "" })
	}, cluster); err != nil {
		return fmt.Errorf("scale-up: %w", err)
	}
	fmt.Fprintf(out, "10 pods running on %d node(s)\n", len(cluster.Snapshot().Nodes))

	for _, p := range cluster.Snapshot().Pods {
		if err := cluster.Delete("Pod", p.Namespace, p.Name); err != nil {
			return err
		}
	}
	if err := waitFor(10*time.Second, func(s cloud.ClusterState) bool { return len(s.Nodes) == 0 && len(s.NodeClaims) == 0 }, cluster); err != nil {
		return fmt.Errorf("scale-down: %w", err)
	}
	cancel()
	if err := <-done; err != context.Canceled {
		return err
	}
	fmt.Fprintln(out, "pods deleted: every node consolidated away")
	mu.Lock()
	defer mu.Unlock()
	for _, d := range decisions {
		what := strings.TrimSpace(d.InstanceType + " " + d.CapacityType)
		fmt.Fprintf(out, "%-6s %v %s: %s\n", d.Kind, d.Nodes, what, d.Reason)
	}
	fmt.Fprintf(out, "instances still running: %d\n", len(launcher.Instances()))
	return nil
}

// waitFor polls the cluster until ok holds, or fails after limit.
func waitFor(limit time.Duration, ok func(cloud.ClusterState) bool, cluster *cloud.MemoryCluster) error {
	deadline := time.Now().Add(limit)
	for !ok(cluster.Snapshot()) {
		if time.Now().After(deadline) {
			return fmt.Errorf("not done after %v", limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return nil
}

// kubeletAndScheduler plays the kubelet of every launched NodeClaim (its
// node joins registerAfter the claim was created, Ready readyAfter that,
// its startup taints gone) and the kube-scheduler (each pending pod goes to
// the first initialized, undisrupted node with room for its cpu).
func kubeletAndScheduler(ctx context.Context, cluster *cloud.MemoryCluster) {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s := cluster.Snapshot()
		now := time.Now()
		nodes := map[string]*corev1.Node{}
		for _, n := range s.Nodes {
			nodes[n.Name] = n
		}
		for _, c := range s.NodeClaims {
			node := nodes[c.Name]
			switch {
			case node == nil && now.Sub(c.CreationTimestamp.Time) >= registerAfter:
				node = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: c.Name, Labels: maps.Clone(c.Labels), CreationTimestamp: metav1.NewTime(now)}}
				node.Spec.ProviderID = c.Status.ProviderID
				node.Spec.Taints = append(slices.Clone(c.Spec.Taints), c.Spec.StartupTaints...)
				node.Status.Capacity, node.Status.Allocatable = c.Status.Capacity, c.Status.Allocatable
				_ = cluster.Apply(node)
			case node != nil && len(node.Status.Conditions) == 0 && now.Sub(node.CreationTimestamp.Time) >= readyAfter:
				node.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}
				node.Spec.Taints = slices.DeleteFunc(node.Spec.Taints, func(t corev1.Taint) bool {
					return slices.ContainsFunc(c.Spec.StartupTaints, func(st corev1.Taint) bool { return st.MatchTaint(&t) })
				})
				_ = cluster.Apply(node)
			}
		}
		schedule(s, cluster)
	}
}

func schedule(s cloud.ClusterState, cluster *cloud.MemoryCluster) {
	free := map[string]int64{}
	var ready []string
	for _, n := range s.Nodes {
		disrupted := apis.HasDisruptedTaint(n.Spec.Taints)
		if n.Labels[apis.LabelNodeInitialized] == "true" && !disrupted {
			ready = append(ready, n.Name)
			free[n.Name] = n.Status.Allocatable.Cpu().MilliValue()
		}
	}
	for _, p := range s.Pods {
		if p.Spec.NodeName != "" {
			free[p.Spec.NodeName] -= p.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
		}
	}
	for _, p := range s.Pods {
		if p.Spec.NodeName != "" {
			continue
		}
		cpu := p.Spec.Containers[0].Resources.Requests.Cpu().MilliValue()
		for _, name := range ready {
			if free[name] >= cpu {
				free[name] -= cpu
				p.Spec.NodeName = name
				_ = cluster.Apply(p)
				break
			}
		}
	}
}
