package instancetypes

import (
	"math"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
)

// resourcePrivateIPv4Address is the extended resource the VPC resource
// controller gives Windows nodes: one per secondary IPv4 address.
const resourcePrivateIPv4Address corev1.ResourceName = "vpc.amazonaws.com/PrivateIPv4Address"

// tenancies are the tenancies every EC2 type launches with, default first:
// the provider launches dedicated only when a NodeClaim rules default out.
var tenancies = map[string][]string{apis.LabelInstanceTenancy: {apis.TenancyDefault, apis.TenancyDedicated}}

// instanceType models one EC2 type. The order of the stages mirrors the AWS
// provider's NewInstanceType: capacity first, then each part of the
// overhead from the capacity's pieces, then labels and offerings.
func (c *awsConfig) instanceType(f EC2Facts) (*InstanceType, error) {
	k, err := c.kubeletFor(f)
	if err != nil {
		return nil, err
	}
	memory, storage := c.memory(f), c.ephemeralStorage(f)
	labels := c.labels(f)
	capacity := resources.New(f.VCPU*1000, memory, c.pods(f, k)).
		With(corev1.ResourceEphemeralStorage, storage).
		Add(accelerators(f))
	if f.BranchInterfaces > 0 {
		capacity = capacity.With(apis.ResourceAWSPodENI, f.BranchInterfaces)
	}
	if efas := c.efas(f); efas > 0 {
		capacity = capacity.With(apis.ResourceEFA, efas)
	}
	// The VPC resource controller advertises one address per secondary
	// IPv4 address of an interface, for the types its limits table lists.
	if labels[apis.LabelOS] == string(corev1.Windows) && f.InVPCLimits {
		capacity = capacity.With(resourcePrivateIPv4Address, f.IPv4PerENI-1)
	}
	if learned, ok := c.learned.Memory(c.nodeClass, f.InstanceType); ok {
		capacity = capacity.With(corev1.ResourceMemory, learned)
	}
	return NewInstanceType(Spec{
		Name:         f.InstanceType,
		Labels:       labels,
		LabelChoices: tenancies,
		Capacity:     capacity,
		Overhead: Overhead{
			KubeReserved:      c.kubeReservedFor(f, k),
			SystemReserved:    k.systemReserved,
			EvictionThreshold: c.evictionThreshold(memory, storage),
		},
		Offerings: c.offerings(f),
	})
}

// memory is the memory capacity in bytes: the type's memory less 64 MiB on
// arm64 (Graviton's CMA reservation), less the VM overhead rounded up to
// whole MiB. The float expression is upstream's, so that rounding agrees.
func (c *awsConfig) memory(f EC2Facts) int64 {
	sizeMiB := f.MemoryMiB
	if f.Architecture == apis.ArchitectureArm64 {
		sizeMiB -= 64
	}
	overheadMiB := int64(math.Ceil(float64(sizeMiB*mib) * c.vmMemoryOverhead / 1024 / 1024))
	return (sizeMiB - overheadMiB) * mib
}

// pods is the pod capacity: kubelet maxPods if set, else the ENI limit for
// the families that use it and 110 for the others; then podsPerCore × vCPUs
// caps it where the family honors podsPerCore. There is no 110 cap on Linux.
func (c *awsConfig) pods(f EC2Facts, k typeKubelet) int64 {
	var count int64
	switch {
	case k.maxPods != nil:
		count = int64(*k.maxPods)
	case c.family.eniLimitedPods:
		count = eniLimitedPods(f, c.reservedENIs+c.efaOnlyOnDefaultCard())
	default:
		count = 110
	}
	if c.podsPerCore != nil && *c.podsPerCore > 0 && c.family.podsPerCore {
		count = min(count, int64(*c.podsPerCore)*f.VCPU)
	}
	return count
}

// eniLimitedPods is the VPC CNI's limit: usable ENIs × (IPv4 per ENI − 1)
// + 2, where usable ENIs are those of the default card less the reserved
// ones (RESERVED_ENIS, and the EC2NodeClass's EFA-only interfaces on card
// 0, which carry no IP addresses); 0 when none is usable.
func eniLimitedPods(f EC2Facts, reservedENIs int64) int64 {
	usable := max(f.MaxENIs-reservedENIs, 0)
	if usable == 0 {
		return 0
	}
	return usable*(f.IPv4PerENI-1) + 2
}

// kubeReservedBands are the shares of CPU kube-reserved takes, per band of
// millicores, as in Bottlerocket and the EKS AMIs.
var kubeReservedBands = []struct {
	start, end int64
	share      float64
}{
	{0, 1000, 0.06},
	{1000, 2000, 0.01},
	{2000, 4000, 0.005},
	{4000, 1 << 31, 0.0025},
}

