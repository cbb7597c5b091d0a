package apis

import (
	"slices"
	"strings"
	"testing"
)

// A key in the other cloud's domain is an ordinary label: one provider
// runs in a cluster and reserves its own domain only.
func TestNodePoolLabelRulesFollowTheCloud(t *testing.T) {
	pool := func(group, kind, key string, asLabel bool) *NodePool {
		np := validNodePool()
		np.Spec.Template.Spec.NodeClassRef = &NodeClassReference{Group: group, Kind: kind, Name: "default"}
		if asLabel {
			np.Spec.Template.ObjectMeta.Labels[key] = "web"
		} else {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
				NodeSelectorRequirementWithMinValues{Key: key, Operator: "In", Values: []string{"web"}})
		}
		return np
	}
	for _, c := range []struct {
		group, kind, key string
		want             string // "" when accepted
	}{
		{AzureGroup, KindAKSNodeClass, "karpenter.k8s.aws/team", ""},
		{AzureGroup, KindAKSNodeClass, "karpenter.k8s.aws/instance-family", ""},
		{AzureGroup, KindAKSNodeClass, "sub.karpenter.k8s.aws/team", ""},
		{AzureGroup, KindAKSNodeClass, "karpenter.sh/team", `domain "karpenter.sh" is reserved (karpenter.azure.com, karpenter.sh)`},
		{AzureGroup, KindAKSNodeClass, "karpenter.azure.com/team", `the Azure provider reserves the domain "karpenter.azure.com"`},
		{AWSGroup, KindEC2NodeClass, "karpenter.k8s.aws/team", `domain "karpenter.k8s.aws" is reserved (karpenter.k8s.aws, karpenter.sh)`},
		{AWSGroup, KindEC2NodeClass, "karpenter.sh/team", `domain "karpenter.sh" is reserved (karpenter.k8s.aws, karpenter.sh)`},
		{AWSGroup, KindEC2NodeClass, "karpenter.azure.com/team", ""},
		{AWSGroup, KindEC2NodeClass, "karpenter.azure.com/sku-family", ""},
		{AWSGroup, KindEC2NodeClass, "karpenter.k8s.aws/instance-family", ""},
	} {
		for _, asLabel := range []bool{false, true} {
			if asLabel && c.key == "karpenter.k8s.aws/instance-family" && c.group == AWSGroup {
				continue // well known: the AWS provider sets it, a template may not
			}
			err := pool(c.group, c.kind, c.key, asLabel).Validate()
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s %s (label %v): refused: %v", c.group, c.key, asLabel, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s %s (label %v): %v, want %s", c.group, c.key, asLabel, err, c.want)
			}
		}
	}
}

func TestNodeClaimLabelRulesFollowTheCloud(t *testing.T) {
	claim := func(group, kind string) *NodeClaim {
		return &NodeClaim{
			ObjectMeta: validNodePool().ObjectMeta,
			Spec: NodeClaimSpec{
				Requirements: []NodeSelectorRequirementWithMinValues{{Key: "karpenter.k8s.aws/team", Operator: "In", Values: []string{"web"}}},
				NodeClassRef: &NodeClassReference{Group: group, Kind: kind, Name: "default"},
			},
		}
	}
	if err := claim(AzureGroup, KindAKSNodeClass).Validate(); err != nil {
		t.Errorf("Azure NodeClaim: %v", err)
	}
	if err := claim(AWSGroup, KindEC2NodeClass).Validate(); err == nil || !strings.Contains(err.Error(), `"karpenter.k8s.aws/team" is restricted`) {
		t.Errorf("AWS NodeClaim: %v, want the key refused", err)
	}
}

func TestLabelRules(t *testing.T) {
	if !slices.Equal(AWSLabels.WellKnownLabels(), WellKnownLabels()) || LabelRulesFor("") != AWSLabels || LabelRulesFor(AWSGroup) != AWSLabels {
		t.Error("the default rules are not AWS's")
	}
	if LabelRulesFor(AzureGroup) != AzureLabels {
		t.Error("karpenter.azure.com does not pick AzureLabels")
	}
	for _, r := range []*LabelRules{AWSLabels, AzureLabels} {
		if !slices.IsSorted(r.wellKnown) || !slices.IsSorted(r.nodeDomains) {
			t.Errorf("%s: not sorted", r.Domain())
		}
		for _, key := range karpenterWellKnownLabels {
			if !r.IsWellKnown(key) {
				t.Errorf("%s: Karpenter's %s is not well known", r.Domain(), key)
			}
		}
	}
	for key, want := range map[string][4]bool{
		// AWS well-known, Azure well-known, AWS node-restricted, Azure node-restricted
		"karpenter.k8s.aws/instance-family":  {true, false, true, false},
		"karpenter.k8s.aws/team":             {false, false, true, false},
		"karpenter.azure.com/sku-family":     {false, true, false, true},
		"karpenter.azure.com/team":           {false, false, false, true},
		"kubernetes.azure.com/mode":          {false, true, false, true},
		"topology.k8s.aws/zone-id":           {true, false, true, false},
		"karpenter.sh/capacity-type":         {true, true, true, true},
		"example.com/team":                   {false, false, false, false},
		"node-restriction.kubernetes.io/foo": {false, false, false, false},
	} {
		got := [4]bool{AWSLabels.IsWellKnown(key), AzureLabels.IsWellKnown(key), AWSLabels.IsRestrictedNodeLabel(key), AzureLabels.IsRestrictedNodeLabel(key)}
		if got != want {
			t.Errorf("%s: %v, want %v", key, got, want)
		}
	}
	if !AzureLabels.IsRestrictedSelectorLabel("karpenter.azure.com/team") || AzureLabels.IsRestrictedSelectorLabel("karpenter.k8s.aws/team") ||
		!AWSLabels.IsRestrictedSelectorLabel("karpenter.k8s.aws/team") || AWSLabels.IsRestrictedSelectorLabel("karpenter.azure.com/team") {
		t.Error("selector restrictions do not follow the cloud's domain")
	}
}
