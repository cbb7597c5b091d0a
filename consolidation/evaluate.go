package consolidation

import (
	"cmp"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// evaluation is the state of one Evaluate call.
type evaluation struct {
	now   time.Time
	opts  Options
	pools map[string]*poolInfo
	// nodes are every node of the cluster, sorted by name.
	nodes []*nodeInfo
	pdbs  pdbIndex
	// sim runs the scheduling simulations; built on first use, since
	// emptiness and static drift need none.
	sim     *simulator
	cluster Cluster
	// daemons are the cluster's DaemonSet pods as simulations take them
	// (Cache.simulationDaemons).
	daemons []*corev1.Pod
	// underutilized are the consolidation candidates in savings-ratio
	// order, worked out once for multi- and single-node consolidation.
	underutilized []*nodeInfo
	read          bool
	totals        map[string]poolTotals
	// acted names the method whose commands are returned.
	acted string
	// timedOut, when not nil, are the NodePools single-node consolidation
	// left for the next evaluation (Decision.TimedOutNodePools).
	timedOut []string
	// exhaustive turns off the shortcuts of the simulations (see prune.go),
	// for tests that hold them against plain solves.
	exhaustive bool
	// solveAgain turns off narrowingIdle alone, for tests.
	solveAgain bool
}

// method is one disruption method: it returns its commands, or none.
type method struct {
	name string
	run  func(*evaluation) []Command
}

// methods are Karpenter's disruption methods in the order its controller
// tries them (pkg/controllers/disruption/controller.go): the first that
// returns a command ends the pass. Repair goes first when it is on (fixing
// a fault outranks any rebalance); empty nodes next since deleting them
// disrupts no pod; drift comes before consolidation since drifted nodes must
// go anyway; multi-node consolidation before single-node, since one command
// that removes several nodes churns pods less than several commands.
var methods = []method{
	{MethodRepair, (*evaluation).repair},
	{MethodEmptiness, (*evaluation).emptiness},
	{MethodStaticDrift, (*evaluation).staticDrift},
	{MethodDrift, (*evaluation).drift},
	{MethodMultiNode, (*evaluation).multiNode},
	{MethodSingleNode, (*evaluation).singleNode},
}

// MethodAfter is the method Karpenter tries after m, "" after the last (or
// for a name that is no method).
func MethodAfter(m string) string {
	for i, mm := range methods[:len(methods)-1] {
		if mm.name == m {
			return methods[i+1].name
		}
	}
	return ""
}

// Evaluate decides what Karpenter would disrupt in the cluster at now, and
// says for every node why it is or is not disrupted.
func Evaluate(c Cluster, now time.Time, opts Options) Decision {
	return evaluate(newEvaluation(c, now, opts))
}

func evaluate(e *evaluation) Decision {
	var commands []Command
	skipping := e.opts.From != ""
	for _, m := range methods {
		if skipping = skipping && m.name != e.opts.From; skipping {
			continue
		}
		if commands = m.run(e); len(commands) > 0 {
			e.acted = m.name
			break
		}
	}
	timedOut := e.timedOut
	if timedOut == nil {
		timedOut = slices.Clone(e.opts.TimedOutNodePools)
		slices.Sort(timedOut)
	}
	if len(timedOut) == 0 {
		timedOut = nil
	}
	return Decision{Commands: nonNil(commands), Candidates: e.verdicts(), TimedOutNodePools: timedOut}
}

func newEvaluation(c Cluster, now time.Time, opts Options) *evaluation {
	// Karpenter's disruption simulations (SimulateScheduling) build their
	// scheduler without DisableReservedCapacityFallback: a claim whose
	// reservations are all held launches spot or on-demand, and a NodePool
	// whose only offerings are full reservations is passed over for the
	// next. Only provisioning, and terminate-first's credited solve, wait.
	opts.Scheduling.ReservedFallback = true
	e := &evaluation{now: now, opts: opts, pools: readPools(c.NodePools), cluster: c,
		daemons: opts.Cache.simulationDaemons(c.DaemonSets)}
	count := len(c.Pending)
	for _, n := range c.Nodes {
		if n != nil && n.Node != nil {
			count += len(n.Node.Pods)
		}
	}
	all := make([]*corev1.Pod, 0, count)
	// A pod is bound unless it is only pending: a set of the few pending
	// pods, not of every bound one.
	pendingOnly := make(map[*corev1.Pod]bool, len(c.Pending))
	for _, p := range c.Pending {
		pendingOnly[p] = true
	}
	for _, n := range c.Nodes {
		if n == nil || n.Node == nil {
			continue
		}
		all = append(all, n.Node.Pods...)
		if len(pendingOnly) > 0 {
			for _, p := range n.Node.Pods {
				delete(pendingOnly, p)
			}
		}
	}
	all = append(all, c.Pending...)
	e.pdbs = newPDBIndex(c.PDBs, all, func(p *corev1.Pod) bool { return !pendingOnly[p] })
	for _, n := range c.Nodes {
		if n != nil {
			e.nodes = append(e.nodes, e.readNode(n))
		}
	}
	slices.SortStableFunc(e.nodes, func(a, b *nodeInfo) int { return cmp.Compare(a.name, b.name) })
	e.countBudgetNodes()
	return e
}

// simulator returns the simulator, building it on first use.
func (e *evaluation) simulator() *simulator {
	if e.sim == nil {
		e.sim = newSimulator(e)
	}
	return e.sim
}

// verdicts assembles one verdict per node: what the command does with it,
// or every reason the methods found not to disrupt it.
func (e *evaluation) verdicts() []CandidateVerdict {
	out := make([]CandidateVerdict, 0, len(e.nodes))
	for _, n := range e.nodes {
		v := CandidateVerdict{Node: n.name, NodePool: n.poolName}
		switch {
		case n.command != "":
			v.Disruptable, v.Reason = true, n.command
		case n.blocked != "":
			// Only node repair, whose candidate rules differ, notes on a
			// node every other method passes over.
			v.Reason = strings.Join(append([]string{n.blocked}, dedupe(n.notes)...), "; ")
		case len(n.notes) > 0:
			v.Reason = strings.Join(dedupe(n.notes), "; ")
		case n.standingBlock() != "":
			// No method got to the node, but this would have stopped them.
			v.Reason = n.standingBlock()
		case e.acted != "":
			v.Reason = "not evaluated: " + e.acted + " found a command first"
		default:
			v.Reason = "no method applies"
		}
		out = append(out, v)
	}
	return out
}

// dedupe drops notes that repeat an earlier one, in part or whole.
func dedupe(notes []string) []string {
	var out []string
	for _, s := range notes {
		if !slices.ContainsFunc(out, func(o string) bool { return strings.Contains(o, s) }) {
			out = append(out, s)
		}
	}
	return out
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
