// Command livecontroller runs Karpenter's loop (package controller) the way
// it runs against a real cluster: controller.Runner.Run on the wall clock,
// reading the cluster through a cloud.ClusterWatcher, writing NodeClaims and
// taints through a cloud.ClusterWriter, launching through a cloud.Launcher.
// Here those are the in-memory API server (cloud.MemoryCluster) and cloud
// (cloud.Memory), and hosttest.Host plays the kubelet (nodes join and
// become Ready) and the kube-scheduler (pending pods are bound); a real
// deployment plugs in a Kubernetes client and its cloud instead, and its
// own kubelets and kube-scheduler keep the contract hosttest documents.
//
// The loop's intervals are shortened (controller.Timings) so that a scale
// up and down takes a second or two instead of a minute.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/controller/hosttest"
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
	host := hosttest.New(cluster, hosttest.Config{RegisterAfter: registerAfter, ReadyAfter: readyAfter})
	hostDone := make(chan error, 1)
	go func() { hostDone <- host.Run(ctx, 10*time.Millisecond, nil) }()

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
	if err := <-hostDone; err != nil {
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
