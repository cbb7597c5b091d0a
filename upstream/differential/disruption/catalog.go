package disruption

import (
	"bytes"
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/scheduling"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/internal/clusterdump"
)

// machine is one instance type of the harness's catalog, from which both
// Karpenter's cloudprovider.InstanceType and karpsim's JSON catalog entry
// are built, so that the two sides price and size it alike.
type machine struct {
	name      string
	cpu       int64 // cores
	memoryGiB int64
	pods      int64
}

// Zones are the zones every type is offered in, spot and on-demand.
var zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// spotZoneFactor makes spot prices differ by zone, as EC2's do, so that a
// replacement's zone is a price decision rather than a tie.
var spotZoneFactor = map[string]float64{"us-east-1a": 1.00, "us-east-1b": 0.94, "us-east-1c": 1.07}

// The overhead of every type: the kubelet's reservation and eviction
// threshold, so that allocatable is below capacity on both sides.
const (
	kubeReservedCPU    = "100m"
	kubeReservedMemory = "200Mi"
	evictionMemory     = "100Mi"
)

// machines are 15 types: 1 to 16 cores with 2, 4 or 8 GiB per core, named
// like "4c16g".
func machines() []machine {
	var out []machine
	for _, cpu := range []int64{1, 2, 4, 8, 16} {
		for _, perCore := range []int64{2, 4, 8} {
			mem := cpu * perCore
			out = append(out, machine{name: fmt.Sprintf("%dc%dg", cpu, mem), cpu: cpu, memoryGiB: mem, pods: 10 + 6*cpu})
		}
	}
	return out
}

// price is the on-demand price of a type in every zone, or its spot price
// in zone: a price per core and per GiB, spot at 40% with a zone factor.
// Prices are rounded to a hundredth of a cent so that JSON carries them
// exactly.
func (m machine) price(capacityType, zone string) float64 {
	p := 0.025*float64(m.cpu) + 0.005*float64(m.memoryGiB)
	if capacityType == karpv1.CapacityTypeSpot {
		p *= 0.4 * spotZoneFactor[zone]
	}
	return math.Round(p*10000) / 10000
}

func (m machine) capacity() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(m.cpu, resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse(fmt.Sprintf("%dGi", m.memoryGiB)),
		corev1.ResourcePods:   *resource.NewQuantity(m.pods, resource.DecimalSI),
	}
}

// allocatable is capacity less the overhead, as Karpenter computes it.
func (m machine) allocatable() corev1.ResourceList {
	out := m.capacity()
	cpu := out[corev1.ResourceCPU]
	cpu.Sub(resource.MustParse(kubeReservedCPU))
	out[corev1.ResourceCPU] = cpu
	mem := out[corev1.ResourceMemory]
	mem.Sub(resource.MustParse(kubeReservedMemory))
	mem.Sub(resource.MustParse(evictionMemory))
	out[corev1.ResourceMemory] = mem
	return out
}

// karpenterInstanceTypes are the machines as Karpenter's cloud provider
// returns them.
func karpenterInstanceTypes() []*cloudprovider.InstanceType {
	var out []*cloudprovider.InstanceType
	for _, m := range machines() {
		var offerings cloudprovider.Offerings
		for _, zone := range zones {
			for _, ct := range []string{karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand} {
				offerings = append(offerings, &cloudprovider.Offering{
					Available: true,
					Price:     m.price(ct, zone),
					Requirements: scheduling.NewLabelRequirements(map[string]string{
						karpv1.CapacityTypeLabelKey: ct,
						corev1.LabelTopologyZone:    zone,
					}),
				})
			}
		}
		out = append(out, &cloudprovider.InstanceType{
			Name: m.name,
			Requirements: scheduling.NewRequirements(
				scheduling.NewRequirement(corev1.LabelInstanceTypeStable, corev1.NodeSelectorOpIn, m.name),
				scheduling.NewRequirement(corev1.LabelArchStable, corev1.NodeSelectorOpIn, karpv1.ArchitectureAmd64),
				scheduling.NewRequirement(corev1.LabelOSStable, corev1.NodeSelectorOpIn, string(corev1.Linux)),
				scheduling.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...),
				scheduling.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand),
			),
			Offerings: offerings,
			Capacity:  m.capacity(),
			Overhead: &cloudprovider.InstanceTypeOverhead{
				KubeReserved: corev1.ResourceList{
					corev1.ResourceCPU:    resource.MustParse(kubeReservedCPU),
					corev1.ResourceMemory: resource.MustParse(kubeReservedMemory),
				},
				EvictionThreshold: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(evictionMemory)},
			},
		})
	}
	return out
}

// karpsimCatalogJSON is the machines in karpsim's JSON catalog format, what
// `karpsim disrupt --catalog` reads.
func karpsimCatalogJSON() ([]byte, error) {
	var out []clusterdump.CatalogEntry
	for _, m := range machines() {
		var offerings []clusterdump.CatalogOffering
		for _, zone := range zones {
			for _, ct := range []string{karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand} {
				offerings = append(offerings, clusterdump.CatalogOffering{Zone: zone, CapacityType: ct, Price: m.price(ct, zone), Available: true})
			}
		}
		out = append(out, clusterdump.CatalogEntry{
			Name: m.name,
			Labels: map[string]string{
				corev1.LabelInstanceTypeStable: m.name,
				corev1.LabelArchStable:         karpv1.ArchitectureAmd64,
				corev1.LabelOSStable:           string(corev1.Linux),
			},
			Capacity: quantityStrings(m.capacity()),
			Overhead: map[string]any{
				"kubeReserved":      map[string]string{"cpu": kubeReservedCPU, "memory": kubeReservedMemory},
				"systemReserved":    map[string]string{},
				"evictionThreshold": map[string]string{"memory": evictionMemory},
			},
			Allocatable: quantityStrings(m.allocatable()),
			Offerings:   offerings,
		})
	}
	return clusterdump.MarshalCatalog(out)
}

func quantityStrings(l corev1.ResourceList) map[string]string {
	out := map[string]string{}
	for k, v := range l {
		out[string(k)] = v.String()
	}
	return out
}

// karpsimCatalog reads the JSON catalog as the CLI's --catalog does.
func karpsimCatalog() (instancetypes.Catalog, error) {
	data, err := karpsimCatalogJSON()
	if err != nil {
		return nil, err
	}
	return instancetypes.ReadJSON(bytes.NewReader(data), "differential-catalog.json")
}
