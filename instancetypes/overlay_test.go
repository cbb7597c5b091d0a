package instancetypes

import (
	"math"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/stretchr/testify/require"
)

type overlayOpt func(*apis.NodeOverlay)

func overlay(name string, opts ...overlayOpt) *apis.NodeOverlay {
	o := &apis.NodeOverlay{ObjectMeta: metav1.ObjectMeta{Name: name}}
	for _, f := range opts {
		f(o)
	}
	return o
}

func adjust(s string) overlayOpt { return func(o *apis.NodeOverlay) { o.Spec.PriceAdjustment = &s } }
func price(s string) overlayOpt  { return func(o *apis.NodeOverlay) { o.Spec.Price = &s } }
func weight(w int32) overlayOpt  { return func(o *apis.NodeOverlay) { o.Spec.Weight = &w } }
func capacity(name, q string) overlayOpt {
	return func(o *apis.NodeOverlay) {
		if o.Spec.Capacity == nil {
			o.Spec.Capacity = corev1.ResourceList{}
		}
		o.Spec.Capacity[corev1.ResourceName(name)] = resource.MustParse(q)
	}
}
func selects(key string, op corev1.NodeSelectorOperator, values ...string) overlayOpt {
	return func(o *apis.NodeOverlay) {
		o.Spec.Requirements = append(o.Spec.Requirements, corev1.NodeSelectorRequirement{Key: key, Operator: op, Values: values})
	}
}

// offeringPrice is the price of the type's offering in zone and capacity type.
func offeringPrice(t *testing.T, c Catalog, name, zone, capacityType string) float64 {
	t.Helper()
	it, ok := c.Get(name)
	require.True(t, ok, name)
	for _, o := range it.Offerings {
		if o.Zone == zone && o.CapacityType == capacityType {
			return o.Price
		}
	}
	t.Fatalf("%s has no %s offering in %s", name, capacityType, zone)
	return 0
}

