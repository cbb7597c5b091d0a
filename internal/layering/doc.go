// Package layering holds the import rules between karpsim's packages and
// the test that checks them; it has no code of its own.
//
// The packages form layers, and a package imports only packages of lower
// layers:
//
//	0  apis, pricing, workloads                 API types and rules, prices, synthetic pods
//	1  requirements, resources, budgets,        the algebra of labels and resources, budgets,
//	   manifests                                reading YAML into typed objects
//	2  instancetypes                            instance types and offerings
//	3  scheduling, drift, cloud                 the provisioning decision, drift, the loop's seams
//	4  consolidation                            the disruption decision
//	5  snapshot, invariants                     manifests or a cluster's state → decision inputs;
//	                                            the rules every decision must keep
//	6  controller                               Karpenter's loop
//	7  simulator                                the world around the loop in virtual time
//	8  plantest, cmd/karpsim, examples,         what users run; random scenarios for the
//	   internal/scenariogen                     invariant tests
//
// The decision core (requirements, resources, instancetypes, pricing,
// scheduling, budgets, drift, consolidation, invariants) does no I/O and
// imports neither manifests nor cloud: it takes plain structs and returns
// decisions.
package layering
