package apis

import (
	"strings"
	"testing"
)

func TestAzureNodePoolLabelKeys(t *testing.T) {
	azure := func(change func(np *NodePool)) error {
		np := validNodePool()
		np.Spec.Template.Spec.NodeClassRef = &NodeClassReference{Group: AzureGroup, Kind: KindAKSNodeClass, Name: "default"}
		np.Spec.Template.Spec.Requirements = []NodeSelectorRequirementWithMinValues{}
		change(np)
		return np.Validate()
	}
	req := func(key string) func(np *NodePool) {
		return func(np *NodePool) {
			np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
				NodeSelectorRequirementWithMinValues{Key: key, Operator: "Exists"})
		}
	}
	for _, key := range []string{"karpenter.azure.com/sku-family", "karpenter.azure.com/placement-scope", "kubernetes.azure.com/mode",
		"kubernetes.azure.com/ebpf-dataplane", "example.com/team", "karpenter.k8s.aws/instance-family"} {
		if err := azure(req(key)); err != nil {
			t.Errorf("%s: %v", key, err)
		}
	}
	for key, want := range map[string]string{
		"karpenter.azure.com/sku-hyperv-generation": `label "karpenter.azure.com/sku-hyperv-generation" is restricted: the Azure provider reserves the domain "karpenter.azure.com"`,
		"sub.karpenter.azure.com/x":                 `reserves the domain "karpenter.azure.com"`,
		"kubernetes.azure.com/agentpool":            `reserves the domain "kubernetes.azure.com"`,
		"agentpool":                                 `label "agentpool" is restricted: AKS sets it`,
	} {
		err := azure(req(key))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", key, err, want)
		}
	}
	err := azure(func(np *NodePool) { np.Spec.Template.ObjectMeta.Labels["kubernetes.azure.com/storagetier"] = "x" })
	if err == nil || !strings.Contains(err.Error(), "spec.template.metadata.labels[kubernetes.azure.com/storagetier]") {
		t.Errorf("template label: %v", err)
	}
	// The AWS provider's CRD has no such rules.
	np := validNodePool()
	np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
		NodeSelectorRequirementWithMinValues{Key: "karpenter.azure.com/sku-hyperv-generation", Operator: "Exists"},
		NodeSelectorRequirementWithMinValues{Key: "agentpool", Operator: "Exists"})
	if err := np.Validate(); err != nil {
		t.Errorf("an AWS NodePool: %v", err)
	}
}
