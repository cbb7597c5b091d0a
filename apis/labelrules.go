package apis

import (
	"slices"
	"strings"
)

// LabelRules are what one cloud provider registers with Karpenter about
// label keys when it starts: the well-known labels (Karpenter's own and the
// provider's, which a new NodeClaim may leave undefined until its instance
// type is chosen) and the label domain the provider reserves (Karpenter
// refuses a NodePool requirement or label, and a pod selector, on a key of
// a reserved domain that is not well-known). One provider runs in a
// cluster, so the other cloud's domain is an ordinary one there: an Azure
// NodePool may carry karpenter.k8s.aws/team, and a requirement on
// karpenter.k8s.aws/instance-family is a custom label no VM size defines.
//
// The rules of the clouds karpsim models are AWSLabels and AzureLabels;
// LabelRulesFor picks them by a nodeClassRef's group. Read-only.
type LabelRules struct {
	// domain is the provider's reserved label domain.
	domain string
	// wellKnown is sorted.
	wellKnown []string
	// nodeDomains are the domains whose keys Karpenter does not set on a
	// node from a requirement (IsRestrictedNodeLabel), sorted.
	nodeDomains []string
}

// AWSLabels are the rules of the AWS provider (karpenter.k8s.aws), the
// default cloud's.
var AWSLabels = &LabelRules{domain: AWSGroup, wellKnown: wellKnownLabels, nodeDomains: restrictedLabelDomains}

// azureWellKnownLabels are the labels the Azure provider registers as well
// known (its apis/v1beta1 labels), beside Karpenter's.
var azureWellKnownLabels = []string{
	AzureGroup + "/sku-name", AzureGroup + "/sku-family", AzureGroup + "/sku-series", AzureGroup + "/sku-version",
	AzureGroup + "/sku-cpu", AzureGroup + "/sku-memory", aksDomain + "/sku-cpu", aksDomain + "/sku-memory",
	AzureGroup + "/sku-networking-accelerated", AzureGroup + "/sku-storage-premium-capable",
	AzureGroup + "/sku-storage-ephemeralos-maxsize", AzureGroup + "/sku-storage-ultra-ssd",
	AzureGroup + "/sku-gpu-name", AzureGroup + "/sku-gpu-manufacturer", AzureGroup + "/sku-gpu-count",
	AzureGroup + "/placement-scope",
	aksDomain + "/cluster", aksDomain + "/mode", aksDomain + "/scalesetpriority", aksDomain + "/priority",
	aksDomain + "/os-sku", aksDomain + "/fips_enabled",
}

// AzureLabels are the rules of the Azure provider (karpenter.azure.com).
// Its NodePool CRD refuses more keys still (validateAzureLabelKeys).
var AzureLabels = &LabelRules{
	domain:      AzureGroup,
	wellKnown:   sortedCopy(slices.Concat(karpenterWellKnownLabels, azureWellKnownLabels)),
	nodeDomains: sortedCopy([]string{"k8s.io", AzureGroup, Group, "kubernetes.io"}),
}

// LabelRulesFor returns the rules of the provider whose node classes a
// nodeClassRef of group names: AzureLabels for karpenter.azure.com,
// AWSLabels (the default cloud's) for any other group or none.
func LabelRulesFor(group string) *LabelRules {
	if group == AzureGroup {
		return AzureLabels
	}
	return AWSLabels
}

// LabelRulesByDomain returns the rules of the provider that reserves the
// label domain (Domain); false when no provider karpsim models does.
func LabelRulesByDomain(domain string) (*LabelRules, bool) {
	for _, r := range []*LabelRules{AWSLabels, AzureLabels} {
		if r.domain == domain {
			return r, true
		}
	}
	return nil, false
}

// Domain is the label domain the provider reserves.
func (r *LabelRules) Domain() string { return r.domain }

// WellKnownLabels returns the sorted well-known label keys.
func (r *LabelRules) WellKnownLabels() []string { return slices.Clone(r.wellKnown) }

// IsWellKnown reports whether key is one of the well-known labels.
func (r *LabelRules) IsWellKnown(key string) bool {
	_, found := slices.BinarySearch(r.wellKnown, key)
	return found
}

// ReservedDomains are the domains of which a NodePool or a pod may use only
// the well-known labels: Karpenter's and the provider's, sorted.
func (r *LabelRules) ReservedDomains() []string {
	return sortedCopy([]string{Group, r.domain})
}

// IsRestrictedNodeLabel reports whether Karpenter refuses to set key on a
// node itself: a well-known label (the cloud provider sets those), a label
// in a restricted domain that is not an exception, or kubernetes.io/hostname.
func (r *LabelRules) IsRestrictedNodeLabel(key string) bool {
	if r.IsWellKnown(key) {
		return true
	}
	domain := LabelDomain(key)
	for _, exception := range labelDomainExceptions {
		if strings.HasSuffix(domain, exception) {
			return false
		}
	}
	for _, restricted := range r.nodeDomains {
		if strings.HasSuffix(domain, restricted) {
			return true
		}
	}
	return slices.Contains(restrictedLabels, key)
}

// IsRestrictedLabel reports whether a NodePool's requirement or template
// label may not use key: what Karpenter's runtime validation and its CRDs
// refuse, the selector labels its scheduler refuses (see
// IsRestrictedSelectorLabel). Labels in the kubernetes.io and k8s.io
// domains are allowed, as upstream allows them.
func (r *LabelRules) IsRestrictedLabel(key string) bool { return r.IsRestrictedSelectorLabel(key) }

// IsRestrictedSelectorLabel reports whether Karpenter's scheduler refuses
// a pod that selects on key: kubernetes.io/hostname, and keys in the
// reserved domains (ReservedDomains) that are not well-known. Keys in the
// kubernetes.io and k8s.io domains a pod may select on, though Karpenter
// does not set them on a node itself (IsRestrictedNodeLabel).
func (r *LabelRules) IsRestrictedSelectorLabel(key string) bool {
	if r.IsWellKnown(key) {
		return false
	}
	if key == LabelHostname {
		return true
	}
	domain := LabelDomain(key)
	for _, reserved := range []string{Group, r.domain} {
		if domain == reserved || strings.HasSuffix(domain, "."+reserved) {
			return true
		}
	}
	return false
}
