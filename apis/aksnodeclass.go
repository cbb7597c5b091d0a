package apis

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The API group and versions of Karpenter's Azure provider, and its node
// class's kind.
const (
	AzureGroup         = "karpenter.azure.com"
	AzureGroupV1Beta1  = AzureGroup + "/v1beta1"
	AzureGroupV1Alpha2 = AzureGroup + "/v1alpha2"
	KindAKSNodeClass   = "AKSNodeClass"
)

// The annotations the Azure provider stamps on an AKSNodeClass and on the
// NodeClaims launched from it: the hash of the class's spec and the version
// of that hash's algorithm.
const (
	AnnotationAKSNodeClassHash        = AzureGroup + "/aksnodeclass-hash"
	AnnotationAKSNodeClassHashVersion = AzureGroup + "/aksnodeclass-hash-version"
)

// The image families an AKSNodeClass may name. Ubuntu and AzureLinux
// follow the Kubernetes version (Ubuntu is 22.04 up to Kubernetes 1.34 and
// 24.04 after it); the others pin a release.
const (
	ImageFamilyUbuntu     = "Ubuntu"
	ImageFamilyUbuntu2204 = "Ubuntu2204"
	ImageFamilyUbuntu2404 = "Ubuntu2404"
	ImageFamilyAzureLinux = "AzureLinux"
)

// ImageFamilies lists the families the CRD allows, in its order.
var ImageFamilies = []string{ImageFamilyUbuntu, ImageFamilyUbuntu2204, ImageFamilyUbuntu2404, ImageFamilyAzureLinux}

// The CRD's defaults for an AKSNodeClass.
const (
	DefaultOSDiskSizeGB = 128
	DefaultImageFamily  = ImageFamilyUbuntu
)

// The condition types an AKSNodeClass's status reports, besides Ready.
const (
	AKSConditionImagesReady            = "ImagesReady"
	AKSConditionKubernetesVersionReady = "KubernetesVersionReady"
	AKSConditionSubnetsReady           = "SubnetsReady"
)

// AKSNodeClass is the Azure provider's node class
// (karpenter.azure.com/v1beta1; v1alpha2 has the same schema): how the
// virtual machines of the NodePools that name it are launched.
type AKSNodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              AKSNodeClassSpec   `json:"spec,omitempty"`
	Status            AKSNodeClassStatus `json:"status,omitempty"`
}

// AKSNodeClassSpec holds the launch settings. The Go field names are the
// Azure provider's own, as its hash of the spec reads them (see drift).
type AKSNodeClassSpec struct {
	// VNETSubnetID is the subnet of the nodes' NICs; nil for the cluster's
	// default subnet.
	VNETSubnetID *string `json:"vnetSubnetID,omitempty"`
	// OSDiskSizeGB is the OS disk's size, 30 to 2048 GB; default 128.
	OSDiskSizeGB *int32 `json:"osDiskSizeGB,omitempty"`
	// ImageFamily is one of ImageFamilies; default Ubuntu.
	ImageFamily *string `json:"imageFamily,omitempty"`
	// FIPSMode is FIPS or Disabled.
	FIPSMode *string `json:"fipsMode,omitempty"`
	// Tags go on the Azure resources; they do not count in the hash.
	Tags map[string]string `json:"tags,omitempty"`
	// Kubelet is the subset of kubelet settings AKS lets a class set.
	Kubelet *AKSKubeletConfiguration `json:"kubelet,omitempty"`
	// MaxPods overrides the pods per node, 10 to 250; its default depends
	// on the cluster's network plugin.
	MaxPods           *int32                `json:"maxPods,omitempty"`
	Security          *AKSSecurity          `json:"security,omitempty"`
	LocalDNS          *AKSLocalDNS          `json:"localDNS,omitempty"`
	GPU               *AKSGPU               `json:"gpu,omitempty"`
	ArtifactStreaming *AKSArtifactStreaming `json:"artifactStreaming,omitempty"`
	LinuxOSConfig     *AKSLinuxOSConfig     `json:"linuxOSConfig,omitempty"`
}

