// Package specs checks the conformance table's inventory (conformance/specs
// in the main module) against the upstream suites the Go modules of this
// module bring: every listed line of every inventoried file is an It or
// Entry of that file at the version the inventory names, and every It and
// Entry of the file is listed. The inventory names release tags, and this
// module requires exactly those releases, so a line that moved, a spec
// that went, or one that came in a new release fails the test. Every test
// file of Karpenter core's provisioning, scheduling and disruption suites
// that holds a spec must have an inventory file, so that a file a new
// release adds fails the test too (coverage_test.go; files another branch
// is inventorying are listed there as pending).
package specs
