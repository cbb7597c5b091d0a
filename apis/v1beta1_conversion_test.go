package apis

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

func changeStrings(changes []Change) []string {
	out := make([]string, len(changes))
	for i, c := range changes {
		out[i] = c.String()
	}
	return out
}

// unchanged fails the test when convert modified its input.
func unchanged(t *testing.T, in any, convert func()) {
	t.Helper()
	before, err := json.Marshal(in)
	require.NoError(t, err)
	convert()
	after, err := json.Marshal(in)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after), "the conversion modified its input")
}

func TestNodePoolConvertToV1(t *testing.T) {
	var in NodePoolV1Beta1
	require.NoError(t, yaml.UnmarshalStrict([]byte(`
apiVersion: karpenter.sh/v1beta1
kind: NodePool
metadata: {name: batch, annotations: {team: a}}
spec:
  weight: 10
  limits: {cpu: "100"}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 5m
    expireAfter: Never
    budgets: [{nodes: "2", schedule: "@daily", duration: 1h}]
  template:
    metadata: {labels: {tier: batch}}
    spec:
      requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot], minValues: 1}]
      taints: [{key: batch, effect: NoSchedule}]
      resources: {requests: {cpu: "1"}}
      kubelet: {maxPods: 50, systemReserved: {cpu: 100m}}
      nodeClassRef: {apiVersion: karpenter.k8s.aws/v1beta1, kind: EC2NodeClass, name: batch}
`), &in))
	var out *NodePool
	var changes []Change
	unchanged(t, &in, func() { out, changes = in.ConvertToV1() })
	assert.Equal(t, []string{
		"apiVersion: karpenter.sh/v1beta1 → karpenter.sh/v1",
		"spec.disruption.expireAfter: moved to spec.template.spec.expireAfter (Never)",
		"spec.template.spec.resources: dropped: v1 NodePool templates have no resources, and v1beta1 NodePools never used them",
		"spec.template.spec.kubelet: moved to the compatibility.karpenter.sh/v1beta1-kubelet-conversion annotation: in v1 kubelet settings belong to the EC2NodeClass, which karpsim gives them when it has none of its own",
	}, changeStrings(changes))
	assert.Equal(t, NodePoolSpec{
		Weight: ptr(int32(10)),
		Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")},
		Disruption: Disruption{
			ConsolidationPolicy: ConsolidationPolicyWhenEmpty,
			ConsolidateAfter:    NewNillableDuration(5 * time.Minute),
			Budgets:             []Budget{{Nodes: "2", Schedule: ptr("@daily"), Duration: &metav1.Duration{Duration: time.Hour}}},
		},
		Template: NodeClaimTemplate{
			ObjectMeta: TemplateMetadata{Labels: map[string]string{"tier": "batch"}},
			Spec: NodeClaimTemplateSpec{
				Requirements: []NodeSelectorRequirementWithMinValues{{Key: LabelCapacityType, Operator: corev1.NodeSelectorOpIn, Values: []string{"spot"}, MinValues: ptr(1)}},
				Taints:       []corev1.Taint{{Key: "batch", Effect: corev1.TaintEffectNoSchedule}},
				NodeClassRef: &NodeClassReference{Group: AWSGroup, Kind: KindEC2NodeClass, Name: "batch"},
				ExpireAfter:  NeverDuration(),
			},
		},
	}, out.Spec)
	assert.Equal(t, map[string]string{"team": "a", AnnotationKubeletCompatibility: `{"maxPods":50,"systemReserved":{"cpu":"100m"}}`}, out.Annotations)
	assert.Equal(t, metav1.TypeMeta{APIVersion: GroupV1, Kind: KindNodePool}, out.TypeMeta)
	out.SetDefaults()
	assert.NoError(t, out.Validate())
}

func TestNodePoolConvertDefaults(t *testing.T) {
	in := &NodePoolV1Beta1{ObjectMeta: metav1.ObjectMeta{Name: "a"}}
	in.Spec.Template.Spec.NodeClassRef = &NodeClassReferenceV1Beta1{Name: "a"}
	out, changes := in.ConvertToV1()
	assert.Equal(t, []string{
		"apiVersion: karpenter.sh/v1beta1 → karpenter.sh/v1",
		"spec.disruption.consolidationPolicy: WhenUnderutilized → WhenEmptyOrUnderutilized",
		"spec.disruption.consolidateAfter: not set → 0s: v1 requires it, and v1beta1's WhenUnderutilized consolidated without waiting",
		"spec.template.spec.nodeClassRef: {name: a} → {group: karpenter.k8s.aws, kind: EC2NodeClass, name: a}",
	}, changeStrings(changes))
	out.SetDefaults()
	assert.Equal(t, NewNillableDuration(DefaultExpireAfter), out.Spec.Template.Spec.ExpireAfter, "v1beta1's default expireAfter equals v1's")
	assert.Equal(t, []Budget{{Nodes: "10%"}}, out.Spec.Disruption.Budgets)
}