func TestApplyOverlaysPrice(t *testing.T) {
	base := Fake(3)
	p0 := offeringPrice(t, base, "fake-it-0", "test-zone-1", apis.CapacityTypeOnDemand)
	for _, tc := range []struct {
		name     string
		overlays []*apis.NodeOverlay
		want     float64 // fake-it-0 on-demand in test-zone-1
		wantSpot float64 // fake-it-0 spot in test-zone-1
	}{
		{"absolute adjustment on on-demand only", []*apis.NodeOverlay{overlay("a", adjust("+0.1"), selects(apis.LabelCapacityType, corev1.NodeSelectorOpIn, "on-demand"))}, p0 + 0.1, p0},
		{"percentage", []*apis.NodeOverlay{overlay("a", adjust("-10%"))}, p0 * 0.9, p0 * 0.9},
		{"override", []*apis.NodeOverlay{overlay("a", price("5"))}, 5, 5},
		{"never below zero", []*apis.NodeOverlay{overlay("a", adjust("-100"))}, 0, 0},
		{"heavier wins", []*apis.NodeOverlay{overlay("light", price("1")), overlay("heavy", price("2"), weight(10))}, 2, 2},
		{"equal weights: later name first", []*apis.NodeOverlay{overlay("b", price("2"), selects(apis.LabelCapacityType, corev1.NodeSelectorOpIn, "spot")), overlay("c", price("3"), selects(apis.LabelCapacityType, corev1.NodeSelectorOpIn, "on-demand"))}, 3, 2},
		{"zone selects offerings", []*apis.NodeOverlay{overlay("z", price("7"), selects(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-2"))}, p0, p0},
		{"unknown label selects nothing", []*apis.NodeOverlay{overlay("x", price("7"), selects("example.com/team", corev1.NodeSelectorOpIn, "a"))}, p0, p0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, conflicts := ApplyOverlays([]OverlayPool{{Name: "default", Types: base}}, tc.overlays)
			require.Empty(t, conflicts)
			require.InDelta(t, tc.want, offeringPrice(t, out[0], "fake-it-0", "test-zone-1", apis.CapacityTypeOnDemand), 1e-9)
			require.InDelta(t, tc.wantSpot, offeringPrice(t, out[0], "fake-it-0", "test-zone-1", apis.CapacityTypeSpot), 1e-9)
		})
	}
}

func TestApplyOverlaysSelectsPoolAndType(t *testing.T) {
	base := Fake(3)
	pools := []OverlayPool{{Name: "a", Types: base}, {Name: "b", Labels: map[string]string{"team": "x"}, Types: base}}
	out, _ := ApplyOverlays(pools, []*apis.NodeOverlay{
		overlay("pool", price("1"), selects(apis.LabelNodePool, corev1.NodeSelectorOpIn, "a")),
		overlay("team", price("2"), selects("team", corev1.NodeSelectorOpIn, "x"), selects(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "fake-it-1")),
	})
	require.Equal(t, 1.0, offeringPrice(t, out[0], "fake-it-1", "test-zone-1", "spot"))
	require.Equal(t, 2.0, offeringPrice(t, out[1], "fake-it-1", "test-zone-1", "spot"))
	require.Equal(t, base[0], out[1][0], "a type no overlay selects is shared")
}

func TestApplyOverlaysCapacity(t *testing.T) {
	base := Fake(2)
	out, conflicts := ApplyOverlays([]OverlayPool{{Name: "default", Types: base}}, []*apis.NodeOverlay{
		overlay("base", capacity("example.com/device", "1"), capacity("hugepages-2Mi", "100Mi")),
		overlay("big", weight(5), capacity("example.com/device", "4"), selects(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "fake-it-1")),
	})
	require.Empty(t, conflicts)
	small, _ := out[0].Get("fake-it-0")
	large, _ := out[0].Get("fake-it-1")
	require.Equal(t, int64(1), small.Allocatable().Get("example.com/device"))
	require.Equal(t, int64(4), large.Allocatable().Get("example.com/device"))
	require.Equal(t, int64(100<<20), large.Capacity.Get("hugepages-2Mi"))
	require.Equal(t, []string{"base", "big"}, large.Overlay.CapacityFrom)
	require.Equal(t, base[0].Allocatable().CPU(), small.Allocatable().CPU())
	require.Zero(t, base[0].Capacity.Get("example.com/device"), "the input catalog is not changed")
}

func TestApplyOverlaysConflicts(t *testing.T) {
	base := Fake(2)
	pools := []OverlayPool{{Name: "default", Types: base}}
	t.Run("equal weights on one offering", func(t *testing.T) {
		out, conflicts := ApplyOverlays(pools, []*apis.NodeOverlay{overlay("a", price("1"), weight(3)), overlay("b", price("2"), weight(3))})
		require.Len(t, conflicts, 1)
		require.Equal(t, "a", conflicts[0].Overlay)
		require.Equal(t, "b", conflicts[0].With)
		require.Equal(t, 2.0, offeringPrice(t, out[0], "fake-it-0", "test-zone-1", "spot"))
	})
	t.Run("a conflicting overlay applies nowhere", func(t *testing.T) {
		out, conflicts := ApplyOverlays(pools, []*apis.NodeOverlay{
			overlay("b", capacity("example.com/x", "1"), selects(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "fake-it-0")),
			overlay("a", capacity("example.com/x", "2")),
		})
		require.Len(t, conflicts, 1)
		it, _ := out[0].Get("fake-it-1")
		require.Zero(t, it.Capacity.Get("example.com/x"))
	})
	t.Run("different fields do not conflict", func(t *testing.T) {
		_, conflicts := ApplyOverlays(pools, []*apis.NodeOverlay{overlay("a", price("1")), overlay("b", capacity("example.com/x", "1"))})
		require.Empty(t, conflicts)
	})
}

func TestApplyOverlaysDoesNotChangeInput(t *testing.T) {
	base := Fake(3)
	before := make([]InstanceType, len(base))
	for i, it := range base {
		before[i] = *it
	}
	overlays := []*apis.NodeOverlay{overlay("b", adjust("+1")), overlay("a", price("2"), weight(4))}
	_, _ = ApplyOverlays([]OverlayPool{{Name: "p", Types: base}}, overlays)
	for i, it := range base {
		require.True(t, reflect.DeepEqual(before[i], *it))
	}
	require.Equal(t, "b", overlays[0].Name, "the overlays keep their order")
}

func TestAdjustPrice(t *testing.T) {
	for change, want := range map[string]float64{"": 1, "+0.5": 1.5, "-0.25": 0.75, "+10%": 1.1, "-100%": 0, "3": 3, "-5": 0} {
		require.True(t, math.Abs(apis.AdjustPrice(1, change)-want) < 1e-9, change)
	}
}
