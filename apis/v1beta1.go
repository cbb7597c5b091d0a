package apis

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The v1beta1 types below hold what karpsim reads from karpenter.sh/v1beta1
// and karpenter.k8s.aws/v1beta1 manifests, only to convert them to v1 (see
// the ConvertToV1 methods). Fields keep their v1beta1 JSON names.

// Annotations Karpenter's v1 conversion reads or writes, beside
// AnnotationKubeletCompatibility and AnnotationNodeClassReferenceCompat.
const (
	AnnotationAliasVersionCompat = "compatibility.karpenter.k8s.aws/v1beta1-alias-version"
	AnnotationUbuntuCompat       = "compatibility.karpenter.k8s.aws/v1beta1-ubuntu"
)

// Values of AnnotationUbuntuCompat, comma-separated: what the conversion of
// an Ubuntu EC2NodeClass changed.
const (
	UbuntuCompatAMIFamily           = "amiFamily"
	UbuntuCompatBlockDeviceMappings = "blockDeviceMappings"
	UbuntuCompatIncompatible        = "incompatible"
)

// AMIFamilyUbuntu is the v1beta1 AMI family that v1 no longer has.
const AMIFamilyUbuntu = "Ubuntu"

// ConsolidationPolicyWhenUnderutilized is the v1beta1 policy that v1 calls
// WhenEmptyOrUnderutilized.
const ConsolidationPolicyWhenUnderutilized ConsolidationPolicy = "WhenUnderutilized"

// NodePoolV1Beta1 is a karpenter.sh/v1beta1 NodePool.
type NodePoolV1Beta1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NodePoolSpecV1Beta1   `json:"spec"`
	Status NodePoolStatusV1Beta1 `json:"status,omitempty"`
}

// NodePoolSpecV1Beta1 is the spec of a v1beta1 NodePool.
type NodePoolSpecV1Beta1 struct {
	Template   NodeClaimTemplateV1Beta1 `json:"template"`
	Disruption DisruptionV1Beta1        `json:"disruption"`
	Limits     corev1.ResourceList      `json:"limits,omitempty"`
	Weight     *int32                   `json:"weight,omitempty"`
}

// NodePoolStatusV1Beta1 is the status of a v1beta1 NodePool.
type NodePoolStatusV1Beta1 struct {
	Resources  corev1.ResourceList `json:"resources,omitempty"`
	Conditions []ConditionV1Beta1  `json:"conditions,omitempty"`
}

// NodeClaimTemplateV1Beta1 is a v1beta1 NodePool's template.
type NodeClaimTemplateV1Beta1 struct {
	ObjectMeta TemplateMetadata     `json:"metadata,omitempty"`
	Spec       NodeClaimSpecV1Beta1 `json:"spec"`
}

// NodeClaimSpecV1Beta1 is a v1beta1 NodeClaim's spec, also used in
// v1beta1 NodePool templates.
type NodeClaimSpecV1Beta1 struct {
	Taints        []corev1.Taint                         `json:"taints,omitempty"`
	StartupTaints []corev1.Taint                         `json:"startupTaints,omitempty"`
	Requirements  []NodeSelectorRequirementWithMinValues `json:"requirements"`
	Resources     ResourceRequirements                   `json:"resources,omitempty"`
	Kubelet       *KubeletConfiguration                  `json:"kubelet,omitempty"`
	NodeClassRef  *NodeClassReferenceV1Beta1             `json:"nodeClassRef"`
}

// NodeClassReferenceV1Beta1 names a node class by apiVersion, kind and name;
// apiVersion and kind were optional.
type NodeClassReferenceV1Beta1 struct {
	Kind       string `json:"kind,omitempty"`
	Name       string `json:"name"`
	APIVersion string `json:"apiVersion,omitempty"`
}

// DisruptionV1Beta1 holds v1beta1 disruption settings, including
// expireAfter, which v1 moved into the template.
type DisruptionV1Beta1 struct {
	ConsolidateAfter    *NillableDuration   `json:"consolidateAfter,omitempty"`
	ConsolidationPolicy ConsolidationPolicy `json:"consolidationPolicy,omitempty"`
	ExpireAfter         NillableDuration    `json:"expireAfter,omitzero"`
	Budgets             []BudgetV1Beta1     `json:"budgets,omitzero"`
}

