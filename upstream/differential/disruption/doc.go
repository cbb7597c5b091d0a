// Package disruption is the differential harness of disruption: it runs
// Karpenter v1.15.0's disruption methods and karpsim's disruption
// evaluation (what `karpsim disrupt` prints) on the same seeded random
// clusters and compares the command each would issue: the method, the
// nodes it deletes and the replacements' NodePool and instance-type
// options.
//
// Generate makes a cluster from a seed: one to three NodePools
// (WhenEmpty or WhenEmptyOrUnderutilized, consolidateAfter 0s, budgets,
// some with CPU limits, weights, instance-type and zone requirements), one
// to ten Nodes with their NodeClaims of 15 instance types, spot or
// on-demand, in three zones, some drifted (a capacity type, type or zone
// their NodePool no longer allows), empty, lightly or well used by
// ReplicaSet-owned pods, some with karpenter.sh/do-not-disrupt or a PDB.
//
// Karpenter's side (Upstream) is wired as its disruption suite wires it:
// envtest over a real kube-apiserver and etcd with Karpenter's own CRDs
// (package crds), the fake cloud provider offering the harness's catalog,
// a fake clock, cluster state fed by its informer controllers, and a
// provisioner. Karpenter's NodeClaim disruption controller sets the
// Consolidatable and Drifted conditions; then the methods run in
// disruption.NewMethods' order with the suite's no-op validators, as the
// controller's disrupt step runs them, and the first method with commands
// decides. Nothing is executed.
//
// karpsim's side (Karpsim) reads the objects back from the API server as
// YAML and decides as `karpsim disrupt -f FILE --catalog CATALOG --at NOW`
// does: manifests.Decode, snapshot.ForDisruption and
// consolidation.Evaluate, with the same catalog in karpsim's JSON format.
//
// Karpenter is not deterministic everywhere (sort.Slice on tied
// candidates), so it decides several times per seed and karpsim agrees
// when its command is one of Karpenter's.
//
// TestRepairDifferential does the same with node repair on (the NodeRepair
// gate; Upstream.Repair and consolidation.Options.NodeRepair) over the AWS
// provider's repair policies as package provider holds them, on clusters
// whose nodes GenerateUnhealthy gives random faults and do-not-repair
// vetoes: Karpenter's Repair method runs first, with cluster state built
// around the policies' matcher, as its disruption suite builds it.
package disruption
