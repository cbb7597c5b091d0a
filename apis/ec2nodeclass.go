package apis

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// AMI families an EC2NodeClass may use.
const (
	AMIFamilyAL2          = "AL2"
	AMIFamilyAL2023       = "AL2023"
	AMIFamilyBottlerocket = "Bottlerocket"
	AMIFamilyWindows2019  = "Windows2019"
	AMIFamilyWindows2022  = "Windows2022"
	AMIFamilyWindows2025  = "Windows2025"
	AMIFamilyCustom       = "Custom"
)

// AliasVersionLatest is the alias version that tracks the newest AMI.
const AliasVersionLatest = "latest"

// aliasFamilies are the families an amiSelectorTerms alias may name; the
// alias spells them in lower case ("al2023@latest").
var aliasFamilies = []string{AMIFamilyAL2, AMIFamilyAL2023, AMIFamilyBottlerocket, AMIFamilyWindows2019, AMIFamilyWindows2022, AMIFamilyWindows2025}

// EC2NodeClass is a karpenter.k8s.aws/v1 EC2NodeClass: the AWS settings
// (AMI, subnets, security groups, disks, kubelet) of the nodes of the
// NodePools that reference it.
type EC2NodeClass struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EC2NodeClassSpec   `json:"spec,omitempty"`
	Status EC2NodeClassStatus `json:"status,omitempty"`
}

// EC2NodeClassSpec is the launch configuration of an EC2NodeClass.
type EC2NodeClassSpec struct {
	SubnetSelectorTerms              []SubnetSelectorTerm              `json:"subnetSelectorTerms"`
	SecurityGroupSelectorTerms       []SecurityGroupSelectorTerm       `json:"securityGroupSelectorTerms"`
	CapacityReservationSelectorTerms []CapacityReservationSelectorTerm `json:"capacityReservationSelectorTerms,omitempty"`
	AssociatePublicIPAddress         *bool                             `json:"associatePublicIPAddress,omitempty"`
	AMISelectorTerms                 []AMISelectorTerm                 `json:"amiSelectorTerms"`
	// AMIFamily may be left out when an alias term names the family; see
	// (*EC2NodeClass).AMIFamily for the family in effect.
	AMIFamily           *string               `json:"amiFamily,omitempty"`
	UserData            *string               `json:"userData,omitempty"`
	Role                string                `json:"role,omitempty"`
	InstanceProfile     *string               `json:"instanceProfile,omitempty"`
	Tags                map[string]string     `json:"tags,omitempty"`
	Kubelet             *KubeletConfiguration `json:"kubelet,omitempty"`
	BlockDeviceMappings []*BlockDeviceMapping `json:"blockDeviceMappings,omitempty"`
	InstanceStorePolicy *InstanceStorePolicy  `json:"instanceStorePolicy,omitempty"`
	DetailedMonitoring  *bool                 `json:"detailedMonitoring,omitempty"`
	MetadataOptions     *MetadataOptions      `json:"metadataOptions,omitempty"`
	Context             *string               `json:"context,omitempty"`
	// The launch settings that restrict which instance types can launch;
	// see ec2nodeclass_launch.go.
	PlacementGroupSelector *PlacementGroupSelector `json:"placementGroupSelector,omitempty"`
	NetworkInterfaces      []*NetworkInterface     `json:"networkInterfaces,omitempty"`
	ConnectionTracking     *ConnectionTracking     `json:"connectionTracking,omitempty"`
	CPUOptions             *CPUOptions             `json:"cpuOptions,omitempty"`
	EnclaveOptions         *EnclaveOptions         `json:"enclaveOptions,omitempty"`
}

// SubnetSelectorTerm selects subnets by tags or by ID (not both).
type SubnetSelectorTerm struct {
	Tags map[string]string `json:"tags,omitempty"`
	ID   string            `json:"id,omitempty"`
}

// SecurityGroupSelectorTerm selects security groups by tags, ID or name.
type SecurityGroupSelectorTerm struct {
	Tags map[string]string `json:"tags,omitempty"`
	ID   string            `json:"id,omitempty"`
	Name string            `json:"name,omitempty"`
}

// CapacityReservationSelectorTerm selects EC2 capacity reservations.
type CapacityReservationSelectorTerm struct {
	Tags                  map[string]string `json:"tags,omitempty"`
	ID                    string            `json:"id,omitempty"`
	OwnerID               string            `json:"ownerID,omitempty"`
	InstanceMatchCriteria string            `json:"instanceMatchCriteria,omitempty"`
}

// AMISelectorTerm selects AMIs. An Alias ("al2023@latest") stands alone;
// the other fields are ANDed within a term.
type AMISelectorTerm struct {
	Alias        string            `json:"alias,omitempty"`
	Tags         map[string]string `json:"tags,omitempty"`
	ID           string            `json:"id,omitempty"`
	Name         string            `json:"name,omitempty"`
	Owner        string            `json:"owner,omitempty"`
	SSMParameter string            `json:"ssmParameter,omitempty"`
}

