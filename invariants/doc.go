// Package invariants checks karpsim's decisions against the rules no
// decision may break, whatever chose it: a node never overcommitted, a pod
// never placed against its selectors, affinities, tolerations or
// DoNotSchedule topology spread, a NodePool's limits, requirements and
// minValues never exceeded, a disruption never past a budget or a PDB, a
// do-not-disrupt pod never evicted voluntarily, a consolidation never more
// expensive than what it replaces, and a simulation that never loses a pod.
//
// CheckPlan checks a provisioning decision (a scheduling.Input and the
// Result a planner gave for it), CheckDisruption a disruption decision,
// CheckCluster a cluster at one instant. Every check is a pure function
// returning every Violation it finds, each naming the rule and the objects
// it concerns; Err turns them into one error. A planner of your own should
// pass CheckPlan on every input; simulator.Config.CheckInvariants runs the
// checks on every decision of a run.
//
// Each rule is written here again from the Kubernetes and Karpenter
// semantics, not by calling package scheduling's own fit code: a checker
// that asked the scheduler would only check the scheduler against itself.
// Where a rule's exact reading depends on the order the solver placed pods
// in, the check is the weaker one that holds for every order, so that a
// violation is always a real one.
package invariants