// BudgetV1Beta1 is a v1beta1 disruption budget (it had no reasons).
type BudgetV1Beta1 struct {
	Nodes    string           `json:"nodes"`
	Schedule *string          `json:"schedule,omitempty"`
	Duration *metav1.Duration `json:"duration,omitempty"`
}

// ConditionV1Beta1 is a status condition as v1beta1 objects wrote it.
type ConditionV1Beta1 struct {
	Type               string                 `json:"type"`
	Status             metav1.ConditionStatus `json:"status"`
	Severity           string                 `json:"severity,omitempty"`
	LastTransitionTime metav1.Time            `json:"lastTransitionTime,omitempty"`
	Reason             string                 `json:"reason,omitempty"`
	Message            string                 `json:"message,omitempty"`
}

// NodeClaimV1Beta1 is a karpenter.sh/v1beta1 NodeClaim.
type NodeClaimV1Beta1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NodeClaimSpecV1Beta1   `json:"spec"`
	Status NodeClaimStatusV1Beta1 `json:"status,omitempty"`
}

// NodeClaimStatusV1Beta1 is the status of a v1beta1 NodeClaim.
type NodeClaimStatusV1Beta1 struct {
	NodeName    string              `json:"nodeName,omitempty"`
	ProviderID  string              `json:"providerID,omitempty"`
	ImageID     string              `json:"imageID,omitempty"`
	Capacity    corev1.ResourceList `json:"capacity,omitempty"`
	Allocatable corev1.ResourceList `json:"allocatable,omitempty"`
	Conditions  []ConditionV1Beta1  `json:"conditions,omitempty"`
}

// EC2NodeClassV1Beta1 is a karpenter.k8s.aws/v1beta1 EC2NodeClass.
type EC2NodeClassV1Beta1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EC2NodeClassSpecV1Beta1   `json:"spec,omitempty"`
	Status EC2NodeClassStatusV1Beta1 `json:"status,omitempty"`
}

// EC2NodeClassSpecV1Beta1 is the spec of a v1beta1 EC2NodeClass.
type EC2NodeClassSpecV1Beta1 struct {
	SubnetSelectorTerms        []SubnetSelectorTerm        `json:"subnetSelectorTerms"`
	SecurityGroupSelectorTerms []SecurityGroupSelectorTerm `json:"securityGroupSelectorTerms"`
	AssociatePublicIPAddress   *bool                       `json:"associatePublicIPAddress,omitempty"`
	AMISelectorTerms           []AMISelectorTermV1Beta1    `json:"amiSelectorTerms,omitempty"`
	AMIFamily                  *string                     `json:"amiFamily,omitempty"`
	UserData                   *string                     `json:"userData,omitempty"`
	Role                       string                      `json:"role,omitempty"`
	InstanceProfile            *string                     `json:"instanceProfile,omitempty"`
	Tags                       map[string]string           `json:"tags,omitempty"`
	BlockDeviceMappings        []*BlockDeviceMapping       `json:"blockDeviceMappings,omitempty"`
	InstanceStorePolicy        *InstanceStorePolicy        `json:"instanceStorePolicy,omitempty"`
	DetailedMonitoring         *bool                       `json:"detailedMonitoring,omitempty"`
	MetadataOptions            *MetadataOptions            `json:"metadataOptions,omitempty"`
	Context                    *string                     `json:"context,omitempty"`
}

// AMISelectorTermV1Beta1 is a v1beta1 AMI selector term (no alias).
type AMISelectorTermV1Beta1 struct {
	Tags  map[string]string `json:"tags,omitempty"`
	ID    string            `json:"id,omitempty"`
	Name  string            `json:"name,omitempty"`
	Owner string            `json:"owner,omitempty"`
}

// EC2NodeClassStatusV1Beta1 is the status of a v1beta1 EC2NodeClass.
type EC2NodeClassStatusV1Beta1 struct {
	Subnets         []Subnet           `json:"subnets,omitempty"`
	SecurityGroups  []SecurityGroup    `json:"securityGroups,omitempty"`
	AMIs            []AMI              `json:"amis,omitempty"`
	InstanceProfile string             `json:"instanceProfile,omitempty"`
	Conditions      []ConditionV1Beta1 `json:"conditions,omitempty"`
}
