package hosttest_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/controller/hosttest"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

// A whole cluster for a Runner, in memory and on a clock the test moves:
// cloud.MemoryCluster is the API server, cloud.Memory the cloud, and a Host
// the kubelet and kube-scheduler. Each second the Runner (Karpenter) steps,
// then the Host: the NodeClaim launched for three pending pods becomes a
// node that joins and is Ready when the cloud's instance says so (the
// Host's lines), the Runner marks its NodeClaim ready (the Runner's line,
// with the instance type), and the Host binds the pods to it. A test of
// a custom Launcher runs the same loop with its launcher in cloud.Memory's
// place.
func ExampleHost() {
	clock := cloud.NewManualClock(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	cluster := &cloud.MemoryCluster{}
	defaults, err := manifests.Decode("defaults", snapshot.DefaultManifests())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := cluster.Apply(defaults.NodePools[0], defaults.EC2NodeClasses[0]); err != nil {
		fmt.Println(err)
		return
	}
	for i := range 3 {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("web-%d", i)}}
		pod.Spec.Containers = []corev1.Container{{Name: "web", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}}}}
		if err := cluster.Apply(pod); err != nil {
			fmt.Println(err)
			return
		}
	}
	launcher, err := cloud.NewMemory(cloud.MemoryConfig{Clock: clock})
	if err != nil {
		fmt.Println(err)
		return
	}
	runner, err := controller.NewRunner(controller.RunnerConfig{
		Watcher: cluster, Writer: cluster, Launcher: launcher, Clock: clock,
		Record: func(d controller.Decision) {
			fmt.Println(clock.Now().Format(time.TimeOnly), d.Kind, d.Nodes, d.InstanceType)
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer runner.Close()
	host := hosttest.New(cluster, hosttest.Config{Instances: launcher.Instances})

	for range 60 {
		clock.Advance(time.Second)
		if err := runner.Step(context.Background()); err != nil {
			fmt.Println(err)
			return
		}
		report, err := host.Step(clock.Now())
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, n := range report.Joined {
			fmt.Println(clock.Now().Format(time.TimeOnly), "joined", n)
		}
		for _, n := range report.Ready {
			fmt.Println(clock.Now().Format(time.TimeOnly), "ready", n)
		}
		for _, b := range report.Bound {
			fmt.Println(clock.Now().Format(time.TimeOnly), "bound", b)
		}
	}
	// Output:
	// 00:00:02 launch [default-00001] c6a.2xlarge
	// 00:00:39 joined default-00001
	// 00:00:51 ready default-00001
	// 00:00:52 ready [default-00001] c6a.2xlarge
	// 00:00:52 bound default/web-0 → default-00001
	// 00:00:52 bound default/web-1 → default-00001
	// 00:00:52 bound default/web-2 → default-00001
}
