package apis

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Change is one edit a v1beta1 to v1 conversion made, for a warning.
type Change struct {
	// Path is the field in the v1 object (or the v1beta1 field it came from).
	Path string
	// Message says what the value was, what it became, and why.
	Message string
}

// String returns "path: message".
func (c Change) String() string { return c.Path + ": " + c.Message }

// ConvertToV1 converts the NodePool to karpenter.sh/v1 the way Karpenter's
// conversion webhook did, after applying the v1beta1 CRD defaults, and
// lists what changed. It does not modify in. The result still needs
// SetDefaults and Validate.
//
// One rule differs on purpose: v1beta1 refused consolidateAfter together
// with WhenUnderutilized, and Karpenter's conversion replaced it with 0s; a
// manifest that sets both (the API server never stored one) keeps its
// value, which v1 honours, and a Change says so.
func (in *NodePoolV1Beta1) ConvertToV1() (*NodePool, []Change) {
	src := in.Spec
	out := &NodePool{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupV1, Kind: KindNodePool},
		Spec: NodePoolSpec{
			Limits: src.Limits.DeepCopy(),
			Weight: copyPtr(src.Weight),
		},
		Status: NodePoolStatus{Resources: in.Status.Resources.DeepCopy(), Conditions: convertConditions(in.Status.Conditions)},
	}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	changes := []Change{{Path: "apiVersion", Message: GroupV1B1 + " → " + GroupV1}}
	out.Spec.Disruption, changes = convertDisruption(src.Disruption, changes)
	tmpl := src.Template.Spec
	out.Spec.Template = NodeClaimTemplate{
		ObjectMeta: TemplateMetadata{
			Labels:      copyMap(src.Template.ObjectMeta.Labels),
			Annotations: copyMap(src.Template.ObjectMeta.Annotations),
		},
		Spec: NodeClaimTemplateSpec{
			Taints:        CopyTaints(tmpl.Taints),
			StartupTaints: CopyTaints(tmpl.StartupTaints),
			Requirements:  CopyRequirements(tmpl.Requirements),
		},
	}
	if d := src.Disruption.ExpireAfter; d.IsSet() {
		out.Spec.Template.Spec.ExpireAfter = d.DeepCopy()
		changes = append(changes, Change{"spec.disruption.expireAfter", fmt.Sprintf("moved to spec.template.spec.expireAfter (%s)", d)})
	}
	var refChange *Change
	out.Spec.Template.Spec.NodeClassRef, refChange = convertNodeClassRef("spec.template.spec.nodeClassRef", tmpl.NodeClassRef)
	if refChange != nil {
		changes = append(changes, *refChange)
	}
	if len(tmpl.Resources.Requests) > 0 {
		changes = append(changes, Change{"spec.template.spec.resources", "dropped: v1 NodePool templates have no resources, and v1beta1 NodePools never used them"})
	}
	if tmpl.Kubelet != nil {
		setAnnotation(&out.ObjectMeta, AnnotationKubeletCompatibility, kubeletJSON(tmpl.Kubelet))
		changes = append(changes, Change{"spec.template.spec.kubelet", fmt.Sprintf(
			"moved to the %s annotation: in v1 kubelet settings belong to the EC2NodeClass, which karpsim gives them when it has none of its own", AnnotationKubeletCompatibility)})
	}
	return out, changes
}

