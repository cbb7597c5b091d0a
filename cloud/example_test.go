package cloud_test

import (
	"context"
	"fmt"
	"time"

	"github.com/karpsim/karpsim/cloud"
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