// kubeReservedCPU is the CPU kube-reserved takes from cpuMilli millicores:
// each band's share, truncated to whole millicores separately.
func kubeReservedCPU(cpuMilli int64) int64 {
	var total int64
	for _, band := range kubeReservedBands {
		if cpuMilli < band.start {
			continue
		}
		span := float64(band.end - band.start)
		if cpuMilli < band.end {
			span = float64(cpuMilli - band.start)
		}
		total += int64(span * band.share)
	}
	return total
}

// kubeReservedFor is kube-reserved: CPU by bands, 11 MiB per pod + 255 MiB
// of memory and 1 GiB of ephemeral storage, each replaced by the kubelet
// kubeReserved setting when it names the resource. The pod count is the
// ENI-limited one (without reserved ENIs) for the families that say so,
// whatever maxPods is, and the pod capacity for the others.
func (c *awsConfig) kubeReservedFor(f EC2Facts, k typeKubelet) resources.Vector {
	pods := c.pods(f, k)
	if c.family.eniLimitedMemoryOverhead {
		pods = eniLimitedPods(f, c.efaOnlyOnDefaultCard())
	}
	v := resources.New(kubeReservedCPU(f.VCPU*1000), (11*pods+255)*mib, 0).
		With(corev1.ResourceEphemeralStorage, 1*gib)
	for _, o := range k.kubeReserved {
		v = v.With(o.name, o.value)
	}
	return v
}

// evictionThreshold is the hard eviction threshold: 100 MiB of memory and
// 10% of the ephemeral storage (rounded up), each replaced by the kubelet
// evictionHard setting for memory.available or nodefs.available. Soft
// thresholds do not count: Karpenter stopped reserving them (aws provider
// issue #8407), since the kubelet does not take them out of allocatable.
func (c *awsConfig) evictionThreshold(memory, storage int64) resources.Vector {
	memoryThreshold := int64(100 * mib)
	storageThreshold := int64(math.Ceil(float64(storage) / 100 * 10))
	if c.evictionMemory != nil {
		memoryThreshold = c.evictionMemory.amount(memory)
	}
	if c.evictionNodeFS != nil {
		storageThreshold = c.evictionNodeFS.amount(storage)
	}
	return resources.New(0, memoryThreshold, 0).With(corev1.ResourceEphemeralStorage, storageThreshold)
}

// ephemeralStorage is the size of kubelet's volume in bytes: the local NVMe
// disks with instanceStorePolicy RAID0, else the block device mapping marked
// rootVolume, else (Custom) the last mapping or (other families) the mapping
// of the family's device, else the family's default volume.
func (c *awsConfig) ephemeralStorage(f EC2Facts) int64 {
	if c.raid0 && f.LocalNVMeGB > 0 {
		return f.LocalNVMeGB * 1000 * 1000 * 1000
	}
	if len(c.blockDevices) == 0 {
		return c.family.ephemeralBytes
	}
	for _, bdm := range c.blockDevices {
		if bdm != nil && bdm.RootVolume {
			if size, ok := volumeSize(bdm); ok {
				return size
			}
			break
		}
	}
	if c.family.name == apis.AMIFamilyCustom {
		if size, ok := volumeSize(c.blockDevices[len(c.blockDevices)-1]); ok {
			return size
		}
		return defaultEBSBytes
	}
	for _, bdm := range c.blockDevices {
		if bdm != nil && bdm.DeviceName != nil && *bdm.DeviceName == c.family.ephemeralDevice {
			if size, ok := volumeSize(bdm); ok {
				return size
			}
			break
		}
	}
	return c.family.ephemeralBytes
}

func volumeSize(bdm *apis.BlockDeviceMapping) (int64, bool) {
	if bdm == nil || bdm.EBS == nil || bdm.EBS.VolumeSize == nil {
		return 0, false
	}
	return bdm.EBS.VolumeSize.Value(), true
}

// neuronCoresPerDevice are the NeuronCores of each AWS accelerator, which
// the Neuron device plugin exposes as aws.amazon.com/neuroncore.
var neuronCoresPerDevice = map[string]int64{
	"inferentia":  4,
	"inferentia2": 2,
	"trainium":    2,
	"trainium2":   8,
}

// acceleratorManufacturers name the maker of each accelerator, which the
// facts do not record; AWS's own are Neuron devices.
var acceleratorManufacturers = map[string]string{
	"inferentia":     "aws",
	"inferentia2":    "aws",
	"trainium":       "aws",
	"trainium2":      "aws",
	"qualcomm-ai100": "qualcomm",
}

