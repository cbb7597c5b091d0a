package apis

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// API groups and the versions karpsim reads.
const (
	Group       = "karpenter.sh"
	AWSGroup    = "karpenter.k8s.aws"
	GroupV1     = Group + "/v1"
	GroupV1B1   = Group + "/v1beta1"
	AWSGroupV1  = AWSGroup + "/v1"
	AWSGroupV1B = AWSGroup + "/v1beta1"
)

// Capacity types and architectures as they appear in label values.
const (
	CapacityTypeSpot     = "spot"
	CapacityTypeOnDemand = "on-demand"
	CapacityTypeReserved = "reserved"

	ArchitectureAmd64 = "amd64"
	ArchitectureArm64 = "arm64"
)

// EC2 tenancies as they appear in the LabelInstanceTenancy value, in the
// order a launch prefers them when a NodeClaim allows both.
const (
	TenancyDefault   = "default"
	TenancyDedicated = "dedicated"
)

// Capacity reservation types (status.capacityReservations[].reservationType
// and the LabelCapacityReservationType value) and states.
const (
	CapacityReservationTypeDefault       = "default"
	CapacityReservationTypeCapacityBlock = "capacity-block"
	CapacityReservationStateActive       = "active"
	CapacityReservationStateExpiring     = "expiring"
)

// Labels Karpenter itself sets or reads.
const (
	LabelNodePool        = Group + "/nodepool"
	LabelCapacityType    = Group + "/capacity-type"
	LabelNodeInitialized = Group + "/initialized"
	LabelNodeRegistered  = Group + "/registered"

	LabelHostname       = corev1.LabelHostname
	LabelTopologyZone   = corev1.LabelTopologyZone
	LabelTopologyRegion = corev1.LabelTopologyRegion
	LabelInstanceType   = corev1.LabelInstanceTypeStable
	LabelArch           = corev1.LabelArchStable
	LabelOS             = corev1.LabelOSStable
	LabelWindowsBuild   = corev1.LabelWindowsBuild
)

// Labels the AWS provider sets on every node it launches.
const (
	LabelTopologyZoneID          = "topology.k8s.aws/zone-id"
	LabelCapacityReservationID   = AWSGroup + "/capacity-reservation-id"
	LabelCapacityReservationType = AWSGroup + "/capacity-reservation-type"
	// LabelCapacityReservationInterruptible is "true" or "false" on a node
	// launched into a capacity reservation (provider v1.15.0): whether EC2
	// may reclaim the reservation's instances.
	LabelCapacityReservationInterruptible = AWSGroup + "/capacity-reservation-interruptible"
	// LabelPlacementGroupID and LabelPlacementGroupPartition are the EC2
	// placement group a node was launched into and, in a partition group,
	// its partition (provider v1.15.0). A type has them only when its
	// EC2NodeClass selects a placement group.
	LabelPlacementGroupID                     = AWSGroup + "/placement-group-id"
	LabelPlacementGroupPartition              = AWSGroup + "/placement-group-partition"
	LabelInstanceHypervisor                   = AWSGroup + "/instance-hypervisor"
	LabelInstanceEncryptionInTransitSupported = AWSGroup + "/instance-encryption-in-transit-supported"
	LabelInstanceCategory                     = AWSGroup + "/instance-category"
	LabelInstanceCapabilityFlex               = AWSGroup + "/instance-capability-flex"
	LabelInstanceFamily                       = AWSGroup + "/instance-family"
	LabelInstanceGeneration                   = AWSGroup + "/instance-generation"
	LabelInstanceLocalNVME                    = AWSGroup + "/instance-local-nvme"
	LabelInstanceSize                         = AWSGroup + "/instance-size"
	LabelInstanceCPU                          = AWSGroup + "/instance-cpu"
	LabelInstanceCPUManufacturer              = AWSGroup + "/instance-cpu-manufacturer"
	LabelInstanceCPUSustainedClockSpeedMhz    = AWSGroup + "/instance-cpu-sustained-clock-speed-mhz"
	LabelInstanceMemory                       = AWSGroup + "/instance-memory"
	LabelInstanceEBSBandwidth                 = AWSGroup + "/instance-ebs-bandwidth"
	LabelInstanceNetworkBandwidth             = AWSGroup + "/instance-network-bandwidth"
	LabelInstanceGPUName                      = AWSGroup + "/instance-gpu-name"
	LabelInstanceGPUManufacturer              = AWSGroup + "/instance-gpu-manufacturer"
	LabelInstanceGPUCount                     = AWSGroup + "/instance-gpu-count"
	LabelInstanceGPUMemory                    = AWSGroup + "/instance-gpu-memory"
	LabelInstanceAcceleratorName              = AWSGroup + "/instance-accelerator-name"
	LabelInstanceAcceleratorManufacturer      = AWSGroup + "/instance-accelerator-manufacturer"
	LabelInstanceAcceleratorCount             = AWSGroup + "/instance-accelerator-count"
	// LabelInstanceTenancy is the instance's EC2 tenancy (provider v1.9.0):
	// TenancyDefault (shared hardware) or TenancyDedicated.
	LabelInstanceTenancy = AWSGroup + "/instance-tenancy"
	LabelNodeClass       = AWSGroup + "/ec2nodeclass"
)

