package requirements

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

func TestAddIntersectsRequirementsOnTheSameKey(t *testing.T) {
	r := NewRequirements(
		mustNew("zone", in, "a", "b", "c"),
		mustNew("arch", in, "amd64"),
		mustNew("zone", notIn, "b"),
	)
	assert.Equal(t, "arch In [amd64], zone In [a c]", r.String())
	r2 := r.Add(mustNew("zone", in, "c", "d"))
	assert.Equal(t, "arch In [amd64], zone In [c]", r2.String())
	assert.Equal(t, "arch In [amd64], zone In [a c]", r.String(), "Add leaves the receiver alone")
}

func TestGetOfAnUndefinedKeyAllowsAnything(t *testing.T) {
	r := NewRequirements()
	assert.Equal(t, exists, r.Get("anything").Operator())
	assert.False(t, r.Has("anything"))
}

func TestCompatibleDeniesUndefinedCustomLabels(t *testing.T) {
	nodePool := NewRequirements(mustNew(apis.LabelCapacityType, in, "spot"), mustNew("team", in, "a"))
	for _, tc := range []struct {
		name      string
		pod       Requirements
		undefined Undefined
		want      string
	}{
		{"undefined well-known label allowed on new claims", NewRequirements(mustNew(apis.LabelTopologyZone, in, "us-east-1a")), AllowUndefinedWellKnown, ""},
		{"undefined well-known label denied on existing nodes", NewRequirements(mustNew(apis.LabelTopologyZone, in, "us-east-1a")), DenyUndefined,
			`incompatible requirements: label "topology.kubernetes.io/zone" does not have known values`},
		{"undefined custom label denied", NewRequirements(mustNew("gpu", in, "true")), AllowUndefinedWellKnown,
			`incompatible requirements: label "gpu" does not have known values`},
		{"negative on undefined custom label allowed", NewRequirements(mustNew("gpu", notIn, "true"), mustNew("ssd", doesNotExist)), AllowUndefinedWellKnown, ""},
		{"defined label must intersect", NewRequirements(mustNew("team", in, "b")), AllowUndefinedWellKnown,
			`incompatible requirements: team In [b] conflicts with team In [a]`},
		{"well-known label must intersect when defined", NewRequirements(mustNew(apis.LabelCapacityType, in, "on-demand")), AllowUndefinedWellKnown,
			`incompatible requirements: karpenter.sh/capacity-type In [on-demand] conflicts with karpenter.sh/capacity-type In [spot]`},
		{"typo gets a hint", NewRequirements(mustNew("karpenter.sh/capacity-typo", in, "spot")), AllowUndefinedWellKnown,
			`incompatible requirements: label "karpenter.sh/capacity-typo" does not have known values (typo of "karpenter.sh/capacity-type"?)`},
		{"every problem is listed", NewRequirements(mustNew("gpu", in, "true"), mustNew("team", in, "b")), AllowUndefinedWellKnown,
			`incompatible requirements: label "gpu" does not have known values; team In [b] conflicts with team In [a]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := nodePool.Compatible(tc.pod, tc.undefined)
			if tc.want == "" {
				assert.NoError(t, err)
			} else {
				assert.EqualError(t, err, tc.want)
				assert.ErrorIs(t, err, ErrIncompatible)
			}
			assert.Equal(t, tc.want == "", nodePool.CompatibleFast(tc.pod, tc.undefined))
		})
	}
}

func TestLabelsSkipRestrictedAndWellKnownKeys(t *testing.T) {
	r := NewRequirements(
		mustNew("team", in, "b", "a"),
		mustNew("tier", exists),
		mustNew("absent", doesNotExist),
		mustNew(apis.LabelTopologyZone, in, "us-east-1a"),
		mustNew("kubernetes.io/custom", in, "x"),
		mustNew("node.kubernetes.io/role", in, "web"),
	)
	assert.Equal(t, map[string]string{"team": "a", "tier": "0", "node.kubernetes.io/role": "web"}, r.Labels())
}

func TestFromPod(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{
		NodeSelector: map[string]string{"beta.kubernetes.io/arch": "arm64"},
		Affinity: &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: apis.LabelTopologyZone, Operator: in, Values: []string{"us-east-1a", "us-east-1b"}}}},
				{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: apis.LabelTopologyZone, Operator: in, Values: []string{"us-east-1c"}}}},
			}},
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{
				{Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "light", Operator: exists}}}},
				{Weight: 50, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: apis.LabelTopologyZone, Operator: in, Values: []string{"us-east-1b"}}}}},
				{Weight: 50, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "second", Operator: exists}}}},
			},
		}},
	}}
	strict, err := FromPod(pod, StrictOnly)
	require.NoError(t, err)
	assert.Equal(t, "kubernetes.io/arch In [arm64], topology.kubernetes.io/zone In [us-east-1a us-east-1b]", strict.String())
	preferred, err := FromPod(pod, WithPreferences)
	require.NoError(t, err)
	assert.Equal(t, "kubernetes.io/arch In [arm64], topology.kubernetes.io/zone In [us-east-1b]", preferred.String())
	assert.Equal(t, int32(1), pod.Spec.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].Weight, "the pod is not reordered")

	pod.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms[0].MatchFields = []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: in, Values: []string{"n"}}}
	_, err = FromPod(pod, StrictOnly)
	assert.EqualError(t, err, "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchFields: not supported by Karpenter")
}

func TestFromNodePoolIncludesMinValuesAndTemplateLabels(t *testing.T) {
	two := 2
	template := apis.NodeClaimTemplate{}
	template.ObjectMeta.Labels = map[string]string{"team": "web"}
	template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
		{Key: apis.LabelInstanceFamily, Operator: in, Values: []string{"m5", "c5", "r5"}, MinValues: &two},
		{Key: apis.LabelInstanceGeneration, Operator: gt, Values: []string{"2"}},
	}
	r, err := FromNodePool(template)
	require.NoError(t, err)
	assert.Equal(t, "karpenter.k8s.aws/instance-family In [c5 m5 r5] minValues 2, karpenter.k8s.aws/instance-generation Gte 3, team In [web]", r.String())
	assert.True(t, r.HasMinValues())

	template.Spec.Requirements[1].Values = []string{"2", "3"}
	_, err = FromNodePool(template)
	assert.EqualError(t, err, `requirements[1]: requirement "karpenter.k8s.aws/instance-generation": operator Gt takes exactly one integer value, got 2`)
}

func TestChangedKeysAndIntersectsOn(t *testing.T) {
	a := NewRequirements(mustNew("zone", in, "a", "b"), mustNew("arch", in, "amd64"), mustNew("gen", gt, "2"))
	b := a.Add(mustNew("zone", in, "b"), mustNew("host", in, "h1"))
	assert.Equal(t, []string{"host", "zone"}, a.ChangedKeys(b, nil))
	assert.Empty(t, a.ChangedKeys(a, nil))
	assert.Equal(t, []string{"gen"}, a.ChangedKeys(a.Add(mustNew("gen", lt, "9")), nil))

	it := NewRequirements(mustNew("zone", in, "a"), mustNew("arch", in, "arm64"))
	assert.True(t, it.IntersectsOn(b, []string{"host"}), "only the named keys are checked")
	assert.False(t, it.IntersectsOn(b, []string{"zone"}))
	assert.False(t, it.IntersectsOn(b, []string{"arch"}))
}

func TestAllowsFastAgreesWithCompatibleFast(t *testing.T) {
	base := NewRequirements(mustNew("zone", in, "a", "b"), mustNew("team", notIn, "x"))
	for _, req := range []Requirement{
		mustNew("zone", in, "b"), mustNew("zone", in, "c"), mustNew("zone", doesNotExist),
		mustNew("team", in, "x"), mustNew("team", notIn, "y"), mustNew("gpu", in, "true"),
		mustNew("gpu", notIn, "true"), mustNew(apis.LabelInstanceFamily, in, "m5"),
	} {
		for _, undefined := range []Undefined{DenyUndefined, AllowUndefinedWellKnown} {
			assert.Equal(t, base.CompatibleFast(NewRequirements(req), undefined), base.AllowsFast(req, undefined), "%v", req)
		}
	}
}

func TestFromLabelsNormalizesAndIntersectsTwins(t *testing.T) {
	r := FromLabels(map[string]string{
		"team": "a", "beta.kubernetes.io/arch": "amd64", apis.LabelArch: "amd64",
		corev1.LabelFailureDomainBetaZone: "us-east-1a", apis.LabelTopologyZone: "us-east-1b",
	})
	assert.Equal(t, "kubernetes.io/arch In [amd64], team In [a], topology.kubernetes.io/zone DoesNotExist", r.String(),
		"twins that agree keep their value; twins that disagree allow nothing")
	assert.Equal(t, Requirements{}, FromLabels(nil))
	for range 20 { // map order must not matter
		assert.Equal(t, r, FromLabels(map[string]string{
			apis.LabelTopologyZone: "us-east-1b", "team": "a", apis.LabelArch: "amd64",
			corev1.LabelFailureDomainBetaZone: "us-east-1a", "beta.kubernetes.io/arch": "amd64",
		}))
	}
}
