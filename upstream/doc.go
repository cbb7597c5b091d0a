// Package upstream is the root of a nested Go module that holds the tests
// run against Karpenter's own code: its CRDs (package crds) and, beside them,
// the differential runs of Karpenter's scheduler and disruption controller
// against karpsim; and karpsim's Helm chart rendered by Helm's own engine
// (package helmchart). It is a module of its own so that karpsim's main module
// never depends on Karpenter; it needs Go 1.26.9 or newer, which
// GOTOOLCHAIN=go1.27.3 brings from the Go module proxy.
package upstream
