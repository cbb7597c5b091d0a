package consolidation

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// maxMultiNodeBatch bounds the candidates multi-node consolidation weighs.
const maxMultiNodeBatch = 100

// bySavingsRatio is the consolidation order since v1.14: price per unit of
// disruption, highest first, then by name.
func bySavingsRatio(a, b *nodeInfo) int {
	return cmp.Or(cmp.Compare(b.savingsRatio(), a.savingsRatio()), cmp.Compare(a.name, b.name))
}

// emptiness deletes every empty candidate the Empty budgets allow, in one
// command (emptiness.go). Upstream re-checks the nodes 15 s later; a
// snapshot cannot change in between, so that check always passes here.
func (e *evaluation) emptiness() []Command {
	var empty []*nodeInfo
	for _, n := range e.nodes {
		if n.blocked == "" && n.empty() {
			if n.in.BufferPods > 0 {
				n.note("hosts %s: not empty", plural(n.in.BufferPods, "capacity-buffer pod"))
				continue
			}
			if why := n.consolidationBlock(); why != "" {
				n.note("%s", why)
				continue
			}
			empty = append(empty, n)
		}
	}
	slices.SortFunc(empty, bySavingsRatio)
	b := e.newBudget(apis.DisruptionReasonEmpty)
	var chosen []*nodeInfo
	for _, n := range empty {
		if ok, why := b.take(n.poolName); !ok {
			n.note("%s", why)
			continue
		}
		chosen = append(chosen, n)
	}
	if len(chosen) == 0 {
		return nil
	}
	return []Command{e.deletion(MethodEmptiness, apis.DisruptionReasonEmpty, chosen, "empty")}
}

// deletion is a command that deletes nodes whose pods need no new place.
func (e *evaluation) deletion(method string, reason apis.DisruptionReason, nodes []*nodeInfo, what string) Command {
	savings := 0.0
	for _, n := range nodes {
		savings += n.price
		n.command = fmt.Sprintf("%s: %s, deleted", method, what)
	}
	return Command{Method: method, Reason: fmt.Sprintf("%s/delete: %s %s", reason, plural(len(nodes), "node"), what),
		Delete: nodeNames(nodes), Replacements: []scheduling.NodeClaim{}, Moves: []Move{}, SavingsPerHour: round(savings)}
}

// drifted returns the drifted candidates a drift method may take, oldest
// drift first, noting why the others may not.
func (e *evaluation) drifted(static bool) []*nodeInfo {
	var out []*nodeInfo
	for _, n := range e.nodes {
		if n.in.Drift == nil || n.blocked != "" || n.pool.static() != static {
			continue
		}
		if why := n.eventualBlock(); why != "" {
			n.note("drifted (%s) but %s", n.in.Drift.Reason, why)
			continue
		}
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b *nodeInfo) int {
		return cmp.Or(a.in.Drift.Since.Compare(b.in.Drift.Since), cmp.Compare(a.name, b.name))
	})
	return out
}

// drift replaces one drifted node of a dynamic NodePool per pass
// (drift.go): empty nodes first, then the others, each group oldest drift
// first; the first the Drifted budget allows whose pods all fit elsewhere
// goes, with as many replacements as they need and no price check.
func (e *evaluation) drift() []Command {
	cands := e.drifted(false)
	b := e.newBudget(apis.DisruptionReasonDrifted)
	empty, busy := partition(cands, (*nodeInfo).empty)
	for _, n := range slices.Concat(empty, busy) {
		if ok, why := b.has(n.poolName); !ok {
			n.note("%s", why)
			continue
		}
		if n.empty() {
			return []Command{e.deletion(MethodDrift, apis.DisruptionReasonDrifted, []*nodeInfo{n}, "drifted and empty")}
		}
		out := e.simulator().runDrift(n)
		if out.failure != "" {
			if c, ok := e.terminateFirst(n); ok {
				return []Command{c}
			}
			n.note("drift: %s", out.failure)
			continue
		}
		return []Command{e.driftReplace(n, out)}
	}
	return nil
}

