package consolidation

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/repair"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// repairCandidate is a node node repair may act on, with its decision.
type repairCandidate struct {
	n      *nodeInfo
	result repair.Result
	// cost is upstream's DisruptionCost: the eviction costs of all the
	// node's pods times the share of its lifetime left; the order's
	// tie-break.
	cost float64
	// podBlock is what would stop a graceful drain: repair passes it only
	// with a bounded drain.
	podBlock string
	// escalated is set when the reboot history made a reboot a
	// replacement.
	escalated bool
}

// repair is Karpenter v1.15's Repair method (repair.go), first of all
// when Options.NodeRepair is set: a node whose conditions match a repair
// policy past its toleration is rebooted in place, or replaced (its pods
// get new nodes first when they need them) or deleted when empty. The
// candidates go in order of their repair score (rank + time past
// toleration over repair.AgingConstant), then disruption cost, then name;
// a NodePool with more than repair.UnhealthyThreshold of its nodes
// unhealthy is left alone, and an initialized node needs the Unhealthy
// budget. The first candidate that yields a command is the pass's only
// command.
func (e *evaluation) repair() []Command {
	if e.opts.NodeRepair == nil {
		return nil
	}
	cands := e.repairCandidates()
	if len(cands) == 0 {
		return nil
	}
	slices.SortStableFunc(cands, func(a, b repairCandidate) int {
		return cmp.Or(cmp.Compare(b.result.Score(e.now), a.result.Score(e.now)), cmp.Compare(a.cost, b.cost), cmp.Compare(a.n.name, b.n.name))
	})
	tripped := e.unhealthyPools()
	b := e.newBudget(apis.DisruptionReasonUnhealthy)
	for _, c := range cands {
		n := c.n
		if why, ok := tripped[n.poolName]; ok {
			n.note("repair: %s", why)
			continue
		}
		// An uninitialized node runs no workload to protect: repairing it
		// needs no budget.
		if n.in.Node.Initialized {
			if ok, why := b.has(n.poolName); !ok {
				n.note("repair: %s", why)
				continue
			}
		}
		if cmd, ok := e.repairCommand(c); ok {
			return []Command{cmd}
		}
	}
	return nil
}

// repairCandidates are the nodes with an eligible repair decision that
// nothing vetoes, noting why the others with a matching policy wait.
func (e *evaluation) repairCandidates() []repairCandidate {
	var out []repairCandidate
	for _, n := range e.nodes {
		if n.in.Health == nil {
			continue
		}
		matches := e.opts.NodeRepair.Match(n.in.Health.Conditions, n.in.Health.Created.UTC())
		if len(matches) == 0 {
			continue
		}
		if why := e.repairBlock(n); why != "" {
			n.note("repair: %s", why)
			continue
		}
		notBefore := rebootFinished(n.in.NodeClaim)
		result := repair.Resolve(matches, e.now, notBefore)
		result, escalated := repair.Escalate(result, e.opts.Reboots[n.in.NodeClaim.Name], e.now)
		if result.Action == "" {
			next := slices.MinFunc(matches, func(a, b repair.Match) int { return a.EligibleAt(notBefore).Compare(b.EligibleAt(notBefore)) })
			at := next.EligibleAt(notBefore)
			n.note("repair: %s matches a repair policy, eligible in %s (at %s)", describeCondition(next.Condition().Type, next.Condition().Status, next.Condition().Reason),
				at.Sub(e.now), at.UTC().Format(time.RFC3339))
			continue
		}
		// The operator's veto holds whatever the drain bound.
		if n.in.Annotations[apis.AnnotationDoNotRepair] == "true" {
			n.note("repair: blocked by the %s: \"true\" annotation", apis.AnnotationDoNotRepair)
			continue
		}
		c := repairCandidate{n: n, result: result, podBlock: e.podsBlock(n), cost: e.repairCost(n)}
		if c.podBlock != "" && result.TerminationGracePeriod == nil && n.in.NodeClaim.Spec.TerminationGracePeriod == nil {
			n.note("repair: %s, and neither the repair policy nor the NodeClaim sets a terminationGracePeriod to bound the drain", c.podBlock)
			continue
		}
		c.escalated = escalated
		out = append(out, c)
	}
	return out
}

