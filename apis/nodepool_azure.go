package apis

import (
	"fmt"
	"slices"
	"strings"
)

// The label keys the Azure provider's NodePool CRD (its copy of
// karpenter.sh/v1, which it installs) allows in its two domains: the
// well-known labels it registers, sorted. Every other key in a domain
// ending with karpenter.azure.com or kubernetes.azure.com is refused, in
// requirements and template labels alike, and so are four bare keys AKS
// sets itself.
var (
	azureProviderKeys = sortedCopy([]string{
		AzureGroup + "/aksnodeclass",
		AzureGroup + "/sku-name", AzureGroup + "/sku-family", AzureGroup + "/sku-series", AzureGroup + "/sku-version",
		AzureGroup + "/sku-cpu", AzureGroup + "/sku-memory",
		AzureGroup + "/sku-networking-accelerated", AzureGroup + "/sku-storage-premium-capable",
		AzureGroup + "/sku-storage-ultra-ssd", AzureGroup + "/sku-storage-ephemeralos-maxsize",
		AzureGroup + "/sku-gpu-name", AzureGroup + "/sku-gpu-manufacturer", AzureGroup + "/sku-gpu-count",
		AzureGroup + "/placement-scope",
	})
	aksKeys = sortedCopy([]string{
		aksDomain + "/mode", aksDomain + "/scalesetpriority", aksDomain + "/priority", aksDomain + "/fips_enabled",
		aksDomain + "/os-sku", aksDomain + "/cluster", aksDomain + "/sku-cpu", aksDomain + "/sku-memory",
		aksDomain + "/ebpf-dataplane", aksDomain + "/ebpf-host-routing", aksDomain + "/network-policy", aksDomain + "/hostedvm",
	})
	aksRestrictedKeys = []string{"agentpool", "storageprofile", "storagetier", "accelerator"}
)

const aksDomain = "kubernetes.azure.com"

// AzureNodePoolLabelKeys returns the keys in the karpenter.azure.com and
// kubernetes.azure.com domains a NodePool of the Azure provider may use,
// sorted.
func AzureNodePoolLabelKeys() []string { return sortedCopy(slices.Concat(azureProviderKeys, aksKeys)) }

// azureLabelKeyProblem says why the Azure provider's NodePool CRD refuses
// key, "" when it allows it. Only NodePools whose nodeClassRef names an
// AKSNodeClass are checked: the AWS provider's CRD has no such rules.
func azureLabelKeyProblem(key string) string {
	// The CRD reads the domain as everything before the first "/" (the
	// whole key when there is none) and matches its end.
	domain, _, _ := strings.Cut(key, "/")
	switch {
	case strings.HasSuffix(domain, AzureGroup) && !slices.Contains(azureProviderKeys, key):
		return fmt.Sprintf("label %q is restricted: the Azure provider reserves the domain %q but for its well-known labels (%s)",
			key, AzureGroup, strings.Join(azureProviderKeys, ", "))
	case strings.HasSuffix(domain, aksDomain) && !slices.Contains(aksKeys, key):
		return fmt.Sprintf("label %q is restricted: the Azure provider reserves the domain %q but for %s",
			key, aksDomain, strings.Join(aksKeys, ", "))
	case slices.Contains(aksRestrictedKeys, key):
		return fmt.Sprintf("label %q is restricted: AKS sets it", key)
	}
	return ""
}

// validateAzureLabelKeys applies the Azure provider's CRD rules on label
// keys to an Azure NodePool's requirements and template labels.
func (in *NodePool) validateAzureLabelKeys(e *errs) {
	ref := in.Spec.Template.Spec.NodeClassRef
	if ref == nil || ref.Group != AzureGroup {
		return
	}
	for i, r := range in.Spec.Template.Spec.Requirements {
		if why := azureLabelKeyProblem(r.Key); why != "" {
			e.add(child(index("spec.template.spec.requirements", i), "key"), "%s", why)
		}
	}
	for _, k := range sortedKeys(in.Spec.Template.ObjectMeta.Labels) {
		if why := azureLabelKeyProblem(k); why != "" {
			e.add(key("spec.template.metadata.labels", k), "%s", why)
		}
	}
}
