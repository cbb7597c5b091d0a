// Package azure holds the translated specs of Karpenter's Azure provider
// (Azure/karpenter-provider-azure) about its catalog of VM sizes: labels,
// capacity, overhead, max pods, filtering and offerings, run against
// package azure's model (github.com/karpsim/karpsim/azure) and karpsim's
// scheduler. specs/ inventories every spec of the provider's instance-type
// suites, each translated (a case of this package), not applicable with a
// reason, or not yet; README.md is the table, written by
// `go test ./conformance/azure -run TestREADME -update`.
package azure