// KubeletConfiguration is the subset of kubelet settings Karpenter passes
// to nodes and uses to compute allocatable resources.
type KubeletConfiguration struct {
	ClusterDNS []string `json:"clusterDNS,omitempty"`
	// MaxPods is a whole number or, read only with the AWS provider's
	// NodeClassCEL feature gate, an expression (see ParseKubeletExpression).
	MaxPods                     *intstr.IntOrString        `json:"maxPods,omitempty"`
	PodsPerCore                 *int32                     `json:"podsPerCore,omitempty"`
	SystemReserved              map[string]string          `json:"systemReserved,omitempty"`
	KubeReserved                map[string]string          `json:"kubeReserved,omitempty"`
	EvictionHard                map[string]string          `json:"evictionHard,omitempty"`
	EvictionSoft                map[string]string          `json:"evictionSoft,omitempty"`
	EvictionSoftGracePeriod     map[string]metav1.Duration `json:"evictionSoftGracePeriod,omitempty"`
	EvictionMaxPodGracePeriod   *int32                     `json:"evictionMaxPodGracePeriod,omitempty"`
	ImageGCHighThresholdPercent *int32                     `json:"imageGCHighThresholdPercent,omitempty"`
	ImageGCLowThresholdPercent  *int32                     `json:"imageGCLowThresholdPercent,omitempty"`
	CPUCFSQuota                 *bool                      `json:"cpuCFSQuota,omitempty"`
}

// MetadataOptions configures the instance metadata service of nodes.
type MetadataOptions struct {
	HTTPEndpoint            *string `json:"httpEndpoint,omitempty"`
	HTTPProtocolIPv6        *string `json:"httpProtocolIPv6,omitempty"`
	HTTPPutResponseHopLimit *int64  `json:"httpPutResponseHopLimit,omitempty"`
	HTTPTokens              *string `json:"httpTokens,omitempty"`
}

// BlockDeviceMapping attaches an EBS volume to nodes at a device name.
type BlockDeviceMapping struct {
	DeviceName *string      `json:"deviceName,omitempty"`
	EBS        *BlockDevice `json:"ebs,omitempty"`
	// RootVolume marks the volume kubelet uses as its root directory; its
	// size is the node's ephemeral-storage capacity.
	RootVolume bool `json:"rootVolume,omitempty"`
}

// BlockDevice is an EBS volume's settings.
type BlockDevice struct {
	DeleteOnTermination      *bool              `json:"deleteOnTermination,omitempty"`
	Encrypted                *bool              `json:"encrypted,omitempty"`
	IOPS                     *int64             `json:"iops,omitempty"`
	KMSKeyID                 *string            `json:"kmsKeyID,omitempty"`
	SnapshotID               *string            `json:"snapshotID,omitempty"`
	Throughput               *int64             `json:"throughput,omitempty"`
	VolumeInitializationRate *int32             `json:"volumeInitializationRate,omitempty"`
	VolumeSize               *resource.Quantity `json:"volumeSize,omitempty"`
	VolumeType               *string            `json:"volumeType,omitempty"`
}

// InstanceStorePolicy says what to do with instance-store (local NVMe) disks.
type InstanceStorePolicy string

// InstanceStorePolicyRAID0 puts all instance-store disks in one RAID-0 array
// used for kubelet and containerd state, so it counts as ephemeral storage.
const InstanceStorePolicyRAID0 InstanceStorePolicy = "RAID0"

// EC2NodeClassStatus is what Karpenter resolved the selector terms to.
type EC2NodeClassStatus struct {
	Subnets              []Subnet              `json:"subnets,omitempty"`
	SecurityGroups       []SecurityGroup       `json:"securityGroups,omitempty"`
	CapacityReservations []CapacityReservation `json:"capacityReservations,omitempty"`
	AMIs                 []AMI                 `json:"amis,omitempty"`
	InstanceProfile      string                `json:"instanceProfile,omitempty"`
	Conditions           []metav1.Condition    `json:"conditions,omitempty"`
}

// Subnet is a resolved subnet and its zone.
type Subnet struct {
	ID     string `json:"id"`
	Zone   string `json:"zone"`
	ZoneID string `json:"zoneID,omitempty"`
}

// SecurityGroup is a resolved security group.
type SecurityGroup struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
}

// AMI is a resolved image and the node requirements (arch, GPU, ...) an
// instance type must meet to use it.
type AMI struct {
	ID           string                           `json:"id"`
	Name         string                           `json:"name,omitempty"`
	Requirements []corev1.NodeSelectorRequirement `json:"requirements"`
	Deprecated   bool                             `json:"deprecated,omitempty"`
}

