package apis

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func validNodePool() *NodePool {
	np := &NodePool{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: NodePoolSpec{
			Template: NodeClaimTemplate{
				ObjectMeta: TemplateMetadata{Labels: map[string]string{"team": "a", "node-restriction.kubernetes.io/x": "y"}},
				Spec: NodeClaimTemplateSpec{
					Requirements: []NodeSelectorRequirementWithMinValues{
						{Key: LabelInstanceCategory, Operator: corev1.NodeSelectorOpIn, Values: []string{"c", "m"}, MinValues: ptr(2)},
						{Key: LabelInstanceGeneration, Operator: corev1.NodeSelectorOpGt, Values: []string{"4"}},
						{Key: "node-restriction.kubernetes.io/team", Operator: corev1.NodeSelectorOpExists},
						{Key: corev1.LabelFailureDomainBetaZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1a"}},
					},
					NodeClassRef: &NodeClassReference{Group: AWSGroup, Kind: KindEC2NodeClass, Name: "default"},
					Taints:       []corev1.Taint{{Key: "example.com/gpu", Value: "true", Effect: corev1.TaintEffectNoSchedule}},
				},
			},
			Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100")},
		},
	}
	np.SetDefaults()
	return np
}

func TestNodePoolSetDefaults(t *testing.T) {
	np := &NodePool{}
	np.SetDefaults()
	assert.Equal(t, ConsolidationPolicyWhenEmptyOrUnderutilized, np.Spec.Disruption.ConsolidationPolicy)
	assert.Equal(t, NewNillableDuration(0), np.Spec.Disruption.ConsolidateAfter)
	assert.Equal(t, []Budget{{Nodes: "10%"}}, np.Spec.Disruption.Budgets)
	assert.Equal(t, NewNillableDuration(720*time.Hour), np.Spec.Template.Spec.ExpireAfter)
	assert.Nil(t, np.Spec.Weight, "weight stays unset, which ranks as 0")

	np = &NodePool{}
	np.Spec.Template.Spec.ExpireAfter = NeverDuration()
	np.Spec.Disruption.ConsolidateAfter = NeverDuration()
	np.Spec.Disruption.Budgets = []Budget{}
	np.SetDefaults()
	assert.True(t, np.Spec.Template.Spec.ExpireAfter.IsNever(), "an explicit Never is kept")
	assert.True(t, np.Spec.Disruption.ConsolidateAfter.IsNever(), "an explicit Never is kept")
	assert.Empty(t, np.Spec.Disruption.Budgets, "an explicit empty budget list is kept")

	np = &NodePool{}
	np.Spec.Disruption.Budgets = []Budget{{Schedule: ptr("@daily"), Duration: &metav1.Duration{Duration: time.Hour}}}
	np.SetDefaults()
	assert.Equal(t, "10%", np.Spec.Disruption.Budgets[0].Nodes)
}

func TestNodePoolValidate(t *testing.T) {
	require.NoError(t, validNodePool().Validate())
	restricted := `its domain %q is reserved (karpenter.k8s.aws, karpenter.sh); use a well-known label or a key outside these domains`
	cases := []struct {
		name   string
		change func(*NodePool)
		want   []string
	}{
		{"no name", func(np *NodePool) { np.Name = "" }, []string{"metadata.name: required"}},
		{"weight 0", func(np *NodePool) { np.Spec.Weight = ptr(int32(0)) },
			[]string{"spec.weight: 0 is out of range (1 to 100; leave weight out to rank the NodePool lowest, as 0)"}},
		{"weight 100", func(np *NodePool) { np.Spec.Weight = ptr(int32(100)) }, nil},
		{"Gte and Lte", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = []NodeSelectorRequirementWithMinValues{
				{Key: LabelInstanceCPU, Operator: NodeSelectorOpGte, Values: []string{"4"}},
				{Key: LabelInstanceCPU, Operator: NodeSelectorOpLte, Values: []string{"-4"}},
			}
		}, []string{`spec.template.spec.requirements[1].values[0]: operator Lte needs a non-negative integer, not "-4"`}},
		{"restricted custom key in karpenter.sh", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements[2].Key = "karpenter.sh/custom"
		}, []string{`spec.template.spec.requirements[2].key: label "karpenter.sh/custom" is restricted: ` + strings.ReplaceAll(restricted, "%q", `"karpenter.sh"`)}},
		{"kubernetes.io and k8s.io labels are allowed, as upstream allows them", func(np *NodePool) {
			np.Spec.Template.Spec.Requirements[2].Key = "kubernetes.io/test"
			np.Spec.Template.ObjectMeta.Labels["subdomain.k8s.io/test"] = "x"
		}, nil},
		{"template label karpenter.sh/capacity-type is well known", func(np *NodePool) {
			np.Spec.Template.ObjectMeta.Labels[LabelCapacityType] = "spot"
		}, nil},
		{"template label nodepool", func(np *NodePool) {
			np.Spec.Template.ObjectMeta.Labels[LabelNodePool] = "x"
		}, []string{`spec.template.metadata.labels[karpenter.sh/nodepool]: label "karpenter.sh/nodepool" is restricted: Karpenter sets it to the NodePool's name on every node`}},
		{"bad label value", func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels["team"] = "a b" },
			[]string{`spec.template.metadata.labels[team]: "a b" is not a valid label value: use at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit`}},
		{"duplicate taint across taints and startupTaints", func(np *NodePool) {
			np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "example.com/gpu", Effect: corev1.TaintEffectNoSchedule}}
		}, []string{`spec.template.spec.startupTaints[0]: duplicate taint key and effect "example.com/gpu:NoSchedule" (already in taints[0])`}},
		{"taint without effect", func(np *NodePool) { np.Spec.Template.Spec.Taints[0].Effect = "" },
			[]string{"spec.template.spec.taints[0].effect: required (NoSchedule, PreferNoSchedule or NoExecute)"}},
		{"requirements nil", func(np *NodePool) { np.Spec.Template.Spec.Requirements = nil },
			[]string{"spec.template.spec.requirements: required (an empty list is allowed)"}},
		{"static pool with weight and cpu limit", func(np *NodePool) {
			np.Spec.Replicas = ptr(int64(3))
			np.Spec.Weight = ptr(int32(10))
		}, []string{"spec.weight: not supported on a static NodePool (one with replicas)",
			"spec.limits[cpu]: a static NodePool (one with replicas) may only limit nodes"}},
		{"negative expireAfter", func(np *NodePool) { np.Spec.Template.Spec.ExpireAfter = NewNillableDuration(-time.Hour) },
			[]string{`spec.template.spec.expireAfter: -1h0m0s is not allowed: use a non-negative whole number of seconds, minutes or hours such as "30s" or "720h", or "Never"`}},
		{"fractional terminationGracePeriod", func(np *NodePool) {
			np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: 1500 * time.Millisecond}
		}, []string{`spec.template.spec.terminationGracePeriod: 1.5s is not allowed: use a non-negative whole number of seconds, minutes or hours such as "30s" or "720h"`}},
		{"budget duration in seconds", func(np *NodePool) {
			np.Spec.Disruption.Budgets = []Budget{{Nodes: "0", Schedule: ptr("@daily"), Duration: &metav1.Duration{Duration: 90 * time.Second}}}
		}, []string{`spec.disruption.budgets[0].duration: 1m30s is not allowed: use a whole number of hours and minutes such as "8h", "30m" or "1h30m"`}},
		{"budget with every macro", func(np *NodePool) {
			np.Spec.Disruption.Budgets = []Budget{{Nodes: "0", Schedule: ptr("@every 5m"), Duration: &metav1.Duration{Duration: time.Hour}}}
		}, []string{`spec.disruption.budgets[0].schedule: "@every 5m" is not a cron schedule: use five fields (minute hour day-of-month month day-of-week) such as "0 9 * * mon-fri", or a macro such as "@daily"`}},
		{"budget with CRON_TZ", func(np *NodePool) {
			np.Spec.Disruption.Budgets = []Budget{{Nodes: "0", Schedule: ptr("CRON_TZ=Asia/Tokyo 0 9 * * *"), Duration: &metav1.Duration{Duration: time.Hour}}}
		}, []string{`spec.disruption.budgets[0].schedule: "CRON_TZ=Asia/Tokyo 0 9 * * *" is not a valid cron schedule: expected exactly 5 fields, found 6: [CRON_TZ=Asia/Tokyo 0 9 * * *]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			np := validNodePool()
			c.change(np)
			assertFieldErrors(t, c.want, np.Validate())
		})
	}
}

func assertFieldErrors(t *testing.T, want []string, err error) {
	t.Helper()
	if len(want) == 0 {
		assert.NoError(t, err)
		return
	}
	require.Error(t, err)
	fieldErrs, ok := err.(FieldErrors)
	require.True(t, ok, "Validate returns FieldErrors, got %T", err)
	got := make([]string, len(fieldErrs))
	for i, fe := range fieldErrs {
		got[i] = fe.Error()
	}
	assert.Equal(t, want, got)
	assert.Equal(t, strings.Join(want, "\n"), err.Error())
}

func TestNodeClaimDefaultsAndValidate(t *testing.T) {
	nc := &NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-abcde"}}
	nc.Spec.Requirements = []NodeSelectorRequirementWithMinValues{
		{Key: LabelNodePool, Operator: corev1.NodeSelectorOpIn, Values: []string{"default"}},
	}
	nc.Spec.NodeClassRef = &NodeClassReference{Group: AWSGroup, Kind: KindEC2NodeClass, Name: "default"}
	nc.SetDefaults()
	assert.Equal(t, NewNillableDuration(720*time.Hour), nc.Spec.ExpireAfter)
	assert.NoError(t, nc.Validate(), "a NodeClaim may require karpenter.sh/nodepool")

	nc.Spec.NodeClassRef.Group = "karpenter.k8s.aws/v1"
	nc.Spec.Requirements[0].Key = LabelHostname
	assertFieldErrors(t, []string{
		`spec.requirements[0].key: label "kubernetes.io/hostname" is restricted: Karpenter sets it to each node's own name`,
		`spec.nodeClassRef.group: "karpenter.k8s.aws/v1" must be an API group without a version, e.g. karpenter.k8s.aws`,
	}, nc.Validate())
}

