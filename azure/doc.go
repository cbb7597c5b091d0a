// Package azure models the VM sizes of Azure as Karpenter's Azure provider
// (karpenter-provider-azure, AKS node auto-provisioning) sees them: per
// region, the sizes it would offer a NodePool, with the labels it sets
// (karpenter.azure.com/sku-* and kubernetes.azure.com/*), capacity,
// kube-reserved and eviction overhead, pods per node by network plugin,
// and offerings per zone and capacity type with prices.
//
// The facts are embedded (data/, described in data/README.md): the
// provider's resource SKU tables and on-demand price table, and, for the
// sizes those tables lack, Cluster Autoscaler's table of Azure VM sizes
// (vCPUs, memory, GPUs, architecture) with the other capabilities derived
// from Azure's size naming convention or set to a conservative default
// (DerivedFacts names them per size), written by internal/gen from
// mirrors of both repositories. The package does no I/O.
//
// Each offering carries its placement scope (zonal, or regional in zone
// "0") as its label (instancetypes.Offering.Label), so a NodePool requiring
// placement-scope regional launches in zone "0", and zonal offerings win
// price ties, as the provider ranks them. The labels the provider sets per
// launch otherwise (scale set priority, ultra SSD) are label choices of the
// size (instancetypes.Spec.LabelChoices). The Windows build label is left
// undefined, as the provider leaves it; the other well-known labels a size
// lacks are DoesNotExist.
package azure