// convertDisruption applies the v1beta1 defaults (WhenUnderutilized, 10%
// budget) and maps the policy and consolidateAfter to v1.
func convertDisruption(in DisruptionV1Beta1, changes []Change) (Disruption, []Change) {
	policy := in.ConsolidationPolicy
	if policy == "" {
		policy = ConsolidationPolicyWhenUnderutilized
	}
	out := Disruption{ConsolidationPolicy: policy}
	if in.Budgets != nil {
		out.Budgets = make([]Budget, len(in.Budgets))
		for i, b := range in.Budgets {
			out.Budgets[i] = Budget{Nodes: b.Nodes, Schedule: copyPtr(b.Schedule), Duration: copyPtr(b.Duration)}
		}
	}
	path := "spec.disruption."
	if policy == ConsolidationPolicyWhenUnderutilized {
		out.ConsolidationPolicy = ConsolidationPolicyWhenEmptyOrUnderutilized
		changes = append(changes, Change{path + "consolidationPolicy", fmt.Sprintf("%s → %s", policy, out.ConsolidationPolicy)})
		if in.ConsolidateAfter == nil {
			out.ConsolidateAfter = NewNillableDuration(0)
			changes = append(changes, Change{path + "consolidateAfter", "not set → 0s: v1 requires it, and v1beta1's WhenUnderutilized consolidated without waiting"})
			return out, changes
		}
		out.ConsolidateAfter = in.ConsolidateAfter.DeepCopy()
		changes = append(changes, Change{path + "consolidateAfter", fmt.Sprintf(
			"%s kept: karpenter.sh/v1beta1 refused consolidateAfter with WhenUnderutilized (its conversion would have reset it to 0s), but v1 honours it: nodes now wait %s after their last pod change before consolidation",
			in.ConsolidateAfter, in.ConsolidateAfter)})
		return out, changes
	}
	if in.ConsolidateAfter != nil {
		out.ConsolidateAfter = in.ConsolidateAfter.DeepCopy()
	} else if policy == ConsolidationPolicyWhenEmpty {
		out.ConsolidateAfter = NewNillableDuration(0)
		changes = append(changes, Change{path + "consolidateAfter", "not set → 0s: v1beta1 required it with WhenEmpty, and v1 requires it"})
	}
	return out, changes
}

// convertNodeClassRef fills in the group and kind that v1 requires, from
// apiVersion or as karpenter.k8s.aws EC2NodeClass. The Change is nil when
// nothing had to be filled in.
func convertNodeClassRef(path string, in *NodeClassReferenceV1Beta1) (*NodeClassReference, *Change) {
	if in == nil {
		return nil, nil
	}
	out := &NodeClassReference{Group: AWSGroup, Kind: in.Kind, Name: in.Name}
	if in.APIVersion != "" {
		group, _, found := strings.Cut(in.APIVersion, "/")
		out.Group = group
		if !found {
			out.Group = ""
		}
	}
	if out.Kind == "" {
		out.Kind = KindEC2NodeClass
	}
	if in.APIVersion != "" && in.Kind != "" {
		return out, nil
	}
	var was []string
	for _, f := range [][2]string{{"apiVersion", in.APIVersion}, {"kind", in.Kind}, {"name", in.Name}} {
		if f[1] != "" {
			was = append(was, f[0]+": "+f[1])
		}
	}
	return out, &Change{path, fmt.Sprintf("{%s} → {group: %s, kind: %s, name: %s}", strings.Join(was, ", "), out.Group, out.Kind, out.Name)}
}

func kubeletJSON(k *KubeletConfiguration) string {
	data, err := json.Marshal(k)
	if err != nil {
		// A KubeletConfiguration holds only strings, numbers and durations,
		// which always marshal.
		return "{}"
	}
	return string(data)
}

func setAnnotation(meta *metav1.ObjectMeta, k, v string) {
	if meta.Annotations == nil {
		meta.Annotations = map[string]string{}
	}
	meta.Annotations[k] = v
}

func convertConditions(in []ConditionV1Beta1) []metav1.Condition {
	if in == nil {
		return nil
	}
	out := make([]metav1.Condition, len(in))
	for i, c := range in {
		out[i] = metav1.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}
		c.LastTransitionTime.DeepCopyInto(&out[i].LastTransitionTime)
	}
	return out
}

