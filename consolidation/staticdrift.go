package consolidation

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
		if e.opts.TerminateFirstDrift {
			if offered, full := pool.fullReservations(); full {
				commands = e.staticTerminateFirst(commands, b, pool, reservationHoldersFirst(cands, offered), func(n *nodeInfo) bool { return holdsOffered(n, offered) },
					"the NodePool's capacity reservations are full")
				continue
			}
		}
		limit := int64(math.MaxInt64)
		if _, ok := pool.np.Spec.Limits["nodes"]; ok {
			// Bounded as every amount is (resources.MaxAmount): apimachinery
			// reads 1e30 as 0, and the subtraction below must not wrap.
			limit = resources.FromList(pool.np.Spec.Limits).Get("nodes")
		}
		room := max(0, limit-int64(active+deleting))
		if room == 0 && e.opts.TerminateFirstDrift {
			commands = e.staticTerminateFirst(commands, b, pool, cands, func(*nodeInfo) bool { return true },
				fmt.Sprintf("the NodePool is at its node limit (%d)", limit))
			continue
		}
		drifts := min(int64(b.left[name]), int64(len(cands)), room)
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

// staticTerminateFirst is static drift with the TerminateFirstDrift gate
// (v1.15) when the pool cannot launch a replacement first (why): as many
// candidates as the budget allows, in order, are deleted first, each its own
// command, those that may (eligible) and when the pool can be refilled (not
// being deleted, and no Ready condition that is not True); static
// provisioning then launches their refills. The others the budget reaches
// are blocked, as upstream's are.
func (e *evaluation) staticTerminateFirst(commands []Command, b *budget, pool *poolInfo, cands []*nodeInfo, eligible func(*nodeInfo) bool, why string) []Command {
	refillable := pool.np.DeletionTimestamp == nil && !notReadyPool(pool.np)
	for _, n := range cands {
		if b.left[pool.name] <= 0 {
			n.note("static drift: %s", b.why(pool.name))
			continue
		}
		b.left[pool.name]--
		if !refillable || !eligible(n) {
			n.note("static drift: %s, and it cannot launch a replacement first", why)
			continue
		}
		refill := e.templateClaim(pool, fmt.Sprintf("%s-%d", pool.name, len(commands)+1))
		n.command = fmt.Sprintf("%s: drifted (%s), terminated first: %s", MethodStaticDrift, n.in.Drift.Reason, why)
		reason := fmt.Sprintf("%s/delete: %s: terminate first (%s; static provisioning refills the NodePool)", apis.DisruptionReasonDrifted, n.in.Drift.Reason, why)
		commands = append(commands, Command{Method: MethodStaticDrift, Reason: reason, Delete: []string{n.name}, Replacements: []scheduling.NodeClaim{},
			Moves: []Move{}, SavingsPerHour: round(n.price - refill.PricePerHour), TerminateFirst: true})
	}
	return commands
}

// notReadyPool reports a Ready condition in the NodePool's status that is
// not True; a NodePool without one, as a file written by hand has none, is
// taken as Ready.
func notReadyPool(np *apis.NodePool) bool {
	for _, c := range np.Status.Conditions {
		if c.Type == "Ready" {
			return c.Status != metav1.ConditionTrue
		}
	}
	return false
}

// fullReservations reports whether every offering the pool's template
// allows, available or not, is a capacity reservation with no unit to
// launch into (a static pool then cannot launch a replacement first), and
// which of those reservations are still offered (available).
func (p *poolInfo) fullReservations() (map[string]bool, bool) {
	reqs := p.reqs.Add(requirements.In(apis.LabelNodePool, p.name))
	offered := map[string]bool{}
	for _, it := range p.catalog {
		if !it.Requirements.IntersectsFast(reqs) {
			continue
		}
		for _, of := range it.Offerings {
			if !of.CompatibleUnder(it.LabelRules(), reqs) {
				continue
			}
			if of.CapacityType != apis.CapacityTypeReserved || (of.Available && of.ReservationCapacity > 0) {
				return nil, false
			}
			if of.Available {
				offered[of.ReservationID] = true
			}
		}
	}
	return offered, true
}

// holdsOffered reports whether the node was launched into one of the
// offered reservations: deleting it frees a unit its refill can use.
func holdsOffered(n *nodeInfo, offered map[string]bool) bool {
	return n.capacityType == apis.CapacityTypeReserved && offered[n.labels()[apis.LabelCapacityReservationID]]
}

// reservationHoldersFirst orders the nodes holding an offered reservation
// before the others, each group in the order given.
func reservationHoldersFirst(cands []*nodeInfo, offered map[string]bool) []*nodeInfo {
	yes, no := partition(cands, func(n *nodeInfo) bool { return holdsOffered(n, offered) })
	return slices.Concat(yes, no)
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
