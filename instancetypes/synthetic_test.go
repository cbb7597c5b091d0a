package instancetypes

import (
	"fmt"
	"math"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
)

type syntheticCase struct {
	name              string
	cpu, memory, pods string
	ephemeral         string
	allocCPU          string
	allocMemory       string
	labels            map[string]string
	absent            []string
	onDemand, spot    float64
	offerings         int
}

// Values derived by hand from upstream's fake.InstanceTypes: type k has k
// CPUs, 2k Gi, 10k pods, kube-reserved 100m and 10Mi, and costs
// 0.1·k + 0.1·2k·2³⁰/10⁹ in every offering.
func TestFake(t *testing.T) {
	c := Fake(400)
	if len(c) != 400 {
		t.Fatalf("Fake(400) has %d types", len(c))
	}
	for _, tc := range []syntheticCase{
		{name: "fake-it-0", cpu: "1", memory: "2Gi", pods: "10", allocCPU: "900m", allocMemory: "2038Mi",
			labels: map[string]string{"size": "small", "integer": "1", apis.LabelArch: "amd64", apis.LabelOS: "linux"},
			absent: []string{"special"}, onDemand: 0.3147483648, spot: 0.3147483648, offerings: 5},
		{name: "fake-it-3", cpu: "4", memory: "8Gi", pods: "40", allocCPU: "3900m", allocMemory: "8182Mi",
			labels: map[string]string{"size": "small", "integer": "4"},
			absent: []string{"special"}, onDemand: 1.2589934592, spot: 1.2589934592, offerings: 5},
		{name: "fake-it-4", cpu: "5", memory: "10Gi", pods: "50", allocCPU: "4900m", allocMemory: "10230Mi",
			labels:   map[string]string{"size": "large", "special": "optional", "integer": "5"},
			onDemand: 1.573741824, spot: 1.573741824, offerings: 5},
		{name: "fake-it-399", cpu: "400", memory: "800Gi", pods: "4k", allocCPU: "399900m", allocMemory: "819190Mi",
			labels:   map[string]string{"size": "large", "special": "optional", "integer": "400"},
			onDemand: 125.89934592, spot: 125.89934592, offerings: 5},
	} {
		checkSynthetic(t, c, tc)
	}
	it := mustGet(t, c, "fake-it-0")
	if got := fmt.Sprint(it.Requirements.Get(apis.LabelTopologyZone).Values(), it.Requirements.Get(apis.LabelCapacityType).Values()); got != "[test-zone-1 test-zone-2 test-zone-3] [on-demand spot]" {
		t.Errorf("fake-it-0 zones and capacity types %s", got)
	}
	spot3 := requirementsOf(apis.LabelTopologyZone, "test-zone-3")
	if o, ok := it.CheapestOffering(spot3); !ok || o.CapacityType != apis.CapacityTypeOnDemand {
		t.Errorf("test-zone-3 sells on-demand only, got %+v", o)
	}
	if len(Fake(0)) != 0 || len(Fake(-1)) != 0 {
		t.Error("Fake of no types is not empty")
	}
}