// repairBlock applies the candidate rules of the repair class
// (NewCandidate with RepairDisruptionClass): those of every method, except
// that an uninitialized node is a candidate once registered (and is then
// not checked for nomination), that the node's do-not-disrupt annotation
// does not count, and that pod blocks are weighed later against the drain
// bound.
func (e *evaluation) repairBlock(n *nodeInfo) string {
	in := n.in
	switch {
	case in.NodeClaim == nil:
		return "not managed by Karpenter (no NodeClaim)"
	case n.poolName == "":
		return "repair requires a NodePool to construct and budget a safe replacement"
	case rebooting(in.NodeClaim):
		return "being rebooted (its NodeClaim's Rebooting condition is True)"
	case in.Deleting || in.NodeClaim.DeletionTimestamp != nil || terminating(in.NodeClaim):
		return "being deleted"
	case !in.Node.Initialized && n.labels()[apis.LabelNodeRegistered] != "true":
		return "not initialized nor registered"
	case in.Node.Initialized && !in.NominatedAt.IsZero() && e.now.Before(in.NominatedAt.Add(e.opts.nominationWindow())):
		return fmt.Sprintf("nominated for a pending pod (%s left)", in.NominatedAt.Add(e.opts.nominationWindow()).Sub(e.now))
	case n.pool == nil:
		return fmt.Sprintf("NodePool %s not found", n.poolName)
	case len(n.pool.catalog) == 0:
		return fmt.Sprintf("NodePool %s has no instance types", n.poolName)
	}
	return ""
}

// rebootFinished is when the NodeClaim's last reboot finished (its
// Rebooting condition turned False), zero when it has not rebooted.
func rebootFinished(nc *apis.NodeClaim) time.Time {
	for _, c := range nc.Status.Conditions {
		if c.Type == "Rebooting" && c.Status == metav1.ConditionFalse {
			return c.LastTransitionTime.UTC()
		}
	}
	return time.Time{}
}

// repairCost is upstream's candidate DisruptionCost: every pod's eviction
// cost, times the share of the NodeClaim's expireAfter still ahead (1
// without one).
func (e *evaluation) repairCost(n *nodeInfo) float64 {
	cost := 0.0
	for _, p := range n.pods {
		cost += evictionCost(p, e.opts.PodDeletionCostManagement)
	}
	claim := n.in.NodeClaim
	if d := claim.Spec.ExpireAfter.Duration; d != nil && *d > 0 {
		left := (d.Seconds() - e.now.Sub(claim.CreationTimestamp.Time).Seconds()) / d.Seconds()
		cost *= min(max(left, 0), 1)
	}
	return cost
}

// unhealthyPools are the NodePools repair stops in, with why: more of their
// nodes than repair.UnhealthyThreshold (rounded up) have a condition a
// policy covers, eligible or not.
func (e *evaluation) unhealthyPools() map[string]string {
	total, unhealthy := map[string]int{}, map[string]int{}
	for _, n := range e.nodes {
		if n.in.Health == nil || n.poolName == "" {
			continue
		}
		total[n.poolName]++
		if slices.ContainsFunc(n.in.Health.Conditions, e.opts.NodeRepair.Covers) {
			unhealthy[n.poolName]++
		}
	}
	out := map[string]string{}
	for pool, count := range total {
		threshold := int(math.Ceil(float64(count) * repair.UnhealthyThreshold))
		if unhealthy[pool] > threshold {
			out[pool] = fmt.Sprintf("more than %.0f%% of NodePool %s's nodes are unhealthy (%d of %d): repair stops there", repair.UnhealthyThreshold*100, pool, unhealthy[pool], count)
		}
	}
	return out
}

