package consolidation

import (
	"cmp"
	"slices"
	"time"
)

// Karpenter's consolidation time budgets: single-node consolidation gives up
// after three minutes (singlenodeconsolidation.go), multi-node's search
// after one, keeping the longest prefix it has proven by then
// (multinodeconsolidation.go).
const (
	SingleNodeTimeout = 3 * time.Minute
	MultiNodeTimeout  = time.Minute
)

// Timeouts model Karpenter's consolidation time budgets on a virtual clock,
// so that an evaluation stays a function of its input: the clock starts at
// zero when a method starts and advances by SimulationCost for each
// scheduling simulation the method runs. Single-node consolidation stops
// before its next candidate once the clock is past its budget, remembering
// the NodePools it did not reach (Decision.TimedOutNodePools); multi-node
// consolidation stops before its next simulation once the clock has reached
// its budget, returning the last command it had proven, if any.
type Timeouts struct {
	// SimulationCost is how long one scheduling simulation is taken to
	// last; Karpenter's last about 10–500 ms, growing with the cluster.
	// Negative counts as zero.
	SimulationCost time.Duration
	// SingleNode and MultiNode are the budgets; zero means
	// SingleNodeTimeout and MultiNodeTimeout. A negative budget is spent
	// before the method starts, as when Karpenter's context has expired.
	SingleNode, MultiNode time.Duration
}

// clock is one method's virtual clock against its budget.
type clock struct {
	on           bool
	cost, budget time.Duration
	spent        time.Duration
	simulations  int
}

// clock starts the virtual clock of a method whose budget is given, or def;
// without Options.Timeouts it never runs out.
func (e *evaluation) clock(budget, def time.Duration) *clock {
	t := e.opts.Timeouts
	if t == nil {
		return &clock{}
	}
	return &clock{on: true, cost: max(t.SimulationCost, 0), budget: cmp.Or(budget, def)}
}

// tick counts one simulation; the clock saturates rather than overflow.
func (c *clock) tick() {
	c.simulations++
	if c.spent > time.Duration(1<<62)-c.cost {
		c.spent = time.Duration(1 << 62)
		return
	}
	c.spent += c.cost
}

// past reports whether the clock is past the budget, as single-node
// consolidation's check of its deadline is.
func (c *clock) past() bool { return c.on && c.spent > c.budget }

// reached reports whether the clock has reached the budget, as a context's
// deadline is.
func (c *clock) reached() bool { return c.on && c.spent >= c.budget }

// timedOutFirst orders candidates' NodePools as single-node consolidation
// interleaves them: the NodePools it ran out of time on in an earlier pass
// first, then the others, each group in the order of its first candidate.
// (Karpenter takes each group in map order; karpsim keeps its order
// deterministic.)
func timedOutFirst(cands []*nodeInfo, timedOut []string) []*nodeInfo {
	if len(timedOut) == 0 {
		return cands
	}
	first, rest := partition(cands, func(n *nodeInfo) bool { return slices.Contains(timedOut, n.poolName) })
	return append(first, rest...)
}
