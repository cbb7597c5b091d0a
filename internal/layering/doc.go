// Package layering holds the import rules between karpsim's packages and
// the test that checks them; it has no code of its own.
//
// The packages form layers, and a package imports only packages of lower
// layers:
//
//	0  apis, pricing, workloads                 API types and rules, prices, synthetic pods
//	   internal/fields                          why a document does not fit its Go type
//	   internal/chromium                        headless Chromium for the tests that look at pages
//	1  requirements, resources, budgets,        the algebra of labels and resources, budgets,
//	   manifests, repair                        reading YAML into typed objects, node repair policies
//	2  instancetypes                            instance types and offerings
//	3  scheduling, drift, cloud, dra            the provisioning decision, drift, the loop's seams,
//	                                            DRA claims and devices as scheduling sees them
//	4  consolidation, optimize, kube,           the disruption decision, lower bounds on cost; a real
//	   provider                                 cluster through client-go; a NodePool's cloud (AWS or
//	                                            Azure): its node class's catalog, readiness and drift
//	5  snapshot, invariants, advise             manifests or a cluster's state → decision inputs;
//	                                            the rules every decision must keep; NodePool edits that
//	                                            make Karpenter's own plan cheaper
//	6  controller, clusterautoscaler            Karpenter's loop; the Cluster Autoscaler model beside it
//	7  simulator                                the world around the autoscaler in virtual time
//	8  plantest, sweep, conformance,            capacity tests, many runs at once, Karpenter's own
//	   kube/kubetest, internal/scenariogen,     specs translated (tests only), fakes and a real API
//	   advisor                                  server, random scenarios for the invariant tests; a
//	                                            watched cluster's answers kept current and served
//	9  report                                   results as HTML with charts
//	10 cmd/karpsim, examples                    what users run
//
// The decision core (requirements, resources, repair, instancetypes, pricing, optimize,
// advise, scheduling, dra, budgets, drift, consolidation, invariants) does no I/O and
// imports neither manifests nor cloud: it takes plain structs and returns
// decisions.
//
// kube is the only package that imports k8s.io/client-go (kube/kubetest,
// its fakes, too): a program links client-go only when it imports kube.
//
// Every package that starts goroutines is listed in .ci/race-packages, whose
// packages CI tests under the race detector.
//
// What each package owns, and so where a change belongs, is in the
// repository's CONTRIBUTING.md, with the other rules a change keeps. A new
// package gets a layer in the table of layering_test.go and a line above.
package layering
