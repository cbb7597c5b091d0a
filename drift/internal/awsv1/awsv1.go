// Package awsv1 mirrors the part of the AWS provider's EC2NodeClass API
// (github.com/aws/karpenter-provider-aws pkg/apis/v1) that
// EC2NodeClass.Hash reads. hashstructure (FormatV2) folds in the Go name of
// every struct type, the name of every field and, for fields that are
// hashed, their order and kind, so these types carry upstream's names, field
// order, kinds and hash tags exactly. Fields upstream tags hash:"ignore" (the
// selector terms, amiFamily, ipPrefixCount) are left out, as are fields
// karpsim's apis package does not model: hashstructure
// skips ignored and zero fields without touching the running hash, so
// leaving them out gives the same value. The launch settings
// (placementGroupSelector, networkInterfaces, connectionTracking,
// cpuOptions, enclaveOptions) are mirrored too, in upstream's places: the
// first two came while the hash was at v4, the others later, and none is
// ignored.
package awsv1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EC2NodeClassSpec holds the hashed fields of an EC2NodeClass spec, in
// upstream's order.
type EC2NodeClassSpec struct {
	PlacementGroupSelector   *PlacementGroupSelector
	AssociatePublicIPAddress *bool
	UserData                 *string
	Role                     string
	InstanceProfile          *string
	Tags                     map[string]string
	Kubelet                  *KubeletConfiguration
	BlockDeviceMappings      []*BlockDeviceMapping
	InstanceStorePolicy      *InstanceStorePolicy
	NetworkInterfaces        []*NetworkInterface
	DetailedMonitoring       *bool
	MetadataOptions          *MetadataOptions
	EnclaveOptions           *EnclaveOptions
	ConnectionTracking       *ConnectionTracking
	Context                  *string
	CPUOptions               *CPUOptions
}

// PlacementGroupSelector is spec.placementGroupSelector.
type PlacementGroupSelector struct {
	Name *string
	ID   *string
}

// InterfaceType is a network interface's type.
type InterfaceType string

// NetworkInterface is one entry of spec.networkInterfaces.
type NetworkInterface struct {
	NetworkCardIndex int32
	DeviceIndex      int32
	InterfaceType    InterfaceType
}

// ConnectionTracking is spec.connectionTracking.
type ConnectionTracking struct {
	TCPEstablishedTimeout *int32
	UDPStreamTimeout      *int32
	UDPTimeout            *int32
}

// EnclaveOptions is spec.enclaveOptions (v1.15.0).
type EnclaveOptions struct {
	Enabled bool
}

// CPUOptions is spec.cpuOptions.
type CPUOptions struct {
	NestedVirtualization *string
}

// KubeletConfiguration is spec.kubelet; every field is hashed.
type KubeletConfiguration struct {
	ClusterDNS                  []string
	MaxPods                     *int32
	PodsPerCore                 *int32
	SystemReserved              map[string]string
	KubeReserved                map[string]string
	EvictionHard                map[string]string
	EvictionSoft                map[string]string
	EvictionSoftGracePeriod     map[string]metav1.Duration
	EvictionMaxPodGracePeriod   *int32
	ImageGCHighThresholdPercent *int32
	ImageGCLowThresholdPercent  *int32
	CPUCFSQuota                 *bool
}

// BlockDeviceMapping is one entry of spec.blockDeviceMappings.
type BlockDeviceMapping struct {
	DeviceName *string
	EBS        *BlockDevice
	RootVolume bool
}

// BlockDevice is an EBS volume. VolumeSize is hashed through its String
// form, as upstream's tag says.
type BlockDevice struct {
	DeleteOnTermination      *bool
	Encrypted                *bool
	IOPS                     *int64
	KMSKeyID                 *string
	SnapshotID               *string
	Throughput               *int64
	VolumeInitializationRate *int32
	VolumeSize               *resource.Quantity `hash:"string"`
	VolumeType               *string
}

// InstanceStorePolicy is spec.instanceStorePolicy.
type InstanceStorePolicy string

// MetadataOptions is spec.metadataOptions.
type MetadataOptions struct {
	HTTPEndpoint            *string
	HTTPProtocolIPv6        *string
	HTTPPutResponseHopLimit *int64
	HTTPTokens              *string
}
