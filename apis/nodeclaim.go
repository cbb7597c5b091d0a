package apis

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeClaim is a karpenter.sh/v1 NodeClaim: Karpenter's request for one
// node, made from a NodePool's template.
type NodeClaim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   NodeClaimSpec   `json:"spec"`
	Status NodeClaimStatus `json:"status,omitempty"`
}

// NodeClaimSpec is the desired node: the template's fields plus requests.
type NodeClaimSpec struct {
	Taints        []corev1.Taint                         `json:"taints,omitempty"`
	StartupTaints []corev1.Taint                         `json:"startupTaints,omitempty"`
	Requirements  []NodeSelectorRequirementWithMinValues `json:"requirements"`
	// Resources are the requests of the pods the claim was made for, plus
	// daemon overhead.
	Resources              ResourceRequirements `json:"resources,omitempty"`
	NodeClassRef           *NodeClassReference  `json:"nodeClassRef"`
	ExpireAfter            NillableDuration     `json:"expireAfter,omitempty"`
	TerminationGracePeriod *metav1.Duration     `json:"terminationGracePeriod,omitempty"`
}

// ResourceRequirements holds the resources a NodeClaim needs to launch.
type ResourceRequirements struct {
	Requests corev1.ResourceList `json:"requests,omitempty"`
}

// NodeClaimStatus is the observed state of a NodeClaim and its node.
type NodeClaimStatus struct {
	NodeName         string              `json:"nodeName,omitempty"`
	ProviderID       string              `json:"providerID,omitempty"`
	ImageID          string              `json:"imageID,omitempty"`
	Capacity         corev1.ResourceList `json:"capacity,omitempty"`
	Allocatable      corev1.ResourceList `json:"allocatable,omitempty"`
	Conditions       []metav1.Condition  `json:"conditions,omitempty"`
	LastPodEventTime metav1.Time         `json:"lastPodEventTime,omitempty"`
}

// DeepCopy returns a copy of the NodeClaim that shares no memory with it.
func (in *NodeClaim) DeepCopy() *NodeClaim {
	if in == nil {
		return nil
	}
	out := &NodeClaim{TypeMeta: in.TypeMeta}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = NodeClaimSpec{
		Taints:                 CopyTaints(in.Spec.Taints),
		StartupTaints:          CopyTaints(in.Spec.StartupTaints),
		Requirements:           CopyRequirements(in.Spec.Requirements),
		Resources:              ResourceRequirements{Requests: in.Spec.Resources.Requests.DeepCopy()},
		NodeClassRef:           copyPtr(in.Spec.NodeClassRef),
		ExpireAfter:            in.Spec.ExpireAfter.DeepCopy(),
		TerminationGracePeriod: copyPtr(in.Spec.TerminationGracePeriod),
	}
	out.Status = NodeClaimStatus{
		NodeName:    in.Status.NodeName,
		ProviderID:  in.Status.ProviderID,
		ImageID:     in.Status.ImageID,
		Capacity:    in.Status.Capacity.DeepCopy(),
		Allocatable: in.Status.Allocatable.DeepCopy(),
		Conditions:  copyConditions(in.Status.Conditions),
	}
	in.Status.LastPodEventTime.DeepCopyInto(&out.Status.LastPodEventTime)
	return out
}

// SetDefaults fills in the fields the NodeClaim CRD defaults: expireAfter
// 720h.
func (in *NodeClaim) SetDefaults() {
	if !in.Spec.ExpireAfter.IsSet() {
		in.Spec.ExpireAfter = NewNillableDuration(DefaultExpireAfter)
	}
}

// Validate checks the NodeClaim against the karpenter.sh/v1 CRD rules. It
// returns nil or a FieldErrors with every problem found. Unlike a NodePool,
// a NodeClaim may require karpenter.sh/nodepool: Karpenter adds it.
func (in *NodeClaim) Validate() error {
	e := &errs{}
	validateName(e, in.Name)
	validateTaints(e, "spec", in.Spec.Taints, in.Spec.StartupTaints)
	if in.Spec.Requirements == nil {
		e.add("spec.requirements", "required (an empty list is allowed)")
	}
	rules := AWSLabels
	if ref := in.Spec.NodeClassRef; ref != nil {
		rules = LabelRulesFor(ref.Group)
	}
	validateRequirements(e, "spec.requirements", in.Spec.Requirements, false, rules)
	validateNodeClassRef(e, "spec.nodeClassRef", in.Spec.NodeClassRef)
	validateSeconds(e, "spec.expireAfter", in.Spec.ExpireAfter.Duration, true)
	if tgp := in.Spec.TerminationGracePeriod; tgp != nil {
		validateSeconds(e, "spec.terminationGracePeriod", &tgp.Duration, false)
	}
	validateConditionStatuses(e, "status.conditions", in.Status.Conditions)
	return e.list.asError()
}