// Annotations Karpenter reads or stamps.
const (
	AnnotationDoNotDisrupt = Group + "/do-not-disrupt"
	// AnnotationDoNotRepair "true" on a node keeps node repair (v1.15)
	// away from it; do-not-disrupt does not.
	AnnotationDoNotRepair              = Group + "/do-not-repair"
	AnnotationNodePoolHash             = Group + "/nodepool-hash"
	AnnotationNodePoolHashVersion      = Group + "/nodepool-hash-version"
	AnnotationEC2NodeClassHash         = AWSGroup + "/ec2nodeclass-hash"
	AnnotationEC2NodeClassHashVersion  = AWSGroup + "/ec2nodeclass-hash-version"
	AnnotationKubeletCompatibility     = "compatibility.karpenter.sh/v1beta1-kubelet-conversion"
	AnnotationNodeClassReferenceCompat = "compatibility.karpenter.sh/v1beta1-nodeclass-reference"
	AnnotationNodeTerminationTimestamp = Group + "/node-termination-time"
	// AnnotationMinValuesRelaxed is "true" on a NodeClaim whose minValues
	// MinValuesPolicy BestEffort lowered, "false" on every other new one.
	AnnotationMinValuesRelaxed = Group + "/nodeclaim-min-values-relaxed"
)

// Extended resources the AWS provider knows about.
const (
	ResourceNVIDIAGPU     corev1.ResourceName = "nvidia.com/gpu"
	ResourceAMDGPU        corev1.ResourceName = "amd.com/gpu"
	ResourceAWSNeuron     corev1.ResourceName = "aws.amazon.com/neuron"
	ResourceAWSNeuronCore corev1.ResourceName = "aws.amazon.com/neuroncore"
	ResourceHabanaGaudi   corev1.ResourceName = "habana.ai/gaudi"
	ResourceAWSPodENI     corev1.ResourceName = "vpc.amazonaws.com/pod-eni"
	ResourceEFA           corev1.ResourceName = "vpc.amazonaws.com/efa"
)

// AnnotationDisruptionCost (v1.15) is a pod's cost of eviction for
// disruption, a 32-bit integer; it takes precedence over
// controller.kubernetes.io/pod-deletion-cost.
const AnnotationDisruptionCost = Group + "/disruption-cost"

// karpenterWellKnownLabels are the well-known labels of Karpenter itself,
// whatever the cloud: the labels in restricted domains that users may still
// select on, since Karpenter knows their values per instance type and
// offering, so a new NodeClaim may leave them undefined until an instance
// type is chosen. Each provider adds its own (LabelRules).
var karpenterWellKnownLabels = []string{
	LabelNodePool,
	LabelTopologyZone,
	LabelTopologyRegion,
	LabelInstanceType,
	LabelArch,
	LabelOS,
	LabelCapacityType,
	LabelWindowsBuild,
}

