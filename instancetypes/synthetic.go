package instancetypes

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
)

// Labels of the synthetic catalogs. Karpenter registers them as well-known
// when these catalogs are in use; apis.WellKnownLabels does not list them.
const (
	// FakeLabelSize is "small", or "large" for types above 4 CPUs and 8Gi.
	FakeLabelSize = "size"
	// FakeLabelSpecial is "optional" on large types and absent on the others.
	FakeLabelSpecial = "special"
	// FakeLabelInteger is the CPU count.
	FakeLabelInteger = "integer"

	KWOKLabelInstanceSize   = "karpenter.kwok.sh/instance-size"
	KWOKLabelInstanceFamily = "karpenter.kwok.sh/instance-family"
	KWOKLabelInstanceCPU    = "karpenter.kwok.sh/instance-cpu"
	KWOKLabelInstanceMemory = "karpenter.kwok.sh/instance-memory"
)

// syntheticOverhead is the kube-reserved both synthetic catalogs give every
// type: 100m of CPU and 10Mi of memory.
var syntheticOverhead = Overhead{KubeReserved: resources.New(100, 10*mib, 0)}

// Fake returns n types like Karpenter's fake.InstanceTypes(n), the catalog
// of its scheduling benchmark: type k = 1…n is "fake-it-<k−1>" with k CPUs,
// 2k Gi of memory and 10k pods, amd64, labelled size, special and integer;
// it is sold as spot in test-zone-1 and -2 and on-demand in test-zone-1, -2
// and -3, all available, at 0.1 per CPU plus 0.1 per 10⁹ bytes of memory.
//
// Upstream's fake types allow every OS (darwin, linux and windows); labels
// here have one value each, so these are linux. Only pods that select
// windows or darwin can tell.
func Fake(n int) Catalog {
	types := make([]*InstanceType, 0, max(n, 0))
	for k := 1; k <= n; k++ {
		types = append(types, fakeType(k))
	}
	c, err := NewCatalog(types...)
	if err != nil {
		panic(fmt.Sprintf("instancetypes: Fake(%d): %v", n, err)) // names are unique by construction
	}
	return c
}

func fakeType(k int) *InstanceType {
	cpu, memory := int64(k), int64(2*k)*gib
	price := fakePrice(cpu, memory)
	labels := map[string]string{
		apis.LabelArch:   apis.ArchitectureAmd64,
		apis.LabelOS:     string(corev1.Linux),
		FakeLabelInteger: strconv.FormatInt(cpu, 10),
		FakeLabelSize:    "small",
	}
	var absent []string
	if cpu > 4 && memory > 8*gib {
		labels[FakeLabelSize], labels[FakeLabelSpecial] = "large", "optional"
	} else {
		absent = []string{FakeLabelSpecial}
	}
	var offerings []Offering
	for _, o := range []struct{ zone, capacityType string }{
		{"test-zone-1", apis.CapacityTypeSpot}, {"test-zone-2", apis.CapacityTypeSpot},
		{"test-zone-1", apis.CapacityTypeOnDemand}, {"test-zone-2", apis.CapacityTypeOnDemand},
		{"test-zone-3", apis.CapacityTypeOnDemand},
	} {
		offerings = append(offerings, Offering{Zone: o.zone, CapacityType: o.capacityType, Price: price, Available: true})
	}
	return mustInstanceType(Spec{
		Name:         fmt.Sprintf("fake-it-%d", k-1),
		Labels:       labels,
		AbsentLabels: absent,
		Capacity:     resources.New(cpu*1000, memory, int64(10*k)),
		Overhead:     syntheticOverhead,
		Offerings:    offerings,
	})
}

// fakePrice is upstream's fake.PriceFromResources, term for term, so that
// floating-point rounding agrees; the float64 conversions keep the compiler
// from fusing a multiply and an add, which would round differently.
func fakePrice(cpu, memoryBytes int64) float64 {
	return float64(0.1*float64(cpu)) + float64(0.1*float64(memoryBytes)/1e9)
}

// kwokZones are the zones of the kwok provider's generated types.
var kwokZones = []string{"test-zone-a", "test-zone-b", "test-zone-c", "test-zone-d"}

// KWOK returns the 144 types the kwok provider generates (its
// tools/gen_instance_types.go): for CPUs 1…256 and memory 2, 4 or 8 Gi per
// CPU (families c, s and m), linux and windows, amd64 and arm64, a type
// "<family>-<cpu>x-<arch>-<os>" with pods 16 per CPU up to 1024 and 20Gi of
// ephemeral storage, sold as spot and on-demand in four zones, all
// available, on-demand at 0.025 per CPU plus 0.001 per 10⁹ bytes of memory
// and spot at 70% of that.
func KWOK() Catalog {
	var types []*InstanceType
	for _, cpu := range []int64{1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256} {
		for _, family := range []struct {
			name      string
			memFactor int64
		}{{"c", 2}, {"s", 4}, {"m", 8}} {
			for _, os := range []corev1.OSName{corev1.Linux, corev1.Windows} {
				for _, arch := range []string{apis.ArchitectureAmd64, apis.ArchitectureArm64} {
					types = append(types, kwokType(family.name, cpu, family.memFactor, arch, string(os)))
				}
			}
		}
	}
	c, err := NewCatalog(types...)
	if err != nil {
		panic(fmt.Sprintf("instancetypes: KWOK: %v", err)) // names are unique by construction
	}
	return c
}

func kwokType(family string, cpu, memFactor int64, arch, os string) *InstanceType {
	name := fmt.Sprintf("%s-%dx-%s-%s", family, cpu, arch, os)
	memory := resource.MustParse(fmt.Sprintf("%dGi", cpu*memFactor))
	onDemand := float64(0.025*float64(cpu)) + float64(0.001*memory.AsApproximateFloat64()/1e9)
	var offerings []Offering
	for _, zone := range kwokZones {
		offerings = append(offerings,
			Offering{Zone: zone, CapacityType: apis.CapacityTypeSpot, Price: onDemand * .7, Available: true},
			Offering{Zone: zone, CapacityType: apis.CapacityTypeOnDemand, Price: onDemand, Available: true})
	}
	cpuText := strconv.FormatInt(cpu, 10)
	return mustInstanceType(Spec{
		Name: name,
		Labels: map[string]string{
			apis.LabelArch: arch,
			apis.LabelOS:   os,
			// The generated names do not look like AWS names, so the kwok
			// provider's size is the CPU count and its family the name's
			// first part.
			KWOKLabelInstanceSize:   cpuText,
			KWOKLabelInstanceFamily: strings.SplitN(name, "-", 2)[0],
			KWOKLabelInstanceCPU:    cpuText,
			KWOKLabelInstanceMemory: memory.String(),
		},
		Capacity: resources.New(cpu*1000, memory.Value(), min(cpu*16, 1024)).
			With(corev1.ResourceEphemeralStorage, 20*gib),
		Overhead:  syntheticOverhead,
		Offerings: offerings,
	})
}

// mustInstanceType builds a type from a spec written in this package.
func mustInstanceType(spec Spec) *InstanceType {
	it, err := NewInstanceType(spec)
	if err != nil {
		panic(fmt.Sprintf("instancetypes: %v", err))
	}
	return it
}
