package controller_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

// Karpenter's loop against a cluster: here the in-memory API server and
// cloud, on a clock the example moves; a real deployment plugs in a
// Kubernetes client as Watcher and Writer, its cloud as Launcher, and calls
// Run on the wall clock.
func ExampleRunner() {
	clock := cloud.NewManualClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	cluster := &cloud.MemoryCluster{}
	defaults, _ := manifests.Decode("defaults", snapshot.DefaultManifests())
	_ = cluster.Apply(defaults.NodePools[0], defaults.EC2NodeClasses[0])
	for i := range 3 {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("web-%d", i)}}
		pod.Spec.Containers = []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}}}}
		_ = cluster.Apply(pod)
	}
	launcher, _ := cloud.NewMemory(cloud.MemoryConfig{Clock: clock})

	runner, err := controller.NewRunner(controller.RunnerConfig{
		Watcher: cluster, Writer: cluster, Launcher: launcher, Clock: clock,
		Record: func(d controller.Decision) {
			fmt.Printf("+%v %s %v %s %s: %s\n", d.At.Duration, d.Kind, d.Nodes, d.InstanceType, d.CapacityType, d.Reason)
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer runner.Close()
	for range 3 {
		clock.Advance(time.Second)
		if err := runner.Step(context.Background()); err != nil {
			fmt.Println(err)
		}
	}
	claims := cluster.Snapshot().NodeClaims
	fmt.Println(len(claims), "NodeClaim:", claims[0].Name, claims[0].Status.Conditions[0].Type)
	// Output:
	// +2s launch [default-00001] c6a.2xlarge spot: provisioning: 3 pending pods; cheapest of 560 options
	// 1 NodeClaim: default-00001 Launched
}