func TestNodeClaimConvertToV1(t *testing.T) {
	in := &NodeClaimV1Beta1{ObjectMeta: metav1.ObjectMeta{Name: "default-x", Labels: map[string]string{LabelNodePool: "default"}}}
	in.Spec.NodeClassRef = &NodeClassReferenceV1Beta1{Kind: "EC2NodeClass", Name: "default"}
	in.Spec.Kubelet = &KubeletConfiguration{MaxPods: ptr(intstr.FromInt32(20))}
	in.Status.Conditions = []ConditionV1Beta1{{Type: "Initialized", Status: metav1.ConditionTrue, Severity: "Info", Reason: "Done"}}
	var out *NodeClaim
	var changes []Change
	unchanged(t, in, func() { out, changes = in.ConvertToV1() })
	assert.Equal(t, []string{
		"apiVersion: karpenter.sh/v1beta1 → karpenter.sh/v1",
		"spec.nodeClassRef: {kind: EC2NodeClass, name: default} → {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}",
		"spec.kubelet: moved to the compatibility.karpenter.sh/v1beta1-kubelet-conversion annotation (v1 NodeClaims have no kubelet settings)",
	}, changeStrings(changes))
	assert.Equal(t, `{"kind":"EC2NodeClass","name":"default"}`, out.Annotations[AnnotationNodeClassReferenceCompat])
	assert.Equal(t, []metav1.Condition{{Type: "Initialized", Status: metav1.ConditionTrue, Reason: "Done"}}, out.Status.Conditions)
	assert.False(t, out.Spec.ExpireAfter.IsSet(), "expireAfter comes from the NodePool, which the caller finds")
}

func TestEC2NodeClassConvertToV1(t *testing.T) {
	base := func(family string, annotations map[string]string) *EC2NodeClassV1Beta1 {
		nc := &EC2NodeClassV1Beta1{ObjectMeta: metav1.ObjectMeta{Name: "a", Annotations: annotations}}
		if family != "" {
			nc.Spec.AMIFamily = &family
		}
		nc.Spec.Role = "r"
		nc.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{ID: "subnet-1"}}
		nc.Spec.SecurityGroupSelectorTerms = []SecurityGroupSelectorTerm{{ID: "sg-1"}}
		return nc
	}
	cases := []struct {
		name        string
		in          *EC2NodeClassV1Beta1
		family      *string
		terms       []AMISelectorTerm
		annotations map[string]string
		changes     []string
		valid       bool
	}{
		{name: "bottlerocket pinned by annotation", in: base(AMIFamilyBottlerocket, map[string]string{AnnotationAliasVersionCompat: "v1.20.0"}),
			terms: []AMISelectorTerm{{Alias: "bottlerocket@v1.20.0"}}, valid: true, changes: []string{
				"apiVersion: karpenter.k8s.aws/v1beta1 → karpenter.k8s.aws/v1",
				"spec.amiSelectorTerms: none → [{alias: bottlerocket@v1.20.0}] (v1 requires terms; v1beta1 used the latest Bottlerocket AMI)",
				"spec.amiFamily: Bottlerocket → not set (the alias implies it)"}},
		{name: "AL2023 with terms keeps its family", in: func() *EC2NodeClassV1Beta1 {
			nc := base(AMIFamilyAL2023, nil)
			nc.Spec.AMISelectorTerms = []AMISelectorTermV1Beta1{{ID: "ami-1"}}
			return nc
		}(), family: ptr(AMIFamilyAL2023), terms: []AMISelectorTerm{{ID: "ami-1"}}, valid: true,
			changes: []string{"apiVersion: karpenter.k8s.aws/v1beta1 → karpenter.k8s.aws/v1"}},
		{name: "Ubuntu", in: base(AMIFamilyUbuntu, nil), family: ptr(AMIFamilyAL2), terms: []AMISelectorTerm{{ID: "ami-placeholder"}},
			annotations: map[string]string{AnnotationUbuntuCompat: "amiFamily,blockDeviceMappings,incompatible"}, valid: true, changes: []string{
				"apiVersion: karpenter.k8s.aws/v1beta1 → karpenter.k8s.aws/v1",
				"spec.amiFamily: Ubuntu → AL2: v1 has no Ubuntu family; AL2 user data has the same format",
				"spec.blockDeviceMappings: none → [{deviceName: /dev/sda1, rootVolume: true, ebs: {volumeSize: 20Gi, volumeType: gp3, encrypted: true}}] (Ubuntu's default root volume)",
				"spec.amiSelectorTerms: none → [{id: ami-placeholder}]: Karpenter v1 cannot discover Ubuntu AMIs, so this EC2NodeClass never becomes ready"}},
		{name: "no family becomes Custom and needs terms", in: base("", nil), family: ptr(AMIFamilyCustom), changes: []string{
			"apiVersion: karpenter.k8s.aws/v1beta1 → karpenter.k8s.aws/v1",
			"spec.amiFamily: not set → Custom"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out *EC2NodeClass
			var changes []Change
			unchanged(t, c.in, func() { out, changes = c.in.ConvertToV1() })
			assert.Equal(t, c.changes, changeStrings(changes))
			assert.Equal(t, c.family, out.Spec.AMIFamily)
			assert.Equal(t, c.terms, out.Spec.AMISelectorTerms)
			assert.Equal(t, c.annotations, out.Annotations)
			out.SetDefaults()
			assert.Equal(t, c.valid, out.Validate() == nil, "%v", out.Validate())
		})
	}
}
