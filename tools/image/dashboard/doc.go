// Package dashboard holds the checks of deploy/grafana/karpsim-advisor.json
// against Grafana's own dashboard model (the Grafana Foundation SDK) and
// Prometheus' PromQL parser, which the main module does not depend on. It
// has no code of its own: its test is the check.
package dashboard
