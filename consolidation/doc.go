// Package consolidation decides what Karpenter would disrupt next and why it
// leaves every other node alone: it finds the candidates and what blocks the
// rest (node and pod annotations, PodDisruptionBudgets, consolidateAfter,
// NodePool budgets), then runs Karpenter's disruption methods in order —
// node repair (with Options.NodeRepair, its gate and the provider's
// policies), emptiness, static drift, drift, multi-node and single-node
// consolidation —
// simulating with scheduling.Solve where pods must move (and with
// Options.Planner beside it, when set), and returns the first method's
// commands together with a verdict for every node.
//
// Describe the cluster as a Cluster (its nodes with their pods and
// NodeClaims, the NodePools with their catalogs, the PDBs; snapshot.
// ForDisruption builds one from manifests) and call Evaluate with the time
// to evaluate at. Evaluate is pure: it does no I/O and starts no goroutines,
// its output is the same for the same input, and it never changes its
// input. A Cache speeds up evaluating a changing cluster over the same
// NodePools.
package consolidation
