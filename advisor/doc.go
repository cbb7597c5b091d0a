// Package advisor keeps karpsim's answers about a running cluster current:
// fed by a cloud.ClusterWatcher (kube.Watcher in a cluster), it re-plans the
// pending pods, re-evaluates disruption as Karpenter would now and, less
// often, weighs the whole cluster against the optimizer and the lower bound,
// after every change (debounced) and on a period. It only reads: nothing it
// does writes to the cluster.
//
// Evaluate computes one Answer from a set of objects. Advisor runs Evaluate
// on changes and serves the latest Answer: Handler gives a live page on /,
// the Answer as JSON on /api/answer, Prometheus metrics on /metrics (see
// Metrics for the names) and health on /healthz and /readyz. `karpsim
// serve` is Advisor over kube.Watcher.
package advisor
