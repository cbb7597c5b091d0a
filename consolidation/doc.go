// Package consolidation decides what Karpenter would disrupt next and why it
// leaves every other node alone (reference §2): it finds the candidates and
// what blocks the rest (node and pod annotations, PodDisruptionBudgets,
// consolidateAfter, NodePool budgets), then runs Karpenter's disruption
// methods in order — emptiness, static drift, drift, multi-node and
// single-node consolidation — simulating with scheduling.Solve where pods must
// move (and with Options.Planner beside it, when set), and returns the first
// method's commands together with a verdict for every node. Evaluate is
// pure: the time is an argument, it does no I/O and starts no goroutines,
// its output is the same for the same input (every sort ends on a unique
// key), and it never changes its input.
//
// It owns the disruption decision. It imports apis, budgets, instancetypes,
// requirements, resources and scheduling; never manifests, cloud, snapshot,
// controller or anything that does I/O.
//
// The import rules between packages are checked by internal/layering.
package consolidation