// ConvertToV1 converts the NodeClaim to karpenter.sh/v1 as Karpenter's
// conversion did, and lists what changed. It does not modify in. The
// original nodeClassRef is kept in AnnotationNodeClassReferenceCompat and
// any kubelet settings in AnnotationKubeletCompatibility. Karpenter took
// spec.expireAfter from the claim's NodePool; the caller does that (the
// result leaves it unset).
func (in *NodeClaimV1Beta1) ConvertToV1() (*NodeClaim, []Change) {
	src := in.Spec
	out := &NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: GroupV1, Kind: KindNodeClaim},
		Spec: NodeClaimSpec{
			Taints:        CopyTaints(src.Taints),
			StartupTaints: CopyTaints(src.StartupTaints),
			Requirements:  CopyRequirements(src.Requirements),
			Resources:     ResourceRequirements{Requests: src.Resources.Requests.DeepCopy()},
		},
		Status: NodeClaimStatus{
			NodeName: in.Status.NodeName, ProviderID: in.Status.ProviderID, ImageID: in.Status.ImageID,
			Capacity: in.Status.Capacity.DeepCopy(), Allocatable: in.Status.Allocatable.DeepCopy(),
			Conditions: convertConditions(in.Status.Conditions),
		},
	}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	changes := []Change{{Path: "apiVersion", Message: GroupV1B1 + " → " + GroupV1}}
	var refChange *Change
	out.Spec.NodeClassRef, refChange = convertNodeClassRef("spec.nodeClassRef", src.NodeClassRef)
	if refChange != nil {
		changes = append(changes, *refChange)
	}
	if src.NodeClassRef != nil {
		ref, _ := json.Marshal(src.NodeClassRef)
		setAnnotation(&out.ObjectMeta, AnnotationNodeClassReferenceCompat, string(ref))
	}
	if src.Kubelet != nil {
		setAnnotation(&out.ObjectMeta, AnnotationKubeletCompatibility, kubeletJSON(src.Kubelet))
		changes = append(changes, Change{"spec.kubelet", fmt.Sprintf("moved to the %s annotation (v1 NodeClaims have no kubelet settings)", AnnotationKubeletCompatibility)})
	}
	return out, changes
}

// ConvertToV1 converts the EC2NodeClass to karpenter.k8s.aws/v1 as the AWS
// provider's conversion did, and lists what changed. It does not modify
// in. The result still needs SetDefaults and Validate.
func (in *EC2NodeClassV1Beta1) ConvertToV1() (*EC2NodeClass, []Change) {
	src := in.Spec
	out := &EC2NodeClass{TypeMeta: metav1.TypeMeta{APIVersion: AWSGroupV1, Kind: KindEC2NodeClass}}
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	delete(out.Annotations, AnnotationAliasVersionCompat)
	if len(out.Annotations) == 0 {
		out.Annotations = nil
	}
	spec := EC2NodeClassSpec{
		SubnetSelectorTerms:        src.SubnetSelectorTerms,
		SecurityGroupSelectorTerms: src.SecurityGroupSelectorTerms,
		AssociatePublicIPAddress:   src.AssociatePublicIPAddress,
		AMIFamily:                  src.AMIFamily,
		UserData:                   src.UserData,
		Role:                       src.Role,
		InstanceProfile:            src.InstanceProfile,
		Tags:                       src.Tags,
		BlockDeviceMappings:        src.BlockDeviceMappings,
		InstanceStorePolicy:        src.InstanceStorePolicy,
		DetailedMonitoring:         src.DetailedMonitoring,
		MetadataOptions:            src.MetadataOptions,
		Context:                    src.Context,
	}
	for _, t := range src.AMISelectorTerms {
		spec.AMISelectorTerms = append(spec.AMISelectorTerms, AMISelectorTerm{Tags: t.Tags, ID: t.ID, Name: t.Name, Owner: t.Owner})
	}
	// Deep-copy what was shared with in before editing it.
	out.Spec = spec.DeepCopy()
	changes := []Change{{Path: "apiVersion", Message: AWSGroupV1B + " → " + AWSGroupV1}}
	changes = convertAMIFamily(in, out, changes)
	out.Status = EC2NodeClassStatus{
		Subnets: in.Status.Subnets, SecurityGroups: in.Status.SecurityGroups, AMIs: in.Status.AMIs,
		InstanceProfile: in.Status.InstanceProfile, Conditions: convertConditions(in.Status.Conditions),
	}.DeepCopy()
	return out, changes
}