// CapacityReservation is a resolved EC2 capacity reservation.
type CapacityReservation struct {
	AvailabilityZone      string       `json:"availabilityZone"`
	EndTime               *metav1.Time `json:"endTime,omitempty"`
	ID                    string       `json:"id"`
	InstanceMatchCriteria string       `json:"instanceMatchCriteria"`
	InstanceType          string       `json:"instanceType"`
	OwnerID               string       `json:"ownerID"`
	ReservationType       string       `json:"reservationType,omitempty"`
	// Interruptible says EC2 may reclaim the reservation's instances
	// (provider v1.15.0); its offerings carry it as
	// LabelCapacityReservationInterruptible.
	Interruptible bool   `json:"interruptible,omitempty"`
	State         string `json:"state,omitempty"`
}

// Alias is a parsed amiSelectorTerms alias such as "al2023@latest".
type Alias struct {
	// Family is the AMI family constant, e.g. AMIFamilyAL2023.
	Family string
	// Version is the AMI release, or AliasVersionLatest.
	Version string
}

// String returns the alias as written in a manifest.
func (a Alias) String() string { return strings.ToLower(a.Family) + "@" + a.Version }

// ParseAlias parses "family@version"; ok is false when the text is not of
// that form or the family is unknown.
func ParseAlias(alias string) (Alias, bool) {
	name, version, found := strings.Cut(alias, "@")
	if !found || version == "" || strings.Contains(version, "@") {
		return Alias{}, false
	}
	for _, family := range aliasFamilies {
		if strings.ToLower(family) == name {
			return Alias{Family: family, Version: version}, true
		}
	}
	return Alias{}, false
}

// Alias returns the parsed alias of the first amiSelectorTerms entry that
// has one, or nil when there is none or it does not parse.
func (in *EC2NodeClass) Alias() *Alias {
	for _, term := range in.Spec.AMISelectorTerms {
		if term.Alias == "" {
			continue
		}
		if alias, ok := ParseAlias(term.Alias); ok {
			return &alias
		}
		return nil
	}
	return nil
}

// AMIFamily returns the AMI family in effect, as Karpenter resolves it: the
// explicit spec.amiFamily, else the family of the alias term, else Custom.
func (in *EC2NodeClass) AMIFamily() string {
	if in.Spec.AMIFamily != nil {
		return *in.Spec.AMIFamily
	}
	if alias := in.Alias(); alias != nil {
		return alias.Family
	}
	return AMIFamilyCustom
}

