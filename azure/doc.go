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
// Where the provider's offerings carry labels of their own (placement
// scope, scale set priority, ultra SSD), karpsim's offerings carry only a
// zone and a capacity type: those labels are label choices of the size
// (instancetypes.Spec.LabelChoices), so a NodePool requiring, say,
// placement-scope regional is compatible with the size but does not by
// itself confine the launch to zone "0". karpsim's instance types also
// state every well-known label they lack as DoesNotExist (the AWS model),
// where the provider leaves them undefined. conformance/azure records
// both differences.
package azure
