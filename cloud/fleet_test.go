package cloud

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/karpsim/karpsim/instancetypes"
)

func override(k OfferingKey, price float64) Override {
	return Override{InstanceType: k.InstanceType, Zone: k.Zone, CapacityType: k.CapacityType, PricePerHour: price}
}

func fleetRequest(name string, overrides ...Override) LaunchRequest {
	o := overrides[0]
	return LaunchRequest{NodeClaim: name, InstanceType: o.InstanceType, Zone: o.Zone, CapacityType: o.CapacityType,
		PricePerHour: o.PricePerHour, Overrides: overrides}
}

// On-demand launches take the cheapest override with capacity, wherever
// it stands in the request and however little capacity its pool has left
// (lowest-price); a request's order breaks ties.
func TestMemoryOnDemandTakesTheLowestPrice(t *testing.T) {
	shallow := OfferingKey{InstanceType: "m5.large", Zone: "z1", CapacityType: "on-demand"}
	deep := OfferingKey{InstanceType: "c5.large", Zone: "z1", CapacityType: "on-demand"}
	dear := OfferingKey{InstanceType: "r5.large", Zone: "z2", CapacityType: "on-demand"}
	same := OfferingKey{InstanceType: "c5.large", Zone: "z2", CapacityType: "on-demand"}
	m, err := NewMemory(MemoryConfig{Capacity: map[OfferingKey]int{shallow: 1}})
	if err != nil {
		t.Fatal(err)
	}
	req := fleetRequest("a", override(dear, 0.12), override(deep, 0.09), override(shallow, 0.08), override(same, 0.09))
	var got []OfferingKey
	for _, name := range []string{"a", "b", "c"} {
		req.NodeClaim = name
		inst, err := m.Create(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, OfferingKey{InstanceType: inst.InstanceType, Zone: inst.Zone, CapacityType: inst.CapacityType})
		if name == "b" && !slices.Equal(inst.Unavailable, []OfferingKey{shallow}) {
			t.Errorf("second launch reports %v unavailable, want the cheaper pool it used up", inst.Unavailable)
		}
	}
	if want := []OfferingKey{shallow, deep, deep}; !slices.Equal(got, want) {
		t.Fatalf("launched %v, want %v: the cheapest with capacity, the earlier of two at one price", got, want)
	}
}

// Spot launches take the cheapest of the deepest pools
// (price-capacity-optimized): an unlimited pool before a cheaper limited
// one, and among limited pools one with at least half the free capacity
// of the deepest. A cheaper pool passed over for depth had capacity, so
// it is not reported unavailable.
func TestMemorySpotTakesPriceCapacityOptimized(t *testing.T) {
	cheap := OfferingKey{InstanceType: "m5.large", Zone: "z1", CapacityType: "spot"}
	deepest := OfferingKey{InstanceType: "m5.large", Zone: "z2", CapacityType: "spot"}
	deepish := OfferingKey{InstanceType: "c5.large", Zone: "z1", CapacityType: "spot"}
	open := OfferingKey{InstanceType: "r5.large", Zone: "z3", CapacityType: "spot"}
	launch := func(capacity map[OfferingKey]int, overrides ...Override) Instance {
		t.Helper()
		m, err := NewMemory(MemoryConfig{Capacity: capacity})
		if err != nil {
			t.Fatal(err)
		}
		inst, err := m.Create(context.Background(), fleetRequest("a", overrides...))
		if err != nil {
			t.Fatal(err)
		}
		return inst
	}
	limited := map[OfferingKey]int{cheap: 1, deepest: 10, deepish: 6}
	inst := launch(limited, override(cheap, 0.02), override(deepest, 0.04), override(deepish, 0.03))
	if inst.InstanceType != "c5.large" || len(inst.Unavailable) != 0 {
		t.Errorf("limited pools: launched %s in %s (unavailable %v), want c5.large: deep enough and cheaper than the deepest",
			inst.InstanceType, inst.Zone, inst.Unavailable)
	}
	inst = launch(limited, override(cheap, 0.02), override(deepest, 0.04), override(deepish, 0.03), override(open, 0.05))
	if inst.InstanceType != "r5.large" {
		t.Errorf("with an unlimited pool: launched %s, want r5.large, the only unlimited pool", inst.InstanceType)
	}
	// The same offerings on demand take the cheapest.
	od := func(k OfferingKey) OfferingKey { k.CapacityType = "on-demand"; return k }
	inst = launch(map[OfferingKey]int{od(cheap): 1, od(deepest): 10}, override(od(cheap), 0.02), override(od(deepest), 0.04), override(od(open), 0.05))
	if inst.InstanceType != "m5.large" || inst.Zone != "z1" {
		t.Errorf("on-demand: launched %s in %s, want the cheapest", inst.InstanceType, inst.Zone)
	}
}

