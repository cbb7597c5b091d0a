// Package azure models the VM sizes of Azure as Karpenter's Azure provider
// (karpenter-provider-azure, AKS node auto-provisioning) sees them: per
// region, the sizes it would offer a NodePool, with the labels it sets
// (karpenter.azure.com/sku-* and kubernetes.azure.com/*), capacity,
// kube-reserved and eviction overhead, pods per node by network plugin,
// and offerings per zone and capacity type with prices.
//
// The facts are embedded (data/, described in data/README.md): the
// provider's resource SKU tables and on-demand price table, written by
// internal/gen from a mirror of the provider's repository. The package
// does no I/O.
package azure
