// Package instancetypes is the catalog of machines karpsim may launch, as
// Karpenter sees them: to Karpenter an instance type is a name, a set of
// label requirements a node of that type will satisfy (architecture, OS,
// size, GPUs, and the zones and capacity types it is sold in), a capacity,
// the overhead the kubelet and the OS reserve out of it, and the offerings
// (zone × capacity type, with a price and an availability) it can be bought
// as. Pods are packed against the allocatable part, capacity minus overhead;
// NodePool limits count the capacity; the cheapest available offering that
// the claim's requirements allow decides price and zone.
//
// Catalogs come from three places. Default is the embedded table of 1,363
// EC2 types under the default EC2NodeClass; NewAWS models EC2 types from
// facts (EmbeddedFacts, with a supplementary table of network, trunking,
// EFA and clock-speed facts, or ParseFacts) for an EC2NodeClass of your own,
// exactly as Karpenter's AWS provider computes them, ruling out the types
// its launch settings cannot launch. Fake and KWOK reproduce the synthetic
// catalogs of Karpenter's own benchmarks and kwok provider. ReadJSON loads a
// catalog that WriteJSON (or a person, for any cloud) wrote. All build
// requirements with the same function, so a catalog written and read back
// is identical.
//
// Instance types and catalogs are read-only once built: every function here
// returns new values and never changes its inputs, and callers must not
// change the values they receive.
package instancetypes