// accelerators are the extended resources of GPUs and Neuron devices.
func accelerators(f EC2Facts) resources.Vector {
	var v resources.Vector
	switch f.GPUManufacturer {
	case "nvidia":
		v = v.With(apis.ResourceNVIDIAGPU, f.GPUCount)
	case "amd":
		v = v.With(apis.ResourceAMDGPU, f.GPUCount)
	case "habana":
		v = v.With(apis.ResourceHabanaGaudi, f.GPUCount)
	}
	if cores, ok := neuronCoresPerDevice[f.AcceleratorName]; ok {
		v = v.With(apis.ResourceAWSNeuron, f.AcceleratorCount).
			With(apis.ResourceAWSNeuronCore, f.AcceleratorCount*cores)
	}
	return v
}

// instanceTypeScheme splits a type name into category, an optional
// "-<n>tb" memory part, and generation: "u-6tb1.metal" is u, 1.
var instanceTypeScheme = regexp.MustCompile(`(^[a-z]+)(\-[0-9]+tb)?([0-9]+).*\.`)

// labels are the labels the AWS provider gives the type; the well-known
// ones it leaves out become DoesNotExist in buildRequirements.
func (c *awsConfig) labels(f EC2Facts) map[string]string {
	labels := map[string]string{
		apis.LabelArch:                                 f.Architecture,
		apis.LabelTopologyRegion:                       c.region,
		apis.LabelInstanceCPU:                          strconv.FormatInt(f.VCPU, 10),
		apis.LabelInstanceMemory:                       strconv.FormatInt(f.MemoryMiB, 10),
		apis.LabelInstanceHypervisor:                   f.Hypervisor,
		apis.LabelInstanceEncryptionInTransitSupported: strconv.FormatBool(f.EncryptionInTransit),
	}
	switch {
	case !c.family.isWindows():
		labels[apis.LabelOS] = string(corev1.Linux)
	case f.Architecture == apis.ArchitectureAmd64:
		labels[apis.LabelOS] = string(corev1.Windows)
	}
	if c.family.isWindows() {
		labels[apis.LabelWindowsBuild] = c.family.windowsBuild
	}
	// A class that selects its placement group by ID gives every type that
	// group's ID, as the provider v1.15.0 does once it resolved the group.
	// Selected by name, the ID is EC2's to resolve: karpsim leaves the
	// label undefined, as it does the partition (its count is EC2's too).
	if pg := c.nodeClass.Spec.PlacementGroupSelector; pg != nil && pg.ID != nil {
		labels[apis.LabelPlacementGroupID] = *pg.ID
	}
	if parts := instanceTypeScheme.FindStringSubmatch(f.InstanceType); len(parts) == 4 {
		labels[apis.LabelInstanceCategory] = parts[1]
		labels[apis.LabelInstanceGeneration] = parts[3]
	}
	if family, size, ok := strings.Cut(f.InstanceType, "."); ok && !strings.Contains(size, ".") {
		labels[apis.LabelInstanceFamily] = family
		labels[apis.LabelInstanceSize] = size
	}
	// Flex types (m7i-flex, c7i-flex) trade sustained performance for
	// price; the AWS provider labels them since v1.7.0.
	family, _, _ := strings.Cut(f.InstanceType, ".")
	labels[apis.LabelInstanceCapabilityFlex] = strconv.FormatBool(strings.Contains(family, "-flex"))
	setPositive(labels, apis.LabelInstanceLocalNVME, f.LocalNVMeGB)
	setPositive(labels, apis.LabelInstanceNetworkBandwidth, f.NetworkBandwidthMbps)
	setPositive(labels, apis.LabelInstanceEBSBandwidth, f.EBSBandwidthMbps)
	setPositive(labels, apis.LabelInstanceCPUSustainedClockSpeedMhz, f.SustainedClockSpeedMhz)
	if f.CPUManufacturer != "" {
		labels[apis.LabelInstanceCPUManufacturer] = f.CPUManufacturer
	}
	if f.GPUName != "" {
		labels[apis.LabelInstanceGPUName] = f.GPUName
		labels[apis.LabelInstanceGPUManufacturer] = f.GPUManufacturer
		labels[apis.LabelInstanceGPUCount] = strconv.FormatInt(f.GPUCount, 10)
		labels[apis.LabelInstanceGPUMemory] = strconv.FormatInt(f.GPUMemoryMiB, 10)
	}
	if f.AcceleratorName != "" {
		labels[apis.LabelInstanceAcceleratorName] = f.AcceleratorName
		labels[apis.LabelInstanceAcceleratorCount] = strconv.FormatInt(f.AcceleratorCount, 10)
		if maker, ok := acceleratorManufacturers[f.AcceleratorName]; ok {
			labels[apis.LabelInstanceAcceleratorManufacturer] = maker
		}
	}
	return labels
}

func setPositive(labels map[string]string, key string, value int64) {
	if value > 0 {
		labels[key] = strconv.FormatInt(value, 10)
	}
}