// A seeded failure refuses the strategy's pick and the fleet picks again in
// the same call: one call, the refused offering reported unavailable.
func TestMemoryCapacityErrorFallsThroughInOneCall(t *testing.T) {
	a := OfferingKey{InstanceType: "m5.large", Zone: "z1", CapacityType: "on-demand"}
	b := OfferingKey{InstanceType: "m5.large", Zone: "z2", CapacityType: "on-demand"}
	m, err := NewMemory(MemoryConfig{FailureRate: 1, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	inst, err := m.Create(context.Background(), fleetRequest("a", override(b, 0.2), override(a, 0.1)))
	if err != nil {
		t.Fatal(err)
	}
	if inst.Zone != "z2" || !slices.Equal(inst.Unavailable, []OfferingKey{a}) || len(m.Calls()) != 1 {
		t.Fatalf("launched in %s, unavailable %v, %d calls: want z2 after a refused, in one call", inst.Zone, inst.Unavailable, len(m.Calls()))
	}
	_, err = m.Create(context.Background(), fleetRequest("b", override(a, 0.1)))
	if ice, ok := IsInsufficientCapacity(err); !ok || ice.Zone != "z1" {
		t.Fatalf("one override, refused: %v", err)
	}
}

// A fleet launches one capacity type: a request mixing them is an error
// naming both, and launches nothing.
func TestMemoryRefusesMixedCapacityTypes(t *testing.T) {
	m, err := NewMemory(MemoryConfig{})
	if err != nil {
		t.Fatal(err)
	}
	a := OfferingKey{InstanceType: "m5.large", Zone: "z1", CapacityType: "spot"}
	b := OfferingKey{InstanceType: "m5.large", Zone: "z1", CapacityType: "on-demand"}
	_, err = m.Create(context.Background(), fleetRequest("a", override(a, 0.03), override(b, 0.1)))
	if err == nil || !strings.Contains(err.Error(), "mix capacity types (spot and on-demand)") {
		t.Fatalf("error %v", err)
	}
	if len(m.Instances()) != 0 {
		t.Error("an instance launched")
	}
}

// Prioritized requests (prices from a NodeOverlay) rank the overrides by
// their own prices, not the prices the cloud bills: on demand the
// override with the lowest priority number launches, spot the deepest
// pools first and then by priority.
func TestMemoryPrioritizedFollowsTheOverridesPrices(t *testing.T) {
	m, err := NewMemory(MemoryConfig{Catalog: instancetypes.Fake(10)})
	if err != nil {
		t.Fatal(err)
	}
	cheap := OfferingKey{InstanceType: "fake-it-1", Zone: "test-zone-1", CapacityType: "on-demand"}
	dear := OfferingKey{InstanceType: "fake-it-5", Zone: "test-zone-1", CapacityType: "on-demand"}
	req := fleetRequest("a", override(cheap, 0.9), override(dear, 0.05))
	for _, c := range []struct {
		prioritized bool
		want        string
	}{{false, "fake-it-1"}, {true, "fake-it-5"}} {
		req.Prioritized = c.prioritized
		inst, err := m.Create(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if inst.InstanceType != c.want {
			t.Errorf("prioritized %v: launched %s, want %s", c.prioritized, inst.InstanceType, c.want)
		}
	}
	spot := func(k OfferingKey) OfferingKey { k.CapacityType = "spot"; return k }
	m, err = NewMemory(MemoryConfig{Catalog: instancetypes.Fake(10), Capacity: map[OfferingKey]int{spot(dear): 1}})
	if err != nil {
		t.Fatal(err)
	}
	req = fleetRequest("b", override(spot(cheap), 0.9), override(spot(dear), 0.05))
	req.Prioritized = true
	if inst, err := m.Create(context.Background(), req); err != nil || inst.InstanceType != "fake-it-1" {
		t.Errorf("capacity-optimized-prioritized: launched %+v, %v; want the unlimited pool before the prioritized shallow one", inst, err)
	}
}
