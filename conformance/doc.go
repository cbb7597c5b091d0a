// Package conformance holds karpsim's translation of Karpenter's own Ginkgo
// specs: for every upstream spec whose outcome is a scheduling or disruption
// decision, the same situation written as a karpsim test in our own words,
// asserting the outcome the spec asserts.
//
// It has no code of its own; everything is in its tests. specs/ lists every
// upstream spec (file, line, what it checks in our words, and either the case
// that translates it or why it does not apply to karpsim). The cases are
// registered by name; TestSpecs runs each as a subtest, and TestREADME runs
// them all, records pass or fail per spec and checks that README.md is what
// it would write (`go test ./conformance -run TestREADME -update` rewrites it
// and the totals in the repository's docs/fidelity.md).
package conformance