// Values derived by hand from the kwok provider's generator: memory 2, 4 or
// 8 Gi per CPU, pods 16 per CPU up to 1024, 20Gi of ephemeral storage,
// on-demand 0.025·cpu + 0.001·bytes/10⁹ and spot 70% of it, in four zones.
func TestKWOK(t *testing.T) {
	c := KWOK()
	if len(c) != 144 {
		t.Fatalf("KWOK() has %d types, want 144", len(c))
	}
	for _, tc := range []syntheticCase{
		{name: "c-1x-amd64-linux", cpu: "1", memory: "2Gi", pods: "16", ephemeral: "20Gi", allocCPU: "900m", allocMemory: "2038Mi",
			labels: map[string]string{KWOKLabelInstanceSize: "1", KWOKLabelInstanceFamily: "c", KWOKLabelInstanceCPU: "1",
				KWOKLabelInstanceMemory: "2Gi", apis.LabelArch: "amd64", apis.LabelOS: "linux"},
			onDemand: 0.027147483648, spot: 0.0190032385536, offerings: 8},
		{name: "s-48x-amd64-linux", cpu: "48", memory: "192Gi", pods: "768", ephemeral: "20Gi", allocCPU: "47900m", allocMemory: "196598Mi",
			labels:   map[string]string{KWOKLabelInstanceSize: "48", KWOKLabelInstanceFamily: "s", KWOKLabelInstanceMemory: "192Gi"},
			onDemand: 1.406158430208, spot: 0.9843109011456, offerings: 8},
		{name: "m-192x-arm64-windows", cpu: "192", memory: "1536Gi", pods: "1024", ephemeral: "20Gi", allocCPU: "191900m", allocMemory: "1572854Mi",
			labels:   map[string]string{KWOKLabelInstanceMemory: "1536Gi", apis.LabelArch: "arm64", apis.LabelOS: "windows"},
			onDemand: 6.449267441664, spot: 4.5144872091648, offerings: 8},
		// 2048Gi prints as 2Ti, as resource.Quantity does upstream.
		{name: "m-256x-arm64-windows", cpu: "256", memory: "2Ti", pods: "1024", ephemeral: "20Gi", allocCPU: "255900m", allocMemory: "2097142Mi",
			labels:   map[string]string{KWOKLabelInstanceSize: "256", KWOKLabelInstanceFamily: "m", KWOKLabelInstanceMemory: "2Ti"},
			onDemand: 8.599023255552, spot: 6.0193162788864, offerings: 8},
	} {
		checkSynthetic(t, c, tc)
	}
}

func checkSynthetic(t *testing.T, c Catalog, tc syntheticCase) {
	t.Helper()
	it := mustGet(t, c, tc.name)
	for name, want := range map[corev1.ResourceName]string{
		corev1.ResourceCPU: tc.cpu, corev1.ResourceMemory: tc.memory, corev1.ResourcePods: tc.pods, corev1.ResourceEphemeralStorage: tc.ephemeral,
	} {
		if got := quantityString(it.Capacity, name); got != want && (want != "" || got != "0") {
			t.Errorf("%s capacity %s = %s, want %s", tc.name, name, got, want)
		}
	}
	alloc := it.Allocatable()
	if got := quantityString(alloc, corev1.ResourceCPU); got != tc.allocCPU {
		t.Errorf("%s allocatable cpu = %s, want %s", tc.name, got, tc.allocCPU)
	}
	if got := quantityString(alloc, corev1.ResourceMemory); got != tc.allocMemory {
		t.Errorf("%s allocatable memory = %s, want %s", tc.name, got, tc.allocMemory)
	}
	labels := it.Labels()
	for key, want := range tc.labels {
		if labels[key] != want {
			t.Errorf("%s label %s = %q, want %q", tc.name, key, labels[key], want)
		}
	}
	for _, key := range tc.absent {
		if op := it.Requirements.Get(key).Operator(); op != corev1.NodeSelectorOpDoesNotExist {
			t.Errorf("%s requirement on %s is %s, want DoesNotExist", tc.name, key, it.Requirements.Get(key))
		}
	}
	if len(it.Offerings) != tc.offerings {
		t.Errorf("%s has %d offerings, want %d", tc.name, len(it.Offerings), tc.offerings)
	}
	for _, o := range it.Offerings {
		want := tc.onDemand
		if o.CapacityType == apis.CapacityTypeSpot {
			want = tc.spot
		}
		if !o.Available || math.Abs(o.Price-want) > 1e-9*want {
			t.Errorf("%s offering %+v, want price %v and available", tc.name, o, want)
		}
	}
}

func quantityString(v resources.Vector, name corev1.ResourceName) string {
	q := v.Quantity(name)
	return q.String()
}
