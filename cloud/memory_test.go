package cloud

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/instancetypes"
)

var t0 = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

func spotReq(name string) LaunchRequest {
	return LaunchRequest{NodeClaim: name, NodePool: "default", InstanceType: "fake-it-3", Zone: "test-zone-1", CapacityType: "spot", PricePerHour: 9}
}

func TestMemoryLaunchTimingAndPrice(t *testing.T) {
	clock := NewManualClock(t0)
	m, err := NewMemory(MemoryConfig{Clock: clock, Catalog: instancetypes.Fake(10), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		inst, err := m.Create(context.Background(), spotReq("c"))
		if err != nil {
			t.Fatal(err)
		}
		ready := inst.InitializedAt.Sub(inst.LaunchedAt)
		if ready < 47*time.Second || ready > 57*time.Second || !inst.RegisteredAt.Before(inst.InitializedAt) {
			t.Fatalf("launch %d: registered %v, initialized %v after launch", i, inst.RegisteredAt.Sub(t0), ready)
		}
		if want := 0.31474837 * 4; inst.PricePerHour < want-1e-6 || inst.PricePerHour > want+1e-6 {
			t.Fatalf("price %v, want the catalog's %v, not the request's", inst.PricePerHour, want)
		}
	}
	if _, err := m.Create(context.Background(), LaunchRequest{InstanceType: "nope", Zone: "test-zone-1", CapacityType: "spot"}); err == nil {
		t.Error("an instance type outside the catalog launched")
	}
}

func TestMemoryCapacityAndDelete(t *testing.T) {
	key := OfferingKey{InstanceType: "fake-it-3", Zone: "test-zone-1", CapacityType: "spot"}
	m, err := NewMemory(MemoryConfig{Capacity: map[OfferingKey]int{key: 1}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	a, err := m.Create(ctx, spotReq("a"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Create(ctx, spotReq("b"))
	ice, ok := IsInsufficientCapacity(err)
	if !ok || ice.InstanceType != "fake-it-3" || ice.Zone != "test-zone-1" || ice.CapacityType != "spot" {
		t.Fatalf("second launch: %v, want insufficient capacity", err)
	}
	if err := m.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := m.Delete(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v, want ErrNotFound", err)
	}
	if _, err := m.Create(ctx, spotReq("c")); err != nil {
		t.Errorf("capacity not given back on delete: %v", err)
	}
	calls := m.Calls()
	ops := ""
	for _, c := range calls {
		ops += c.Op
		if c.Error != "" {
			ops += "!"
		}
		ops += " "
	}
	if ops != "create create! delete delete! create " {
		t.Errorf("calls %q", ops)
	}
}

func TestMemoryFailureRateIsSeeded(t *testing.T) {
	outcomes := func(seed uint64) string {
		m, err := NewMemory(MemoryConfig{FailureRate: 0.5, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		s := ""
		for range 40 {
			if _, err := m.Create(context.Background(), spotReq("x")); err != nil {
				s += "F"
			} else {
				s += "."
			}
		}
		return s
	}
	a, b := outcomes(7), outcomes(7)
	if a != b {
		t.Fatalf("same seed, different outcomes: %s vs %s", a, b)
	}
	if a == outcomes(8) {
		t.Errorf("seeds 7 and 8 gave the same 40 outcomes %s", a)
	}
}

func TestMemoryInterrupt(t *testing.T) {
	clock := NewManualClock(t0)
	m, _ := NewMemory(MemoryConfig{Clock: clock})
	ctx := context.Background()
	spot, _ := m.Create(ctx, spotReq("s"))
	od := spotReq("o")
	od.CapacityType = "on-demand"
	onDemand, _ := m.Create(ctx, od)
	clock.Advance(time.Minute)
	in, err := m.Interrupt(spot.ID)
	if err != nil || in.TerminateAt.Sub(in.NoticeAt) != 2*time.Minute || !in.NoticeAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("interrupt: %+v, %v", in, err)
	}
	if _, err := m.Interrupt(onDemand.ID); err == nil {
		t.Error("an on-demand instance was interrupted")
	}
	if got := len(m.Instances()); got != 2 {
		t.Errorf("%d instances running, want 2 (interruption does not terminate by itself)", got)
	}
}

func TestNewMemoryRejectsBadConfig(t *testing.T) {
	if _, err := NewMemory(MemoryConfig{FailureRate: 2}); err == nil {
		t.Error("failure rate 2 accepted")
	}
	if _, err := NewMemory(MemoryConfig{Capacity: map[OfferingKey]int{{InstanceType: "x"}: -1}}); err == nil {
		t.Error("negative capacity accepted")
	}
}

func TestMemoryClusterCopiesAndSorts(t *testing.T) {
	var c MemoryCluster
	b := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}}
	a := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}}
	c.Set(ClusterState{Pods: []*corev1.Pod{b, a}})
	b.Name = "changed"
	got := c.Snapshot()
	if len(got.Pods) != 2 || got.Pods[0].Name != "a" || got.Pods[1].Name != "b" {
		t.Fatalf("pods %v", got.Pods)
	}
	got.Pods[0].Name = "mutated"
	if c.Snapshot().Pods[0].Name != "a" {
		t.Error("a snapshot shares memory with the cluster")
	}
}

func TestManualClockNeverRunsBackwards(t *testing.T) {
	c := NewManualClock(t0)
	c.Set(t0.Add(-time.Hour))
	c.Advance(-time.Minute)
	if !c.Now().Equal(t0) {
		t.Errorf("clock moved back to %v", c.Now())
	}
}

// Launches, deletions, interruptions and reads may come from several
// goroutines at once (run with -race).
func TestMemoryIsSafeForConcurrentUse(t *testing.T) {
	m, err := NewMemory(MemoryConfig{Clock: WallClock{}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 50 {
				inst, err := m.Create(ctx, spotReq(fmt.Sprintf("c-%d-%d", g, i)))
				if err != nil {
					t.Error(err)
					return
				}
				if i%2 == 0 {
					_, _ = m.Interrupt(inst.ID)
				}
				_ = m.Instances()
				if err := m.Delete(ctx, inst.ID); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
	if n := len(m.Instances()); n != 0 {
		t.Errorf("%d instances left", n)
	}
	if n := len(m.Calls()); n != 4*(50+25+50) {
		t.Errorf("%d calls recorded", n)
	}
}

func TestMemoryAdoptsRunningInstances(t *testing.T) {
	m, _ := NewMemory(MemoryConfig{Capacity: map[OfferingKey]int{{InstanceType: "fake-it-3", Zone: "test-zone-1", CapacityType: "spot"}: 1}})
	ctx := context.Background()
	existing := Instance{ID: "existing-node", InstanceType: "fake-it-3", Zone: "test-zone-1", CapacityType: "spot"}
	if err := m.Adopt(existing); err != nil {
		t.Fatal(err)
	}
	if err := m.Adopt(existing); err == nil {
		t.Error("the same instance was adopted twice")
	}
	var ice *InsufficientCapacityError
	if _, err := m.Create(ctx, spotReq("new")); !errors.As(err, &ice) {
		t.Errorf("the adopted instance should hold the offering's only slot: %v", err)
	}
	if _, err := m.Interrupt("existing-node"); err != nil {
		t.Errorf("interrupt an adopted instance: %v", err)
	}
	if err := m.Delete(ctx, "existing-node"); err != nil {
		t.Errorf("delete an adopted instance: %v", err)
	}
}

// TestMemoryTriesOverridesInOrder: a request with overrides launches the
// first with capacity in one call and names those refused; with none left
// the error names them all.
func TestMemoryTriesOverridesInOrder(t *testing.T) {
	a := OfferingKey{InstanceType: "m5.large", Zone: "z1", CapacityType: "spot"}
	b := OfferingKey{InstanceType: "m5.large", Zone: "z2", CapacityType: "spot"}
	c := OfferingKey{InstanceType: "c5.large", Zone: "z1", CapacityType: "spot"}
	m, err := NewMemory(MemoryConfig{Capacity: map[OfferingKey]int{a: 0, b: 1, c: 1}})
	if err != nil {
		t.Fatal(err)
	}
	over := func(k OfferingKey, price float64) Override {
		return Override{InstanceType: k.InstanceType, Zone: k.Zone, CapacityType: k.CapacityType, PricePerHour: price}
	}
	req := LaunchRequest{NodeClaim: "default-1", InstanceType: a.InstanceType, Zone: a.Zone, CapacityType: a.CapacityType, PricePerHour: 1,
		Overrides: []Override{over(a, 1), over(b, 2), over(c, 3)}}
	inst, err := m.Create(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if inst.Zone != "z2" || inst.PricePerHour != 2 || !slices.Equal(inst.Unavailable, []OfferingKey{a}) {
		t.Fatalf("launched %+v: want the second override, the first reported unavailable", inst)
	}
	req.NodeClaim = "default-2"
	inst, err = m.Create(context.Background(), req)
	if err != nil || inst.InstanceType != "c5.large" || !slices.Equal(inst.Unavailable, []OfferingKey{a, b}) {
		t.Fatalf("launched %+v, %v: want the third override", inst, err)
	}
	req.NodeClaim = "default-3"
	_, err = m.Create(context.Background(), req)
	ice, ok := IsInsufficientCapacity(err)
	if !ok || !slices.Equal(ice.Refused(), []OfferingKey{a, b, c}) || ice.Zone != "z1" {
		t.Fatalf("error %v: want every override refused", err)
	}
	if n := len(m.Calls()); n != 3 {
		t.Errorf("%d calls, want one a request", n)
	}
}