// repairCommand is the command for one candidate, or false with a note on
// the node when it has none.
func (e *evaluation) repairCommand(c repairCandidate) (Command, bool) {
	n, r := c.n, c.result
	bound := drainBound(r, n.in.NodeClaim)
	what := describeCondition(r.Condition, r.ConditionStatus, r.Reason)
	if c.escalated {
		what += fmt.Sprintf(" (its reboot escalates to a replacement after %s within %s)", plural(repair.RebootsBeforeReplacement, "reboot"), repair.RebootWindow)
	}
	switch {
	case bound == nil:
		what += ", drain unbounded"
	case bound.Duration == 0:
		what += ", no drain"
	default:
		what += ", drain bounded to " + bound.Duration.String()
	}
	if r.Action == repair.Reboot {
		n.command = fmt.Sprintf("%s: %s, rebooted in place", MethodRepair, what)
		return Command{Method: MethodRepair, Reason: fmt.Sprintf("%s/reboot: %s", apis.DisruptionReasonUnhealthy, what), Delete: []string{},
			Replacements: []scheduling.NodeClaim{}, Moves: []Move{}, Reboot: n.name, TerminationGracePeriod: bound}, true
	}
	if n.pool.static() {
		return e.staticRepair(n, what, bound)
	}
	out := e.simulator().runRepair(n, nil)
	if out.failure != "" {
		if cmd, ok := e.repairTerminateFirst(n, what, bound); ok {
			return cmd, true
		}
		n.note("repair: %s", out.failure)
		return Command{}, false
	}
	decision, done := "replace", "replaced by "+plural(len(out.claims), "new node")
	if len(out.claims) == 0 {
		decision, done = "delete", "deleted, its pods fit on other nodes"
		if n.empty() {
			done = "deleted, empty"
		}
	}
	n.command = fmt.Sprintf("%s: %s, %s", MethodRepair, what, done)
	return Command{Method: MethodRepair, Reason: fmt.Sprintf("%s/%s: %s", apis.DisruptionReasonUnhealthy, decision, what), Delete: []string{n.name},
		Replacements: nonNil(out.claims), Moves: nonNil(out.moves), SavingsPerHour: round(n.price - claimsPrice(out.claims)), TerminationGracePeriod: bound}, true
}

// repairTerminateFirst is repair's terminate-first with the
// TerminateFirstRepair gate, as drift's (evaluation.terminateFirst): a
// node in a full capacity reservation whose pods fit once its unit is
// freed is deleted before any replacement.
func (e *evaluation) repairTerminateFirst(n *nodeInfo, what string, bound *metav1.Duration) (Command, bool) {
	id := n.labels()[apis.LabelCapacityReservationID]
	if !e.opts.TerminateFirstRepair || n.capacityType != apis.CapacityTypeReserved || id == "" {
		return Command{}, false
	}
	out := e.simulator().runRepair(n, map[string]int{id: 1})
	if out.failure != "" {
		return Command{}, false
	}
	n.command = fmt.Sprintf("%s: %s, terminated first: its reservation %s is full, and its pods fit once its unit is freed", MethodRepair, what, id)
	reason := fmt.Sprintf("%s/delete: %s: terminate first (reservation %s is full; provisioning launches %s into the freed unit)",
		apis.DisruptionReasonUnhealthy, what, id, plural(len(out.claims), "new node"))
	c := e.terminateFirstCommand(n, out, MethodRepair, reason)
	c.TerminationGracePeriod = bound
	return c, true
}