// terminateFirst is drift's second chance with the TerminateFirstDrift
// gate (Karpenter v1.15, SimulateSchedulingWithReservedFallback): a node
// launched into a capacity reservation, whose pods found no place, is
// deleted first, with no replacement, when its pods all fit once its unit
// goes back to the reservation (a solve in provisioning mode, so that a pod
// needing a second unit still fails); provisioning then launches into the
// freed unit. The command moves the pods that go to existing nodes; its
// savings are the node's price less that of the nodes provisioning would
// launch for the others.
func (e *evaluation) terminateFirst(n *nodeInfo) (Command, bool) {
	id := n.labels()[apis.LabelCapacityReservationID]
	if !e.opts.TerminateFirstDrift || n.capacityType != apis.CapacityTypeReserved || id == "" {
		return Command{}, false
	}
	out := e.simulator().runCredited(n, map[string]int{id: 1})
	if out.failure != "" {
		return Command{}, false
	}
	n.command = fmt.Sprintf("%s: drifted (%s), terminated first: its reservation %s is full, and its pods fit once its unit is freed", MethodDrift, n.in.Drift.Reason, id)
	reason := fmt.Sprintf("%s/delete: %s: terminate first (reservation %s is full; provisioning launches %s into the freed unit)",
		apis.DisruptionReasonDrifted, n.in.Drift.Reason, id, plural(len(out.claims), "new node"))
	return e.terminateFirstCommand(n, out, MethodDrift, reason), true
}

// terminateFirstCommand is the delete-only command that terminates n first
// (drift's or repair's, by method), once out, its simulation with its
// reservation unit credited back, has placed its pods: the moves onto
// existing nodes, and savings of n's price less the nodes provisioning
// launches into the freed unit.
func (e *evaluation) terminateFirstCommand(n *nodeInfo, out outcome, method, reason string) Command {
	existing := make(map[string]bool, len(e.nodes))
	for _, d := range e.nodes {
		existing[d.name] = true
	}
	moves := slices.DeleteFunc(slices.Clone(out.moves), func(m Move) bool { return !existing[m.To] })
	return Command{Method: method, Reason: reason, Delete: []string{n.name}, Replacements: []scheduling.NodeClaim{},
		Moves: nonNil(moves), SavingsPerHour: round(n.price - claimsPrice(out.claims)), TerminateFirst: true}
}

// partition splits nodes by keep, each part in the order given.
func partition(nodes []*nodeInfo, keep func(*nodeInfo) bool) (yes, no []*nodeInfo) {
	for _, n := range nodes {
		if keep(n) {
			yes = append(yes, n)
		} else {
			no = append(no, n)
		}
	}
	return yes, no
}

func (e *evaluation) driftReplace(n *nodeInfo, out outcome) Command {
	cost := claimsPrice(out.claims)
	decision, what := "replace", "replaced by "+plural(len(out.claims), "new node")
	if len(out.claims) == 0 {
		decision, what = "delete", "deleted, its pods fit on other nodes"
	}
	n.command = fmt.Sprintf("%s: drifted (%s), %s", MethodDrift, n.in.Drift.Reason, what)
	reason := fmt.Sprintf("%s/%s: %s", apis.DisruptionReasonDrifted, decision, n.in.Drift.Reason)
	if n.in.Drift.Detail != "" {
		reason += ": " + n.in.Drift.Detail
	}
	return Command{Method: MethodDrift, Reason: reason, Delete: []string{n.name},
		Replacements: nonNil(out.claims), Moves: nonNil(out.moves), SavingsPerHour: round(n.price - cost)}
}

// underutilizedCandidates are the nodes multi- and single-node
// consolidation weigh, in savings-ratio order; the reasons the others are
// left out are noted once.
func (e *evaluation) underutilizedCandidates() []*nodeInfo {
	if e.read {
		return e.underutilized
	}
	e.read = true
	for _, n := range e.nodes {
		if n.blocked != "" {
			continue
		}
		if why := cmp.Or(n.consolidationBlock(), n.underutilizedBlock()); why != "" {
			if !n.empty() {
				n.note("%s", why)
			}
			continue
		}
		e.underutilized = append(e.underutilized, n)
	}
	slices.SortFunc(e.underutilized, bySavingsRatio)
	return e.underutilized
}

