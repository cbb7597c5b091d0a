package consolidation

import (
	"fmt"
	"time"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/budgets"
)

// countBudgetNodes fills each pool's budget counts as upstream's
// NodePoolStatsFromNodes does (v1.15): managed nodes that are initialized
// or rebooting (a reboot clears the initialized label once issued) and
// whose instance is not already terminating count; those deleting or
// rebooting count as disrupting for every reason, and those NotReady for
// every reason but Unhealthy (node repair's, which NotReady triggers).
func (e *evaluation) countBudgetNodes() {
	for _, n := range e.nodes {
		if n.pool == nil || n.in.NodeClaim == nil || (!n.in.Node.Initialized && !rebooting(n.in.NodeClaim)) || terminating(n.in.NodeClaim) {
			continue
		}
		n.pool.total++
		switch {
		case n.in.Deleting || n.in.NodeClaim.DeletionTimestamp != nil || rebooting(n.in.NodeClaim):
			n.pool.disrupting++
		case n.in.NotReady:
			n.pool.notReady++
		}
	}
}

// disruptingFor is how many of the pool's nodes count as disrupting
// against the reason's budgets.
func (p *poolInfo) disruptingFor(reason apis.DisruptionReason) int {
	if reason == apis.DisruptionReasonUnhealthy {
		return p.disrupting
	}
	return p.disrupting + p.notReady
}

// AllowedDisruptions is how many more of each NodePool's nodes Karpenter
// may disrupt for the reason at now, as its BuildDisruptionBudgetMapping
// computes them: the NodePool's budgets for the reason over the nodes it
// counts, less the nodes already disrupting (deleting or rebooting; NotReady
// too, except for Unhealthy), never below zero; budgets.Unlimited when no
// active budget applies. Every NodePool of the cluster has an entry.
func AllowedDisruptions(c Cluster, now time.Time, reason apis.DisruptionReason) map[string]int {
	e := newEvaluation(c, now, Options{})
	out := make(map[string]int, len(e.pools))
	for name, p := range e.pools {
		out[name] = budgets.Allowed(p.np.Spec.Disruption.Budgets, reason, p.total, now).Left(p.disruptingFor(reason))
	}
	return out
}

// budget is what one method may still disrupt per NodePool in one pass.
type budget struct {
	reason     apis.DisruptionReason
	left       map[string]int
	allowances map[string]budgets.Allowance
	pools      map[string]*poolInfo
}

// newBudget evaluates every pool's budgets for the reason at now.
func (e *evaluation) newBudget(reason apis.DisruptionReason) *budget {
	b := &budget{reason: reason, left: map[string]int{}, allowances: map[string]budgets.Allowance{}, pools: e.pools}
	for name, p := range e.pools {
		a := budgets.Allowed(p.np.Spec.Disruption.Budgets, reason, p.total, e.now)
		b.allowances[name] = a
		b.left[name] = a.Left(p.disruptingFor(reason))
	}
	return b
}

// take uses one disruption of the pool's budget, or says why there is none.
func (b *budget) take(pool string) (bool, string) {
	if b.left[pool] > 0 {
		if b.left[pool] != budgets.Unlimited {
			b.left[pool]--
		}
		return true, ""
	}
	return false, b.why(pool)
}

// has reports whether the pool may disrupt one more node, without taking it.
func (b *budget) has(pool string) (bool, string) {
	if b.left[pool] > 0 {
		return true, ""
	}
	return false, b.why(pool)
}

func (b *budget) why(pool string) string {
	a, p := b.allowances[pool], b.pools[pool]
	disrupting := p.disruptingFor(b.reason)
	if a.Left(disrupting) == 0 {
		return fmt.Sprintf("budget of NodePool %s allows no %s disruption: %s of %d nodes, %d already disrupting", pool, b.reason, a, p.total, disrupting)
	}
	return fmt.Sprintf("budget of NodePool %s for %s (%s of %d nodes, %d already disrupting) is used up by the nodes before it", pool, b.reason, a, p.total, disrupting)
}