// staticRepair repairs a node of a static NodePool as static drift
// replaces one: one for one from the template, no simulation; nothing
// while the pool scales down; at the node limit, or with full
// reservations under TerminateFirstRepair, the node goes first when the
// pool can be refilled.
func (e *evaluation) staticRepair(n *nodeInfo, what string, bound *metav1.Duration) (Command, bool) {
	pool := n.pool
	active, deleting := e.staticCounts(pool.name)
	if replicas := *pool.np.Spec.Replicas; int64(active) > replicas {
		n.note("repair: NodePool %s is scaling down (%d nodes for %d replicas)", pool.name, active, replicas)
		return Command{}, false
	}
	full := false
	if e.opts.TerminateFirstRepair {
		offered, f := pool.fullReservations()
		if f && !holdsOffered(n, offered) {
			n.note("repair: static NodePool %s's capacity reservations are full and cannot stage a replacement", pool.name)
			return Command{}, false
		}
		full = f
	}
	limit := int64(math.MaxInt64)
	if _, ok := pool.np.Spec.Limits["nodes"]; ok {
		limit = resources.FromList(pool.np.Spec.Limits).Get("nodes")
	}
	refill := e.templateClaim(pool, pool.name+"-1")
	if full || limit-int64(active+deleting) <= 0 {
		why := fmt.Sprintf("static NodePool %s is at its node limit (%d) and cannot stage a replacement", pool.name, limit)
		if full {
			why = fmt.Sprintf("static NodePool %s's capacity reservations are full and cannot stage a replacement", pool.name)
		}
		if !e.opts.TerminateFirstRepair || pool.np.DeletionTimestamp != nil || notReadyPool(pool.np) {
			n.note("repair: %s", why)
			return Command{}, false
		}
		n.command = fmt.Sprintf("%s: %s, terminated first: %s", MethodRepair, what, why)
		reason := fmt.Sprintf("%s/delete: %s: terminate first (%s; static provisioning refills the NodePool)", apis.DisruptionReasonUnhealthy, what, why)
		return Command{Method: MethodRepair, Reason: reason, Delete: []string{n.name}, Replacements: []scheduling.NodeClaim{}, Moves: []Move{},
			SavingsPerHour: round(n.price - refill.PricePerHour), TerminateFirst: true, TerminationGracePeriod: bound}, true
	}
	n.command = fmt.Sprintf("%s: %s, replaced by %s", MethodRepair, what, refill.Name)
	return Command{Method: MethodRepair, Reason: fmt.Sprintf("%s/replace: %s", apis.DisruptionReasonUnhealthy, what), Delete: []string{n.name},
		Replacements: []scheduling.NodeClaim{refill}, Moves: []Move{}, SavingsPerHour: round(n.price - refill.PricePerHour), TerminationGracePeriod: bound}, true
}

// drainBound is the drain bound the node gets: the policy's, or the
// NodeClaim's terminationGracePeriod when that is shorter or the policy
// sets none; nil when neither sets one (an unbounded graceful drain).
func drainBound(r repair.Result, nc *apis.NodeClaim) *metav1.Duration {
	own := nc.Spec.TerminationGracePeriod
	switch {
	case r.TerminationGracePeriod == nil && own == nil:
		return nil
	case r.TerminationGracePeriod == nil:
		return &metav1.Duration{Duration: own.Duration}
	case own != nil && own.Duration < *r.TerminationGracePeriod:
		return &metav1.Duration{Duration: own.Duration}
	}
	return &metav1.Duration{Duration: *r.TerminationGracePeriod}
}

// describeCondition is "Type=Status", with the reason when there is one.
func describeCondition(t corev1.NodeConditionType, status corev1.ConditionStatus, reason string) string {
	s := fmt.Sprintf("%s=%s", t, status)
	if reason != "" {
		s += fmt.Sprintf(" (reason %s)", reason)
	}
	return s
}

// runRepair simulates removing a node being repaired as runDrift does,
// with every reschedulable pod placed again, those do-not-disrupt or a PDB
// hold too: repair's bounded drain decides when they leave, and their
// replacement room must be there. credit, when set, gives units back to
// capacity reservations first (see runCredited).
func (s *simulator) runRepair(n *nodeInfo, credit map[string]int) outcome {
	saved := n.moving
	all := &movingPods{}
	for _, p := range n.reschedulable {
		all.pods = append(all.pods, p)
		all.shapes = append(all.shapes, s.readShape(p))
		all.keys = append(all.keys, apis.PodKey(p))
	}
	n.moving, s.credit = all, credit
	defer func() { n.moving, s.credit = saved, nil }()
	return s.simulate([]*nodeInfo{n}, 0, false, false)
}