func TestBalancedIsAConsolidationPolicy(t *testing.T) {
	np := &NodePool{}
	np.Name = "balanced"
	np.Spec.Template.Spec.NodeClassRef = &NodeClassReference{Group: AWSGroup, Kind: "EC2NodeClass", Name: "default"}
	np.Spec.Template.Spec.Requirements = []NodeSelectorRequirementWithMinValues{}
	np.Spec.Disruption.ConsolidationPolicy = ConsolidationPolicyBalanced
	np.SetDefaults()
	if err := np.Validate(); err != nil {
		t.Fatalf("Balanced (Karpenter v1.14) must validate: %v", err)
	}
}

// A budget's duration is written as the CRD's pattern states it, so that a
// NodePool written out reads back: zero as "0m", not "0s".
func TestBudgetDurationIsWrittenInHoursAndMinutes(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0m", 8 * time.Hour: "8h", 30 * time.Minute: "30m", 90 * time.Minute: "1h30m", 90 * time.Second: "1m30s"} {
		schedule := "@daily"
		out, err := json.Marshal(Budget{Nodes: "1", Schedule: &schedule, Duration: &metav1.Duration{Duration: d}})
		if err != nil {
			t.Fatal(err)
		}
		if wantJSON := `{"nodes":"1","schedule":"@daily","duration":"` + want + `"}`; string(out) != wantJSON {
			t.Errorf("%v: %s, want %s", d, out, wantJSON)
		}
		var back Budget
		if err := json.Unmarshal(out, &back); err != nil || back.Duration.Duration != d {
			t.Errorf("%s reads back as %v (%v)", out, back.Duration, err)
		}
	}
	out, _ := json.Marshal(Budget{Nodes: "10%"})
	if string(out) != `{"nodes":"10%"}` {
		t.Errorf("a budget without a window: %s", out)
	}
}