// wellKnownLabels are Karpenter's well-known labels and those the AWS
// provider registers. Sorted, so that messages listing them are stable.
var wellKnownLabels = sortedCopy(append(slices.Clone(karpenterWellKnownLabels),
	LabelCapacityReservationID,
	LabelCapacityReservationType,
	LabelCapacityReservationInterruptible,
	LabelPlacementGroupID,
	LabelPlacementGroupPartition,
	LabelInstanceHypervisor,
	LabelInstanceEncryptionInTransitSupported,
	LabelInstanceCategory,
	LabelInstanceCapabilityFlex,
	LabelInstanceFamily,
	LabelInstanceGeneration,
	LabelInstanceSize,
	LabelInstanceLocalNVME,
	LabelInstanceCPU,
	LabelInstanceCPUManufacturer,
	LabelInstanceCPUSustainedClockSpeedMhz,
	LabelInstanceMemory,
	LabelInstanceEBSBandwidth,
	LabelInstanceNetworkBandwidth,
	LabelInstanceGPUName,
	LabelInstanceGPUManufacturer,
	LabelInstanceGPUCount,
	LabelInstanceGPUMemory,
	LabelInstanceAcceleratorName,
	LabelInstanceAcceleratorManufacturer,
	LabelInstanceAcceleratorCount,
	LabelTopologyZoneID,
	LabelInstanceTenancy,
))

// restrictedLabelDomains are prohibited by the kubelet or reserved by
// Karpenter and its AWS provider; labelDomainExceptions are sub-domains of
// them that are allowed anyway.
var (
	restrictedLabelDomains = []string{"k8s.io", "karpenter.k8s.aws", "karpenter.sh", "kubernetes.io"}
	labelDomainExceptions  = []string{"kops.k8s.io", corev1.LabelNamespaceNodeRestriction, corev1.LabelNamespaceSuffixNode}
	restrictedLabels       = []string{LabelHostname}
)

// normalizedLabels maps deprecated label keys to the well-known key Karpenter
// uses in their place when it reads pod requirements; NormalizeLabel reads it.
var normalizedLabels = map[string]string{
	corev1.LabelFailureDomainBetaZone:   LabelTopologyZone,
	corev1.LabelFailureDomainBetaRegion: LabelTopologyRegion,
	"beta.kubernetes.io/arch":           LabelArch,
	"beta.kubernetes.io/os":             LabelOS,
	corev1.LabelInstanceType:            LabelInstanceType,
	// The AWS provider adds the EBS CSI driver's zone label at startup, the
	// Azure provider the disk CSI driver's. karpsim reads both whatever the
	// cloud: each names only its own cloud's zones, so a pod requiring a
	// value of the other cloud's label is unschedulable either way (it names
	// no zone the catalog offers, where Karpenter finds the label
	// undefined); only a pod requiring it absent differs on the other cloud.
	"topology.ebs.csi.aws.com/zone":    LabelTopologyZone,
	"topology.disk.csi.azure.com/zone": LabelTopologyZone,
}

// NormalizeLabel returns the well-known key Karpenter reads in place of a
// deprecated one (failure-domain.beta.kubernetes.io/zone is
// topology.kubernetes.io/zone), or key itself.
func NormalizeLabel(key string) string {
	if normalized, ok := normalizedLabels[key]; ok {
		return normalized
	}
	return key
}

// WellKnownLabels returns the sorted well-known label keys of the default
// cloud, AWS (AWSLabels.WellKnownLabels).
func WellKnownLabels() []string { return AWSLabels.WellKnownLabels() }

// RestrictedLabelDomains returns the sorted restricted label domains of the
// default cloud, AWS.
func RestrictedLabelDomains() []string { return slices.Clone(restrictedLabelDomains) }

// IsWellKnownLabel reports whether key is one of the default cloud's (AWS's)
// well-known labels; LabelRules.IsWellKnown answers for any cloud.
func IsWellKnownLabel(key string) bool { return AWSLabels.IsWellKnown(key) }

// IsRestrictedNodeLabel is AWSLabels.IsRestrictedNodeLabel.
func IsRestrictedNodeLabel(key string) bool { return AWSLabels.IsRestrictedNodeLabel(key) }

// IsRestrictedLabel is AWSLabels.IsRestrictedLabel.
func IsRestrictedLabel(key string) bool { return AWSLabels.IsRestrictedLabel(key) }

// IsRestrictedSelectorLabel is AWSLabels.IsRestrictedSelectorLabel.
func IsRestrictedSelectorLabel(key string) bool { return AWSLabels.IsRestrictedSelectorLabel(key) }

// LabelDomain returns the prefix of a label key before its slash, or "".
func LabelDomain(key string) string {
	if domain, _, found := strings.Cut(key, "/"); found {
		return domain
	}
	return ""
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
