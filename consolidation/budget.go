package consolidation

import (
	"fmt"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/budgets"
)

// countBudgetNodes fills each pool's budget counts as upstream's
// BuildDisruptionBudgetMapping does: managed, initialized nodes whose
// instance is not already terminating count; those deleting or NotReady
// also count as disrupting.
func (e *evaluation) countBudgetNodes() {
	for _, n := range e.nodes {
		if n.pool == nil || n.in.NodeClaim == nil || !n.in.Node.Initialized || terminating(n.in.NodeClaim) {
			continue
		}
		n.pool.total++
		if n.in.Deleting || n.in.NotReady || n.in.NodeClaim.DeletionTimestamp != nil {
			n.pool.disrupting++
		}
	}
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
		b.left[name] = a.Left(p.disrupting)
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
	if a.Left(p.disrupting) == 0 {
		return fmt.Sprintf("budget of NodePool %s allows no %s disruption: %s of %d nodes, %d already disrupting", pool, b.reason, a, p.total, p.disrupting)
	}
	return fmt.Sprintf("budget of NodePool %s for %s (%s of %d nodes, %d already disrupting) is used up by the nodes before it", pool, b.reason, a, p.total, p.disrupting)
}
