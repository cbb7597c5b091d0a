// Package helmchart renders karpsim's Helm chart (deploy/helm/karpsim) with
// Helm's own engine, so that its tests check what `helm install` would
// create: with its default values, the objects of
// deploy/kubernetes/serve.yaml (which a test in cmd/karpsim applies to a
// real API server), and with serviceMonitor.enabled those of
// servicemonitor.yaml.
package helmchart
