package cloud_test

import (
	"context"
	"fmt"
	"time"

	"github.com/karpsim/karpsim/cloud"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A Memory cloud with no capacity for one offering, as a custom launcher's
// tests would use it.
func ExampleMemory() {
	clock := cloud.NewManualClock(time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC))
	full := cloud.OfferingKey{InstanceType: "c6a.large", Zone: "us-east-1a", CapacityType: "spot"}
	m, err := cloud.NewMemory(cloud.MemoryConfig{Clock: clock, Capacity: map[cloud.OfferingKey]int{full: 0}, LaunchJitter: -1})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	_, err = m.Create(ctx, cloud.LaunchRequest{NodeClaim: "default-1", InstanceType: "c6a.large", Zone: "us-east-1a", CapacityType: "spot", PricePerHour: 0.03})
	if ice, ok := cloud.IsInsufficientCapacity(err); ok {
		fmt.Println("ICE:", ice)
	}
	inst, _ := m.Create(ctx, cloud.LaunchRequest{NodeClaim: "default-2", InstanceType: "c6a.large", Zone: "us-east-1b", CapacityType: "spot", PricePerHour: 0.03})
	fmt.Println(inst.ID, "ready after", inst.InitializedAt.Sub(inst.LaunchedAt))
	for _, c := range m.Calls() {
		fmt.Println(c.Op, c.Instance, c.Error)
	}
	// Output:
	// ICE: insufficient capacity for spot c6a.large in us-east-1a
	// i-00000000000000001 ready after 47s
	// create  insufficient capacity for spot c6a.large in us-east-1a
	// create i-00000000000000001
}

// The in-memory API server: a controller watches it for changes and writes
// its NodeClaims and drains through it.
func ExampleMemoryCluster() {
	var cluster cloud.MemoryCluster
	ctx := context.Background()
	cluster.Watch(ctx, func(c cloud.Change) { fmt.Println(c.Type, c.Kind, c.Name) })

	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ip-10-0-1-10"}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: corev1.PodSpec{NodeName: "ip-10-0-1-10"}}
	_ = cluster.Apply(node, pod)
	evicted, _ := cluster.DeleteNode(ctx, "ip-10-0-1-10")
	fmt.Println("evicted:", evicted, "pending again:", cluster.Snapshot().Pods[0].Spec.NodeName == "")
	// Output:
	// ADDED Node ip-10-0-1-10
	// ADDED Pod web
	// MODIFIED Pod web
	// DELETED Node ip-10-0-1-10
	// evicted: 1 pending again: true
}
