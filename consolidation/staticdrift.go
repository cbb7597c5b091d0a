package consolidation

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// staticDrift replaces drifted nodes of static NodePools (replicas set)
// one for one with a node from the pool's template, no simulation
// (staticdrift.go): per pool, as many as the Drifted budget allows and the
// pool's node limit leaves room to launch first, each its own command. A
// pool still scaling down is left alone.
func (e *evaluation) staticDrift() []Command {
	byPool := map[string][]*nodeInfo{}
	for _, n := range e.drifted(true) {
		byPool[n.poolName] = append(byPool[n.poolName], n)
	}
	b := e.newBudget(apis.DisruptionReasonDrifted)
	var commands []Command
	for _, name := range sortedKeys(byPool) {
		cands, pool := byPool[name], e.pools[name]
		if ok, why := b.has(name); !ok {
			noteAll(cands, "static drift: "+why)
			continue
		}
		active, deleting := e.staticCounts(name)
		if replicas := *pool.np.Spec.Replicas; int64(active) > replicas {
			noteAll(cands, fmt.Sprintf("static drift: NodePool %s is scaling down (%d nodes for %d replicas)", name, active, replicas))
			continue
		}
		limit := int64(math.MaxInt64)
		if _, ok := pool.np.Spec.Limits["nodes"]; ok {
			// Bounded as every amount is (resources.MaxAmount): apimachinery
			// reads 1e30 as 0, and the subtraction below must not wrap.
			limit = resources.FromList(pool.np.Spec.Limits).Get("nodes")
		}
		drifts := min(int64(b.left[name]), int64(len(cands)), max(0, limit-int64(active+deleting)))
		for i, n := range cands {
			if int64(i) >= drifts {
				n.note("static drift: %s", cmp.Or(budgetOrLimit(b, name, limit), "NodePool is at its node limit and cannot launch a replacement first"))
				continue
			}
			b.left[name]--
			commands = append(commands, e.staticReplace(n, pool, len(commands)+1))
		}
	}
	return commands
}

func budgetOrLimit(b *budget, pool string, limit int64) string {
	if b.left[pool] <= 0 {
		return b.why(pool)
	}
	return fmt.Sprintf("NodePool %s is at its node limit (%d) and cannot launch a replacement first", pool, limit)
}

func noteAll(nodes []*nodeInfo, why string) {
	for _, n := range nodes {
		n.note("%s", why)
	}
}

// staticCounts counts a static pool's nodes that are not deleting, and
// those that are.
func (e *evaluation) staticCounts(pool string) (active, deleting int) {
	for _, n := range e.nodes {
		if n.poolName != pool || n.in.NodeClaim == nil {
			continue
		}
		if n.in.Deleting || n.in.NodeClaim.DeletionTimestamp != nil || terminating(n.in.NodeClaim) {
			deleting++
		} else {
			active++
		}
	}
	return active, deleting
}

func (e *evaluation) staticReplace(n *nodeInfo, pool *poolInfo, k int) Command {
	claim := e.templateClaim(pool, fmt.Sprintf("%s-%d", pool.name, k))
	n.command = fmt.Sprintf("%s: drifted (%s), replaced by %s", MethodStaticDrift, n.in.Drift.Reason, claim.Name)
	reason := fmt.Sprintf("%s/replace: %s", apis.DisruptionReasonDrifted, n.in.Drift.Reason)
	if n.in.Drift.Detail != "" {
		reason += ": " + n.in.Drift.Detail
	}
	// Static drift simulates nothing, so it says nothing of where pods go.
	return Command{Method: MethodStaticDrift, Reason: reason, Delete: []string{n.name}, Replacements: []scheduling.NodeClaim{claim},
		Moves: []Move{}, SavingsPerHour: round(n.price - claim.PricePerHour)}
}

// templateClaim is a NodeClaim straight from the pool's template: every
// type its requirements allow with an offering, cheapest first.
func (e *evaluation) templateClaim(pool *poolInfo, name string) scheduling.NodeClaim {
	reqs := pool.reqs.Add(requirements.In(apis.LabelNodePool, pool.name))
	var types []*instancetypes.InstanceType
	for _, it := range pool.catalog {
		if it.Requirements.IntersectsFast(reqs) && hasOffering(it, reqs) {
			types = append(types, it)
		}
	}
	types = orderByPrice(types, reqs)
	limit := e.opts.Scheduling.MaxInstanceTypes
	if limit <= 0 {
		limit = scheduling.MaxInstanceTypes
	}
	types = types[:min(len(types), limit)]
	claim := scheduling.NodeClaim{Name: name, NodePool: pool.name, Requests: map[string]string{}, Pods: []string{}}
	return finalize(claim, slices.Clip(types), reqs)
}