// multiNode looks for the longest prefix of the budget-allowed candidates
// (at least two) that can go at once, by binary search over its length
// (multinodeconsolidation.go, firstNConsolidationOption). As upstream, the
// search runs over indexes 1…min(n−1, 100), so a prefix has at most 101
// nodes when more than 100 are allowed. With Options.Timeouts, the search
// stops once its budget is spent, keeping the last command it had proven.
func (e *evaluation) multiNode() []Command {
	b := e.newBudget(apis.DisruptionReasonUnderutilized)
	var allowed []*nodeInfo
	for _, n := range e.underutilizedCandidates() {
		// Nodes past the budget are only left out of the batch: single-node
		// consolidation still weighs them, so they get no note here.
		if ok, _ := b.take(n.poolName); ok {
			allowed = append(allowed, n)
		}
	}
	if len(allowed) < 2 {
		return nil
	}
	lo, hi := 1, maxMultiNodeBatch
	if len(allowed) <= maxMultiNodeBatch {
		hi = len(allowed) - 1
	}
	var best *Command
	clk := e.clock(e.timeouts().MultiNode, MultiNodeTimeout)
	for lo <= hi {
		if clk.reached() {
			e.note(allowed, "multi-node: stopped at its %v timeout after %d simulations", clk.budget, clk.simulations)
			break
		}
		mid := (lo + hi) / 2
		cmd, _ := e.consolidate(MethodMultiNode, allowed[:mid+1])
		clk.tick()
		if cmd != nil {
			best, lo = cmd, mid+1
		} else {
			hi = mid - 1
		}
	}
	if best == nil {
		return nil
	}
	e.markReplaced(best)
	return []Command{*best}
}

// singleNode tries the candidates one at a time, interleaving NodePools so
// that one pool cannot starve the others (singlenodeconsolidation.go); the
// first that yields a command wins. NodePools it ran out of time on in an
// earlier pass (Options.TimedOutNodePools) go first; with Options.Timeouts
// it stops once its budget is spent, and the NodePools it did not reach
// become Decision.TimedOutNodePools. It leaves them as they were when it
// returns a command, and empties them when it tries every candidate.
func (e *evaluation) singleNode() []Command {
	b := e.newBudget(apis.DisruptionReasonUnderutilized)
	order := interleave(timedOutFirst(e.underutilizedCandidates(), e.opts.TimedOutNodePools))
	unseen := make(map[string]bool)
	for _, n := range order {
		unseen[n.poolName] = true
	}
	clk := e.clock(e.timeouts().SingleNode, SingleNodeTimeout)
	for i, n := range order {
		if clk.past() {
			e.note(order[i:], "single-node: not reached before its %v timeout (%d simulations)", clk.budget, clk.simulations)
			e.timedOut = sortedKeys(unseen)
			return nil
		}
		delete(unseen, n.poolName)
		if ok, why := b.has(n.poolName); !ok {
			n.note("%s", why)
			continue
		}
		if ok, why := e.canPass(n); !ok {
			n.note("single-node: %s", why)
			continue
		}
		cmd, why := e.consolidate(MethodSingleNode, []*nodeInfo{n})
		clk.tick()
		if cmd == nil {
			n.note("single-node: %s", why)
			continue
		}
		e.markReplaced(cmd)
		return []Command{*cmd}
	}
	e.timedOut = []string{}
	return nil
}

// timeouts returns Options.Timeouts, or none.
func (e *evaluation) timeouts() Timeouts {
	if e.opts.Timeouts == nil {
		return Timeouts{}
	}
	return *e.opts.Timeouts
}

// note adds the same note to each node.
func (e *evaluation) note(nodes []*nodeInfo, format string, args ...any) {
	for _, n := range nodes {
		n.note(format, args...)
	}
}

// markReplaced records the command in its nodes' verdicts.
func (e *evaluation) markReplaced(cmd *Command) {
	for _, name := range cmd.Delete {
		i, _ := slices.BinarySearchFunc(e.nodes, name, func(n *nodeInfo, name string) int { return cmp.Compare(n.name, name) })
		e.nodes[i].command = fmt.Sprintf("%s: %s", cmd.Method, cmd.Reason)
	}
}

// interleave takes one candidate of each NodePool in turn, pools in the
// order their first candidate appears.
func interleave(cands []*nodeInfo) []*nodeInfo {
	var order []string
	byPool := map[string][]*nodeInfo{}
	for _, n := range cands {
		if _, ok := byPool[n.poolName]; !ok {
			order = append(order, n.poolName)
		}
		byPool[n.poolName] = append(byPool[n.poolName], n)
	}
	out := make([]*nodeInfo, 0, len(cands))
	for i := 0; len(out) < len(cands); i++ {
		for _, pool := range order {
			if i < len(byPool[pool]) {
				out = append(out, byPool[pool][i])
			}
		}
	}
	return out
}
