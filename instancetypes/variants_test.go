package instancetypes

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/resources"
)

func TestVariants(t *testing.T) {
	spec := testSpec()
	if it := mustBuild(t, spec); len(it.Variants()) != 1 || it.Variants()[0] != it {
		t.Fatalf("a type without overrides is its only variant: %v", it.Variants())
	}
	slots := resources.Vector{}.With(corev1.ResourceName("example.com/slots"), 4)
	moreMemory := &OfferingOverride{Capacity: resources.New(0, 8*gib, 0).Add(slots), Overhead: &Overhead{SystemReserved: resources.New(0, gib, 0)}}
	onlySlots := &OfferingOverride{Capacity: slots}
	spec.Offerings = append(spec.Offerings,
		Offering{Zone: "z1", CapacityType: "spot", Price: 0.6, Available: true, Override: moreMemory},
		Offering{Zone: "z2", CapacityType: "spot", Price: 0.6, Available: false, Override: moreMemory},
		Offering{Zone: "z1", CapacityType: "on-demand", Price: 1.2, Available: true, Override: onlySlots},
	)
	it := mustBuild(t, spec)
	got := it.Variants()
	if len(got) != 3 {
		t.Fatalf("want the base and two overrides, got %d variants", len(got))
	}
	base, ondemand, spot := got[0], got[1], got[2]
	if len(base.Offerings) != 5 || base.Allocatable().String() != it.Allocatable().String() {
		t.Errorf("base variant: %d offerings, allocatable %s; want 5 and %s", len(base.Offerings), base.Allocatable(), it.Allocatable())
	}
	// Offerings sort by zone and capacity type: z1 on-demand's override
	// comes before z1 spot's.
	if len(ondemand.Offerings) != 1 || ondemand.Allocatable().Get("example.com/slots") != 4 || ondemand.Allocatable().Memory() != it.Allocatable().Memory() {
		t.Errorf("slots variant: %d offerings, allocatable %s", len(ondemand.Offerings), ondemand.Allocatable())
	}
	// 8Gi replaces the 4Gi capacity; 1Gi replaces the 200Mi of memory
	// overhead, the CPU overhead stays.
	if want := resources.New(1850, 7*gib, 10).Add(slots); len(spot.Offerings) != 2 || spot.Allocatable().String() != want.String() {
		t.Errorf("memory variant: %d offerings, allocatable %s, want 2 and %s", len(spot.Offerings), spot.Allocatable(), want)
	}
	if it.Allocatable().Get("example.com/slots") != 0 || len(it.Offerings) != 8 {
		t.Errorf("Variants changed the type: %s, %d offerings", it.Allocatable(), len(it.Offerings))
	}
	for _, v := range got {
		if v.Name != it.Name {
			t.Errorf("variant named %q", v.Name)
		}
	}
}

func TestOfferingOverrideChecked(t *testing.T) {
	spec := testSpec()
	spec.Offerings = append(spec.Offerings, Offering{Zone: "z1", CapacityType: "spot", Price: 0.6, Available: true,
		Override: &OfferingOverride{Capacity: resources.New(-1, 0, 0)}})
	if _, err := NewInstanceType(spec); err == nil {
		t.Fatal("a negative override was accepted")
	}
	spec = testSpec()
	spec.Offerings = append(spec.Offerings, spec.Offerings[0])
	if _, err := NewInstanceType(spec); err == nil {
		t.Fatal("two offerings with the same zone, capacity type and overrides were accepted")
	}
}

func mustBuild(t *testing.T, spec Spec) *InstanceType {
	t.Helper()
	it, err := NewInstanceType(spec)
	if err != nil {
		t.Fatal(err)
	}
	return it
}