// DeepCopy returns a copy of the EC2NodeClass that shares no memory with it.
func (in *EC2NodeClass) DeepCopy() *EC2NodeClass {
	if in == nil {
		return nil
	}
	out := &EC2NodeClass{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = in.Spec.DeepCopy()
	out.Status = in.Status.DeepCopy()
	return out
}

// DeepCopy returns a copy of the spec that shares no memory with it.
func (in EC2NodeClassSpec) DeepCopy() EC2NodeClassSpec {
	out := in
	out.SubnetSelectorTerms = nil
	for _, t := range in.SubnetSelectorTerms {
		out.SubnetSelectorTerms = append(out.SubnetSelectorTerms, SubnetSelectorTerm{Tags: copyMap(t.Tags), ID: t.ID})
	}
	out.SecurityGroupSelectorTerms = nil
	for _, t := range in.SecurityGroupSelectorTerms {
		t.Tags = copyMap(t.Tags)
		out.SecurityGroupSelectorTerms = append(out.SecurityGroupSelectorTerms, t)
	}
	out.CapacityReservationSelectorTerms = nil
	for _, t := range in.CapacityReservationSelectorTerms {
		t.Tags = copyMap(t.Tags)
		out.CapacityReservationSelectorTerms = append(out.CapacityReservationSelectorTerms, t)
	}
	out.AMISelectorTerms = nil
	for _, t := range in.AMISelectorTerms {
		t.Tags = copyMap(t.Tags)
		out.AMISelectorTerms = append(out.AMISelectorTerms, t)
	}
	keepEmpty(&out.SubnetSelectorTerms, in.SubnetSelectorTerms)
	keepEmpty(&out.SecurityGroupSelectorTerms, in.SecurityGroupSelectorTerms)
	keepEmpty(&out.CapacityReservationSelectorTerms, in.CapacityReservationSelectorTerms)
	keepEmpty(&out.AMISelectorTerms, in.AMISelectorTerms)
	out.AssociatePublicIPAddress = copyPtr(in.AssociatePublicIPAddress)
	out.AMIFamily = copyPtr(in.AMIFamily)
	out.UserData = copyPtr(in.UserData)
	out.InstanceProfile = copyPtr(in.InstanceProfile)
	out.Tags = copyMap(in.Tags)
	out.Kubelet = in.Kubelet.DeepCopy()
	out.BlockDeviceMappings = copyBlockDeviceMappings(in.BlockDeviceMappings)
	out.InstanceStorePolicy = copyPtr(in.InstanceStorePolicy)
	out.DetailedMonitoring = copyPtr(in.DetailedMonitoring)
	if in.MetadataOptions != nil {
		m := in.MetadataOptions
		out.MetadataOptions = &MetadataOptions{
			HTTPEndpoint:            copyPtr(m.HTTPEndpoint),
			HTTPProtocolIPv6:        copyPtr(m.HTTPProtocolIPv6),
			HTTPPutResponseHopLimit: copyPtr(m.HTTPPutResponseHopLimit),
			HTTPTokens:              copyPtr(m.HTTPTokens),
		}
	}
	out.Context = copyPtr(in.Context)
	in.copyLaunchSettings(&out)
	return out
}

// keepEmpty keeps a non-nil empty slice non-nil in the copy, so that copies
// compare equal to their original.
func keepEmpty[T any](out *[]T, in []T) {
	if *out == nil && in != nil {
		*out = []T{}
	}
}

// DeepCopy returns a copy of the kubelet settings sharing no memory.
func (in *KubeletConfiguration) DeepCopy() *KubeletConfiguration {
	if in == nil {
		return nil
	}
	return &KubeletConfiguration{
		ClusterDNS:                  slices.Clone(in.ClusterDNS),
		MaxPods:                     copyPtr(in.MaxPods),
		PodsPerCore:                 copyPtr(in.PodsPerCore),
		SystemReserved:              copyMap(in.SystemReserved),
		KubeReserved:                copyMap(in.KubeReserved),
		EvictionHard:                copyMap(in.EvictionHard),
		EvictionSoft:                copyMap(in.EvictionSoft),
		EvictionSoftGracePeriod:     copyMap(in.EvictionSoftGracePeriod),
		EvictionMaxPodGracePeriod:   copyPtr(in.EvictionMaxPodGracePeriod),
		ImageGCHighThresholdPercent: copyPtr(in.ImageGCHighThresholdPercent),
		ImageGCLowThresholdPercent:  copyPtr(in.ImageGCLowThresholdPercent),
		CPUCFSQuota:                 copyPtr(in.CPUCFSQuota),
	}
}

func copyBlockDeviceMappings(in []*BlockDeviceMapping) []*BlockDeviceMapping {
	if in == nil {
		return nil
	}
	out := make([]*BlockDeviceMapping, len(in))
	for i, m := range in {
		if m == nil {
			continue
		}
		c := &BlockDeviceMapping{DeviceName: copyPtr(m.DeviceName), RootVolume: m.RootVolume}
		if e := m.EBS; e != nil {
			c.EBS = &BlockDevice{
				DeleteOnTermination:      copyPtr(e.DeleteOnTermination),
				Encrypted:                copyPtr(e.Encrypted),
				IOPS:                     copyPtr(e.IOPS),
				KMSKeyID:                 copyPtr(e.KMSKeyID),
				SnapshotID:               copyPtr(e.SnapshotID),
				Throughput:               copyPtr(e.Throughput),
				VolumeInitializationRate: copyPtr(e.VolumeInitializationRate),
				VolumeType:               copyPtr(e.VolumeType),
			}
			if e.VolumeSize != nil {
				q := e.VolumeSize.DeepCopy()
				c.EBS.VolumeSize = &q
			}
		}
		out[i] = c
	}
	return out
}

// DeepCopy returns a copy of the status sharing no memory.
func (in EC2NodeClassStatus) DeepCopy() EC2NodeClassStatus {
	out := in
	out.Subnets = slices.Clone(in.Subnets)
	out.SecurityGroups = slices.Clone(in.SecurityGroups)
	out.CapacityReservations = nil
	if in.CapacityReservations != nil {
		out.CapacityReservations = make([]CapacityReservation, len(in.CapacityReservations))
		for i, r := range in.CapacityReservations {
			r.EndTime = r.EndTime.DeepCopy()
			out.CapacityReservations[i] = r
		}
	}
	out.AMIs = nil
	if in.AMIs != nil {
		out.AMIs = make([]AMI, len(in.AMIs))
		for i, a := range in.AMIs {
			reqs := a.Requirements
			a.Requirements = nil
			if reqs != nil {
				a.Requirements = make([]corev1.NodeSelectorRequirement, len(reqs))
				for j := range reqs {
					reqs[j].DeepCopyInto(&a.Requirements[j])
				}
			}
			out.AMIs[i] = a
		}
	}
	out.Conditions = copyConditions(in.Conditions)
	return out
}