// AKSKubeletConfiguration is an AKSNodeClass's kubelet block.
type AKSKubeletConfiguration struct {
	CPUManagerPolicy            *string         `json:"cpuManagerPolicy,omitempty"`
	CPUCFSQuota                 *bool           `json:"cpuCFSQuota,omitempty"`
	CPUCFSQuotaPeriod           metav1.Duration `json:"cpuCFSQuotaPeriod,omitempty"`
	ImageGCHighThresholdPercent *int32          `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32          `json:"imageGCLowThresholdPercent,omitempty"`
	TopologyManagerPolicy       *string         `json:"topologyManagerPolicy,omitempty"`
	AllowedUnsafeSysctls        []string        `json:"allowedUnsafeSysctls,omitempty"`
	ContainerLogMaxSize         *string         `json:"containerLogMaxSize,omitempty"`
	ContainerLogMaxFiles        *int32          `json:"containerLogMaxFiles,omitempty"`
	PodPidsLimit                *int64          `json:"podPidsLimit,omitempty"`
	FailSwapOn                  *bool           `json:"failSwapOn,omitempty"`
}

// AKSSecurity holds the class's security settings.
type AKSSecurity struct {
	EncryptionAtHost *bool `json:"encryptionAtHost,omitempty"`
}

// AKSGPU says who installs GPU drivers: Driver (AKS, the default) or None.
type AKSGPU struct {
	Mode *string `json:"mode,omitempty"`
}

// AKSArtifactStreaming turns on streaming container images to nodes.
type AKSArtifactStreaming struct {
	Enabled *bool `json:"enabled,omitempty"`
}

// AKSLocalDNS configures the nodes' local DNS cache.
type AKSLocalDNS struct {
	Mode             string                    `json:"mode,omitempty"`
	VnetDNSOverrides []AKSLocalDNSZoneOverride `json:"vnetDNSOverrides,omitempty"`
	KubeDNSOverrides []AKSLocalDNSZoneOverride `json:"kubeDNSOverrides,omitempty"`
}

// AKSLocalDNSZoneOverride is how local DNS treats one zone.
type AKSLocalDNSZoneOverride struct {
	Zone               string           `json:"zone,omitempty"`
	QueryLogging       string           `json:"queryLogging,omitempty"`
	Protocol           string           `json:"protocol,omitempty"`
	ForwardDestination string           `json:"forwardDestination,omitempty"`
	ForwardPolicy      string           `json:"forwardPolicy,omitempty"`
	MaxConcurrent      *int32           `json:"maxConcurrent,omitempty"`
	CacheDuration      NillableDuration `json:"cacheDuration"`
	ServeStaleDuration NillableDuration `json:"serveStaleDuration"`
	ServeStale         string           `json:"serveStale,omitempty"`
}

// AKSLinuxOSConfig is AKS's custom Linux OS configuration.
type AKSLinuxOSConfig struct {
	SwapFileSize               *string          `json:"swapFileSize,omitempty"`
	Sysctls                    *AKSSysctlConfig `json:"sysctls,omitempty"`
	TransparentHugePageDefrag  *string          `json:"transparentHugePageDefrag,omitempty"`
	TransparentHugePageEnabled *string          `json:"transparentHugePageEnabled,omitempty"`
}

// AKSSysctlConfig are the sysctls AKS lets a node class set.
type AKSSysctlConfig struct {
	FsAioMaxNr                     *int32  `json:"fsAioMaxNr,omitempty"`
	FsFileMax                      *int32  `json:"fsFileMax,omitempty"`
	FsInotifyMaxUserWatches        *int32  `json:"fsInotifyMaxUserWatches,omitempty"`
	FsNrOpen                       *int32  `json:"fsNrOpen,omitempty"`
	KernelThreadsMax               *int32  `json:"kernelThreadsMax,omitempty"`
	NetCoreNetdevMaxBacklog        *int32  `json:"netCoreNetdevMaxBacklog,omitempty"`
	NetCoreOptmemMax               *int32  `json:"netCoreOptmemMax,omitempty"`
	NetCoreRmemDefault             *int32  `json:"netCoreRmemDefault,omitempty"`
	NetCoreRmemMax                 *int32  `json:"netCoreRmemMax,omitempty"`
	NetCoreSomaxconn               *int32  `json:"netCoreSomaxconn,omitempty"`
	NetCoreWmemDefault             *int32  `json:"netCoreWmemDefault,omitempty"`
	NetCoreWmemMax                 *int32  `json:"netCoreWmemMax,omitempty"`
	NetIPv4IPLocalPortRange        *string `json:"netIPv4IPLocalPortRange,omitempty"`
	NetIPv4NeighDefaultGcThresh1   *int32  `json:"netIPv4NeighDefaultGcThresh1,omitempty"`
	NetIPv4NeighDefaultGcThresh2   *int32  `json:"netIPv4NeighDefaultGcThresh2,omitempty"`
	NetIPv4NeighDefaultGcThresh3   *int32  `json:"netIPv4NeighDefaultGcThresh3,omitempty"`
	NetIPv4TCPFinTimeout           *int32  `json:"netIPv4TCPFinTimeout,omitempty"`
	NetIPv4TCPKeepaliveProbes      *int32  `json:"netIPv4TCPKeepaliveProbes,omitempty"`
	NetIPv4TCPKeepaliveTime        *int32  `json:"netIPv4TCPKeepaliveTime,omitempty"`
	NetIPv4TCPMaxSynBacklog        *int32  `json:"netIPv4TCPMaxSynBacklog,omitempty"`
	NetIPv4TCPMaxTwBuckets         *int32  `json:"netIPv4TCPMaxTwBuckets,omitempty"`
	NetIPv4TCPTwReuse              *bool   `json:"netIPv4TCPTwReuse,omitempty"`
	NetIPv4TCPKeepaliveIntvl       *int32  `json:"netIPv4TCPKeepaliveIntvl,omitempty"`
	NetNetfilterNfConntrackBuckets *int32  `json:"netNetfilterNfConntrackBuckets,omitempty"`
	NetNetfilterNfConntrackMax     *int32  `json:"netNetfilterNfConntrackMax,omitempty"`
	VMMaxMapCount                  *int32  `json:"vmMaxMapCount,omitempty"`
	VMSwappiness                   *int32  `json:"vmSwappiness,omitempty"`
	VMVfsCachePressure             *int32  `json:"vmVfsCachePressure,omitempty"`
}

// AKSNodeClassStatus is what the Azure provider resolved for the class.
type AKSNodeClassStatus struct {
	// Images are the node images the class launches with, each for the
	// instance types its requirements admit. A NodeClaim whose
	// status.imageID is none of them has drifted.
	Images []AKSNodeImage `json:"images,omitempty"`
	// KubernetesVersion is the version new nodes run; a node whose kubelet
	// runs another has drifted.
	KubernetesVersion *string            `json:"kubernetesVersion,omitempty"`
	Conditions        []metav1.Condition `json:"conditions,omitempty"`
	LocalDNSState     *string            `json:"localDNSState,omitempty"`
}

// AKSNodeImage is one resolved node image.
type AKSNodeImage struct {
	ID           string                           `json:"id"`
	Requirements []corev1.NodeSelectorRequirement `json:"requirements"`
}

// ImageFamilyOrDefault is the image family in effect: spec.imageFamily,
// else the default, Ubuntu.
func (in *AKSNodeClass) ImageFamilyOrDefault() string {
	if in == nil || in.Spec.ImageFamily == nil {
		return DefaultImageFamily
	}
	return *in.Spec.ImageFamily
}

// OSDiskSizeGBOrDefault is the OS disk size in effect: spec.osDiskSizeGB,
// else 128.
func (in *AKSNodeClass) OSDiskSizeGBOrDefault() int32 {
	if in == nil || in.Spec.OSDiskSizeGB == nil {
		return DefaultOSDiskSizeGB
	}
	return *in.Spec.OSDiskSizeGB
}

// DeepCopy returns a copy that shares no memory with in.
func (in *AKSNodeClass) DeepCopy() *AKSNodeClass {
	if in == nil {
		return nil
	}
	out := &AKSNodeClass{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = in.Spec.DeepCopy()
	out.Status = in.Status.DeepCopy()
	return out
}

// DeepCopy returns a copy of the spec that shares no memory with it.
func (in AKSNodeClassSpec) DeepCopy() AKSNodeClassSpec {
	out := in
	out.VNETSubnetID = copyPtr(in.VNETSubnetID)
	out.OSDiskSizeGB = copyPtr(in.OSDiskSizeGB)
	out.ImageFamily = copyPtr(in.ImageFamily)
	out.FIPSMode = copyPtr(in.FIPSMode)
	out.Tags = copyMap(in.Tags)
	if k := in.Kubelet; k != nil {
		c := *k
		c.CPUManagerPolicy, c.CPUCFSQuota = copyPtr(k.CPUManagerPolicy), copyPtr(k.CPUCFSQuota)
		c.ImageGCHighThresholdPercent, c.ImageGCLowThresholdPercent = copyPtr(k.ImageGCHighThresholdPercent), copyPtr(k.ImageGCLowThresholdPercent)
		c.TopologyManagerPolicy, c.AllowedUnsafeSysctls = copyPtr(k.TopologyManagerPolicy), slices.Clone(k.AllowedUnsafeSysctls)
		c.ContainerLogMaxSize, c.ContainerLogMaxFiles = copyPtr(k.ContainerLogMaxSize), copyPtr(k.ContainerLogMaxFiles)
		c.PodPidsLimit, c.FailSwapOn = copyPtr(k.PodPidsLimit), copyPtr(k.FailSwapOn)
		out.Kubelet = &c
	}
	out.MaxPods = copyPtr(in.MaxPods)
	if v := in.Security; v != nil {
		out.Security = &AKSSecurity{EncryptionAtHost: copyPtr(v.EncryptionAtHost)}
	}
	if v := in.LocalDNS; v != nil {
		out.LocalDNS = &AKSLocalDNS{Mode: v.Mode, VnetDNSOverrides: copyZoneOverrides(v.VnetDNSOverrides), KubeDNSOverrides: copyZoneOverrides(v.KubeDNSOverrides)}
	}
	if v := in.GPU; v != nil {
		out.GPU = &AKSGPU{Mode: copyPtr(v.Mode)}
	}
	if v := in.ArtifactStreaming; v != nil {
		out.ArtifactStreaming = &AKSArtifactStreaming{Enabled: copyPtr(v.Enabled)}
	}
	if v := in.LinuxOSConfig; v != nil {
		c := AKSLinuxOSConfig{SwapFileSize: copyPtr(v.SwapFileSize), TransparentHugePageDefrag: copyPtr(v.TransparentHugePageDefrag),
			TransparentHugePageEnabled: copyPtr(v.TransparentHugePageEnabled)}
		if sc := v.Sysctls; sc != nil {
			cp := sc.deepCopy()
			c.Sysctls = &cp
		}
		out.LinuxOSConfig = &c
	}
	return out
}

func copyZoneOverrides(in []AKSLocalDNSZoneOverride) []AKSLocalDNSZoneOverride {
	if in == nil {
		return nil
	}
	out := make([]AKSLocalDNSZoneOverride, len(in))
	for i, o := range in {
		o.MaxConcurrent = copyPtr(o.MaxConcurrent)
		o.CacheDuration, o.ServeStaleDuration = o.CacheDuration.DeepCopy(), o.ServeStaleDuration.DeepCopy()
		out[i] = o
	}
	return out
}

// deepCopy copies every pointer of the sysctls.
func (s AKSSysctlConfig) deepCopy() AKSSysctlConfig {
	out := s
	for _, p := range []**int32{&out.FsAioMaxNr, &out.FsFileMax, &out.FsInotifyMaxUserWatches, &out.FsNrOpen, &out.KernelThreadsMax,
		&out.NetCoreNetdevMaxBacklog, &out.NetCoreOptmemMax, &out.NetCoreRmemDefault, &out.NetCoreRmemMax, &out.NetCoreSomaxconn,
		&out.NetCoreWmemDefault, &out.NetCoreWmemMax, &out.NetIPv4NeighDefaultGcThresh1, &out.NetIPv4NeighDefaultGcThresh2,
		&out.NetIPv4NeighDefaultGcThresh3, &out.NetIPv4TCPFinTimeout, &out.NetIPv4TCPKeepaliveProbes, &out.NetIPv4TCPKeepaliveTime,
		&out.NetIPv4TCPMaxSynBacklog, &out.NetIPv4TCPMaxTwBuckets, &out.NetIPv4TCPKeepaliveIntvl, &out.NetNetfilterNfConntrackBuckets,
		&out.NetNetfilterNfConntrackMax, &out.VMMaxMapCount, &out.VMSwappiness, &out.VMVfsCachePressure} {
		*p = copyPtr(*p)
	}
	out.NetIPv4IPLocalPortRange, out.NetIPv4TCPTwReuse = copyPtr(s.NetIPv4IPLocalPortRange), copyPtr(s.NetIPv4TCPTwReuse)
	return out
}

// DeepCopy returns a copy of the status that shares no memory with it.
func (in AKSNodeClassStatus) DeepCopy() AKSNodeClassStatus {
	out := in
	if in.Images != nil {
		out.Images = make([]AKSNodeImage, len(in.Images))
		for i, img := range in.Images {
			out.Images[i] = AKSNodeImage{ID: img.ID}
			if img.Requirements != nil {
				out.Images[i].Requirements = make([]corev1.NodeSelectorRequirement, len(img.Requirements))
				for j := range img.Requirements {
					img.Requirements[j].DeepCopyInto(&out.Images[i].Requirements[j])
				}
			}
		}
	}
	out.KubernetesVersion = copyPtr(in.KubernetesVersion)
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
	out.LocalDNSState = copyPtr(in.LocalDNSState)
	return out
}