// convertAMIFamily maps amiFamily and amiSelectorTerms: an EKS-optimized
// family without terms becomes an alias; Ubuntu becomes AL2 with Ubuntu's
// root volume; anything else becomes Custom.
func convertAMIFamily(in *EC2NodeClassV1Beta1, out *EC2NodeClass, changes []Change) []Change {
	family := ""
	if in.Spec.AMIFamily != nil {
		family = *in.Spec.AMIFamily
	}
	noTerms := len(in.Spec.AMISelectorTerms) == 0
	switch family {
	case AMIFamilyAL2, AMIFamilyAL2023, AMIFamilyBottlerocket, AMIFamilyWindows2019, AMIFamilyWindows2022:
		if !noTerms {
			return changes
		}
		version := in.Annotations[AnnotationAliasVersionCompat]
		if version == "" {
			version = AliasVersionLatest
		}
		alias := Alias{Family: family, Version: version}.String()
		out.Spec.AMIFamily = nil
		out.Spec.AMISelectorTerms = []AMISelectorTerm{{Alias: alias}}
		return append(changes,
			Change{"spec.amiSelectorTerms", fmt.Sprintf("none → [{alias: %s}] (v1 requires terms; v1beta1 used the latest %s AMI)", alias, family)},
			Change{"spec.amiFamily", fmt.Sprintf("%s → not set (the alias implies it)", family)})
	case AMIFamilyUbuntu:
		return convertUbuntu(out, noTerms, changes)
	case AMIFamilyCustom:
		return changes
	default:
		out.Spec.AMIFamily = new(string)
		*out.Spec.AMIFamily = AMIFamilyCustom
		was := "not set"
		if family != "" {
			was = fmt.Sprintf("%q", family)
		}
		return append(changes, Change{"spec.amiFamily", fmt.Sprintf("%s → %s", was, AMIFamilyCustom)})
	}
}

func convertUbuntu(out *EC2NodeClass, noTerms bool, changes []Change) []Change {
	specifiers := []string{UbuntuCompatAMIFamily}
	al2 := AMIFamilyAL2
	out.Spec.AMIFamily = &al2
	changes = append(changes, Change{"spec.amiFamily", "Ubuntu → AL2: v1 has no Ubuntu family; AL2 user data has the same format"})
	if out.Spec.BlockDeviceMappings == nil {
		specifiers = append(specifiers, UbuntuCompatBlockDeviceMappings)
		size := resource.MustParse("20Gi")
		device, volumeType, encrypted := "/dev/sda1", "gp3", true
		out.Spec.BlockDeviceMappings = []*BlockDeviceMapping{{
			DeviceName: &device, RootVolume: true,
			EBS: &BlockDevice{Encrypted: &encrypted, VolumeType: &volumeType, VolumeSize: &size},
		}}
		changes = append(changes, Change{"spec.blockDeviceMappings", "none → [{deviceName: /dev/sda1, rootVolume: true, ebs: {volumeSize: 20Gi, volumeType: gp3, encrypted: true}}] (Ubuntu's default root volume)"})
	}
	if noTerms {
		specifiers = append(specifiers, UbuntuCompatIncompatible)
		out.Spec.AMISelectorTerms = []AMISelectorTerm{{ID: "ami-placeholder"}}
		changes = append(changes, Change{"spec.amiSelectorTerms", "none → [{id: ami-placeholder}]: Karpenter v1 cannot discover Ubuntu AMIs, so this EC2NodeClass never becomes ready"})
	}
	setAnnotation(&out.ObjectMeta, AnnotationUbuntuCompat, strings.Join(specifiers, ","))
	return changes
}
