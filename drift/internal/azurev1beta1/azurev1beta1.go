// Package azurev1beta1 mirrors the shape of the Azure provider's
// karpenter.azure.com/v1beta1 AKSNodeClassSpec as its hash reads it:
// hashstructure hashes struct type names, field names and values, so these
// types carry the upstream Go type and field names, and the fields the hash
// ignores (tags) are left out, which hashstructure's skipping makes
// equivalent. The sysctl block, whose struct karpsim's apis names
// differently but whose fields it names alike, is converted field by field
// by its one user.
package azurev1beta1

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AKSNodeClassSpec is the hashed spec. ImageID is never set from YAML (the
// API does not expose it) and so is always skipped, like any nil field.
type AKSNodeClassSpec struct {
	VNETSubnetID      *string
	OSDiskSizeGB      *int32
	ImageID           *string
	ImageFamily       *string
	FIPSMode          *string
	Kubelet           *KubeletConfiguration
	MaxPods           *int32
	Security          *Security
	LocalDNS          *LocalDNS
	GPU               *GPU
	ArtifactStreaming *ArtifactStreaming
	LinuxOSConfig     *LinuxOSConfiguration
}

// KubeletConfiguration mirrors the kubelet block.
type KubeletConfiguration struct {
	CPUManagerPolicy            *string
	CPUCFSQuota                 *bool
	CPUCFSQuotaPeriod           metav1.Duration
	ImageGCHighThresholdPercent *int32
	ImageGCLowThresholdPercent  *int32
	TopologyManagerPolicy       *string
	AllowedUnsafeSysctls        []string
	ContainerLogMaxSize         *string
	ContainerLogMaxFiles        *int32
	PodPidsLimit                *int64
	FailSwapOn                  *bool
}

// Security mirrors the security block.
type Security struct{ EncryptionAtHost *bool }

// GPU mirrors the gpu block.
type GPU struct{ Mode *string }

// ArtifactStreaming mirrors the artifactStreaming block.
type ArtifactStreaming struct{ Enabled *bool }

// LocalDNS mirrors the localDNS block.
type LocalDNS struct {
	Mode             string
	VnetDNSOverrides []LocalDNSZoneOverride
	KubeDNSOverrides []LocalDNSZoneOverride
}

// LocalDNSZoneOverride mirrors one zone's override, with upstream's
// NillableDuration for the two durations.
type LocalDNSZoneOverride struct {
	Zone               string
	QueryLogging       string
	Protocol           string
	ForwardDestination string
	ForwardPolicy      string
	MaxConcurrent      *int32
	CacheDuration      NillableDuration
	ServeStaleDuration NillableDuration
	ServeStale         string
}

// LinuxOSConfiguration mirrors the linuxOSConfig block.
type LinuxOSConfiguration struct {
	SwapFileSize               *string
	Sysctls                    *SysctlConfiguration
	TransparentHugePageDefrag  *string
	TransparentHugePageEnabled *string
}

// SysctlConfiguration mirrors the sysctls block.
type SysctlConfiguration struct {
	FsAioMaxNr                     *int32
	FsFileMax                      *int32
	FsInotifyMaxUserWatches        *int32
	FsNrOpen                       *int32
	KernelThreadsMax               *int32
	NetCoreNetdevMaxBacklog        *int32
	NetCoreOptmemMax               *int32
	NetCoreRmemDefault             *int32
	NetCoreRmemMax                 *int32
	NetCoreSomaxconn               *int32
	NetCoreWmemDefault             *int32
	NetCoreWmemMax                 *int32
	NetIPv4IPLocalPortRange        *string
	NetIPv4NeighDefaultGcThresh1   *int32
	NetIPv4NeighDefaultGcThresh2   *int32
	NetIPv4NeighDefaultGcThresh3   *int32
	NetIPv4TCPFinTimeout           *int32
	NetIPv4TCPKeepaliveProbes      *int32
	NetIPv4TCPKeepaliveTime        *int32
	NetIPv4TCPMaxSynBacklog        *int32
	NetIPv4TCPMaxTwBuckets         *int32
	NetIPv4TCPTwReuse              *bool
	NetIPv4TCPKeepaliveIntvl       *int32
	NetNetfilterNfConntrackBuckets *int32
	NetNetfilterNfConntrackMax     *int32
	VMMaxMapCount                  *int32
	VMSwappiness                   *int32
	VMVfsCachePressure             *int32
}

// NillableDuration mirrors Karpenter's, which the zone overrides use:
// the duration embedded, so the hashed field is named Duration; its raw
// text is not hashed.
type NillableDuration struct {
	*time.Duration
}
