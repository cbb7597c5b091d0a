package consolidation

import (
	"fmt"
	"math"

	"github.com/karpsim/karpsim/apis"
)

// policyBalanced is the consolidation policy Karpenter v1.14 added (PR
// kubernetes-sigs/karpenter#2962): a consolidation move of a Balanced
// NodePool must save, as a share of the pool's cost, at least half the
// share of the pool's disruption it causes. apis does not list it yet.
const policyBalanced = apis.ConsolidationPolicyBalanced

// balancedK is upstream's BalancedK: a move passes when its score is at
// least 1/k.
const balancedK = 2

// poolTotals are a NodePool's cost and disruption, the denominators of the
// Balanced score.
type poolTotals struct{ cost, disruption float64 }

// balancedTotals sums, per NodePool, the price and the disruption cost of
// all of its nodes.
func (e *evaluation) balancedTotals() map[string]poolTotals {
	if e.totals != nil {
		return e.totals
	}
	e.totals = map[string]poolTotals{}
	for _, n := range e.nodes {
		if n.in.NodeClaim == nil || n.poolName == "" {
			continue
		}
		t := e.totals[n.poolName]
		t.cost += n.price
		t.disruption += n.cost
		e.totals[n.poolName] = t
	}
	return e.totals
}

// BalancedThreshold is the least score (BalancedScore) a move of a
// Balanced NodePool needs: 1/k with upstream's k of 2.
const BalancedThreshold = 1.0 / balancedK

// BalancedScore is how the Balanced consolidation policy scores a move
// (upstream's ScoreMove): the share of its NodePool's cost (poolCost, the
// prices of the pool's nodes) the move saves, over the share of the pool's
// disruption cost (poolDisruption, the sum of its nodes' reschedule
// disruption costs) it causes. It is 0 when the pool costs nothing, has no
// disruption cost or the move saves nothing, and +Inf when the move
// disrupts nothing. A move passes with a score of at least
// BalancedThreshold. Evaluate applies it to every move of a Balanced pool;
// callers may use it to say how far a move is from passing.
func BalancedScore(savings, disruption, poolCost, poolDisruption float64) float64 {
	return score(savings, disruption, poolTotals{cost: poolCost, disruption: poolDisruption})
}

// score is BalancedScore over a pool's totals.
func score(savings, disruption float64, t poolTotals) float64 {
	if t.cost <= 0 || t.disruption <= 0 {
		return 0
	}
	savingsShare, disruptionShare := savings/t.cost, disruption/t.disruption
	switch {
	case savingsShare <= 0:
		return 0
	case disruptionShare == 0:
		return math.Inf(1)
	}
	return savingsShare / disruptionShare
}

// approve is upstream's EvaluateBalancedMove: every Balanced NodePool among
// the candidates must score at least 1/k with its share of the savings
// (split by the candidates' prices when several pools are involved). Other
// policies always pass.
func (e *evaluation) approve(cands []*nodeInfo, savings float64) (bool, string) {
	byPool := map[string][]*nodeInfo{}
	sourceCost := 0.0
	for _, c := range cands {
		byPool[c.poolName] = append(byPool[c.poolName], c)
		sourceCost += c.price
	}
	for _, name := range sortedKeys(byPool) {
		if e.pools[name].policy() != policyBalanced {
			continue
		}
		poolCost, disruption := 0.0, 0.0
		for _, c := range byPool[name] {
			poolCost += c.price
			disruption += c.cost
		}
		share := savings
		if len(byPool) > 1 && sourceCost > 0 {
			share = savings * poolCost / sourceCost
		}
		t := e.balancedTotals()[name]
		if s := score(share, disruption, t); s < BalancedThreshold {
			return false, fmt.Sprintf("Balanced NodePool %s: score %.3f is below %.3f (saves $%.4f of $%.4f/h for %.1f of %.1f disruption)",
				name, s, BalancedThreshold, share, t.cost, disruption, t.disruption)
		}
	}
	return true, ""
}

// canPass is upstream's CanPassThreshold: a candidate of a Balanced pool
// whose deletion, the best move it has, would not pass is not simulated.
func (e *evaluation) canPass(n *nodeInfo) (bool, string) {
	if n.pool.policy() != policyBalanced {
		return true, ""
	}
	t, ok := e.balancedTotals()[n.poolName]
	if !ok || t.cost <= 0 {
		return true, ""
	}
	if s := score(n.price, n.cost, t); s < BalancedThreshold {
		return false, fmt.Sprintf("Balanced NodePool %s: even deleting the node scores %.3f, below %.3f", n.poolName, s, BalancedThreshold)
	}
	return true, ""
}
