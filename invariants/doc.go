// Package invariants checks karpsim's decisions against the rules no
// decision may break, whatever chose it: a node never overcommitted, a pod
// never placed against its selectors, affinities, tolerations or
// DoNotSchedule topology spread, a NodePool's limits, requirements and
// minValues never exceeded, a disruption never past a budget or a PDB, a
// do-not-disrupt pod never evicted voluntarily, a consolidation never more
// expensive than what it replaces, and a simulation that never loses a pod.
//
// Each rule is written here again from the Kubernetes and Karpenter
// semantics (reference §1–§2), not by calling package scheduling's own fit
// code: a checker that asked the scheduler would only check the scheduler
// against itself. Only the low-level algebra is shared (resources, label
// names, pod predicates, budgets' cron windows). Where a rule's exact
// reading depends on the order the solver placed pods in, the check is
// the weaker one that holds for every order, so that a violation is always
// a real one.
//
// CheckPlan checks a provisioning decision, CheckDisruption a disruption
// decision, CheckCluster a cluster at one instant. Every check is a pure
// function returning every Violation it finds, each naming the rule and the
// objects it concerns.
//
// It imports apis, requirements, resources, instancetypes, budgets,
// scheduling and consolidation; never snapshot, controller, simulator or
// cmd, which use it.
//
// The import rules between packages are checked by internal/layering.
package invariants
