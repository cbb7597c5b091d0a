package consolidation

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// spotToSpotMinTypes is how many cheaper instance types a single spot node
// needs before it is replaced by spot, and how many of the cheapest the
// replacement keeps (MinInstanceTypesForSpotToSpotConsolidation).
const spotToSpotMinTypes = 15

// consolidate is upstream's computeConsolidation: simulate removing the
// candidates, then delete them if their pods fit elsewhere, or replace them
// with one cheaper node. It returns the command, or why there is none.
//
// The simulation only offers new nodes of types cheaper than the
// candidates, as no other type could pass the price filter: a solve that
// places every pod that way places them as a solve over every type would,
// on the same nodes and claim. One exception is a pending pod that found
// no cheap type: over every type it might have opened a claim of its own,
// which counts against "exactly one new node" as upstream counts it; such
// a solve is run again over every type when it would otherwise yield a
// command. (A narrowed solve that needs several new nodes yields none over
// every type either: what did not fit one cheap node fits no cheap node.)
// With several NodePools a narrowed solve that opens a claim is run again
// over every type too: Karpenter tries the NodePools in weight and name
// order, and a pool whose cheap types are too small for the pods but whose
// dear ones fit takes them there (to fail the price filter), where the
// narrowed solve would move on to the next pool (found by the differential
// run against Karpenter v1.15.0, upstream/differential/disruption).
//
// With Options.Planner, "exactly one" becomes "no more than the nodes
// deleted": the simulation is solved by Karpenter's scheduler and, when
// that needs new nodes, by the planner too, and the command with the
// larger saving is kept (Karpenter's on a tie). Multi-node consolidation
// may then replace N nodes by up to N (see cheaperSet for their price);
// single-node consolidation still launches one node at most, though the
// planner may choose it. A consolidation that launches more nodes than it
// deletes splits pods apart that later consolidations could have packed
// together: runs that allowed it ended dearer than runs with one
// replacement at most on some workloads (docs/optimizer.md, "Cheaper than
// Karpenter"). The pending pods' second solve applies as above, with the
// limit in place of one.
func (e *evaluation) consolidate(method string, cands []*nodeInfo) (*Command, string) {
	sourcePrice := 0.0
	for _, c := range cands {
		sourcePrice += c.price
	}
	sim := e.simulator()
	most := e.maxReplacements(cands)
	out := sim.run(cands, sourcePrice, most == 1)
	switch {
	case !out.narrowed || out.failure != "":
	case out.pendingFailed > 0 && len(out.claims) <= most,
		len(out.claims) > 0 && len(sim.base.NodePools) > 1:
		if sim.narrowingIdle(cands, sourcePrice) {
			// The solve over every type would place every pod alike.
			out.narrowed = false
			sim.idle++
			break
		}
		out = sim.run(cands, 0, most == 1)
	}
	if out.failure != "" {
		return nil, out.failure
	}
	cmd, why := e.command(method, cands, out, sourcePrice)
	if out.planned != nil {
		if planned, _ := e.command(method, cands, *out.planned, sourcePrice); planned != nil && (cmd == nil || planned.SavingsPerHour > cmd.SavingsPerHour) {
			planned.Reason += " (as the planner places the pods)"
			return planned, ""
		}
	}
	return cmd, why
}

// maxReplacements is how many new nodes a command may launch for the
// candidates: one, as Karpenter launches, or with Options.Planner as many
// as it deletes.
func (e *evaluation) maxReplacements(cands []*nodeInfo) int {
	if e.opts.Planner == nil {
		return 1
	}
	return len(cands)
}

// command is the command a simulation's outcome yields, or why there is
// none: a deletion when the pods need no new node, else a replacement that
// must cost less than the candidates.
func (e *evaluation) command(method string, cands []*nodeInfo, out outcome, sourcePrice float64) (*Command, string) {
	cmd := &Command{Method: method, Delete: nodeNames(cands), Replacements: []scheduling.NodeClaim{}, Moves: nonNil(out.moves)}
	switch {
	case len(out.claims) == 0:
		cmd.SavingsPerHour = round(sourcePrice)
		cmd.Reason = fmt.Sprintf("%s/delete: the pods of %s fit on other nodes", apis.DisruptionReasonUnderutilized, plural(len(cands), "node"))
	case len(out.claims) == 1:
		claim, why := e.cheaper(cands, out.claims[0], sourcePrice, method == MethodMultiNode)
		if why != "" {
			return nil, why
		}
		cmd.Replacements = []scheduling.NodeClaim{claim}
		cmd.SavingsPerHour = round(sourcePrice - claim.PricePerHour)
		cmd.Reason = fmt.Sprintf("%s/replace: %s ($%.4f/h) by one %s %s ($%.4f/h)", apis.DisruptionReasonUnderutilized,
			plural(len(cands), "node"), sourcePrice, claim.CapacityType, claim.InstanceType, claim.PricePerHour)
	case len(out.claims) > e.maxReplacements(cands):
		cheaper := ""
		if out.narrowed {
			cheaper = fmt.Sprintf(" cheaper than $%.4f/h", sourcePrice)
		}
		if e.opts.Planner == nil {
			return nil, fmt.Sprintf("would need %d new nodes%s, and consolidation launches at most one", len(out.claims), cheaper)
		}
		return nil, fmt.Sprintf("would need %d new nodes%s, and consolidation launches no more than it deletes (%d)", len(out.claims), cheaper, len(cands))
	default:
		claims, why := e.cheaperSet(cands, out.claims, sourcePrice, method == MethodMultiNode)
		if why != "" {
			return nil, why
		}
		launched := make([]string, len(claims))
		for i, c := range claims {
			launched[i] = c.CapacityType + " " + c.InstanceType
		}
		cmd.Replacements = claims
		cmd.SavingsPerHour = round(sourcePrice - claimsPrice(claims))
		cmd.Reason = fmt.Sprintf("%s/replace: %s ($%.4f/h) by %d new nodes ($%.4f/h): %s", apis.DisruptionReasonUnderutilized,
			plural(len(cands), "node"), sourcePrice, len(claims), claimsPrice(claims), strings.Join(launched, ", "))
	}
	if ok, why := e.approve(cands, cmd.SavingsPerHour); !ok {
		return nil, why
	}
	return cmd, ""
}

// cheaperSet is cheaper for several replacements, which together must cost
// less than the candidates, whatever types they launch, as one must alone.
// Each first keeps its types cheaper than the candidates, under the same
// spot and same-type rules as one replacement; then, with floor the worst
// launch price of a replacement's cheapest type and slack what the
// candidates cost beyond the floors' sum, each keeps the types whose worst
// launch price is below its floor plus an equal share of the slack. The
// limits add up to the candidates' price, so every choice of launches
// costs less; for one replacement the limit would be the candidates'
// price, Karpenter's own rule.
func (e *evaluation) cheaperSet(cands []*nodeInfo, claims []scheduling.NodeClaim, sourcePrice float64, multi bool) ([]scheduling.NodeClaim, string) {
	floors := make([]float64, len(claims))
	floor := 0.0
	for i, c := range claims {
		kept, why := e.cheaper(cands, c, sourcePrice, multi)
		if why != "" {
			return nil, fmt.Sprintf("replacement %d of %d: %s", i+1, len(claims), why)
		}
		floors[i] = e.floorPrice(kept)
		floor += floors[i]
	}
	slack := sourcePrice - floor
	if slack <= 0 {
		return nil, fmt.Sprintf("%d replacements not cheaper: $%.4f at their cheapest types' worst launch prices vs $%.4f", len(claims), floor, sourcePrice)
	}
	out := make([]scheduling.NodeClaim, len(claims))
	for i, c := range claims {
		limit := floors[i] + slack/float64(len(claims))
		kept, why := e.cheaper(cands, c, limit, multi)
		if why != "" {
			return nil, fmt.Sprintf("replacement %d of %d, below $%.4f/h: %s", i+1, len(claims), limit, why)
		}
		out[i] = kept
	}
	return out, ""
}

// floorPrice is the lowest worst launch price among a finalized claim's
// instance types (see worstLaunchPrice).
func (e *evaluation) floorPrice(claim scheduling.NodeClaim) float64 {
	reqs, _ := requirements.FromNodeSelectorRequirements(claim.Requirements...)
	floor := math.Inf(1)
	for _, name := range claim.InstanceTypeOptions {
		if it, ok := e.pools[claim.NodePool].catalog.Get(name); ok {
			floor = min(floor, worstLaunchPrice(it, reqs))
		}
	}
	return floor
}

// cheaper keeps the replacement's instance types that make it cheaper than
// the candidates, as upstream's price filter and spot rules do, and says
// why there are none.
func (e *evaluation) cheaper(cands []*nodeInfo, claim scheduling.NodeClaim, sourcePrice float64, multi bool) (scheduling.NodeClaim, string) {
	pool := e.pools[claim.NodePool]
	reqs, err := requirements.FromNodeSelectorRequirements(claim.Requirements...)
	if pool == nil || err != nil {
		return claim, fmt.Sprintf("replacement NodeClaim %s cannot be read", claim.Name)
	}
	options := make([]*instancetypes.InstanceType, 0, len(claim.InstanceTypeOptions))
	for _, name := range claim.InstanceTypeOptions {
		if it, ok := pool.catalog.Get(name); ok {
			options = append(options, it)
		}
	}
	if claim.CapacityType == apis.CapacityTypeReserved {
		// Karpenter's scheduler pins a claim that takes a capacity
		// reservation to reserved capacity: spot-to-spot rules and the
		// spot preference below do not apply to it.
		reqs = reqs.Add(requirements.In(apis.LabelCapacityType, apis.CapacityTypeReserved))
	}
	minimum := pool.reqs
	if e.opts.Scheduling.MinValuesBestEffort {
		// BestEffort lowered the claim's minValues to what the types that
		// fit its pods reach; the cheaper types must still reach that:
		// Karpenter does not relax minValues further to consolidate.
		minimum = reachableMinValues(pool.reqs, fitting(pool, reqs, claim.Requests))
	}
	allSpot := !slices.ContainsFunc(cands, func(c *nodeInfo) bool { return c.capacityType != apis.CapacityTypeSpot })
	var why string
	if capacity := reqs.Get(apis.LabelCapacityType); allSpot && capacity.Has(apis.CapacityTypeSpot) {
		options, reqs, why = e.spotToSpot(options, reqs, pool.name, minimum, sourcePrice, len(cands) == 1)
	} else {
		options, why = byPrice(options, reqs, pool.name, minimum, sourcePrice)
		// Priced as spot, so launched as spot: an on-demand fallback could
		// cost more than the node it replaces.
		spot := reqs.Add(requirements.In(apis.LabelCapacityType, apis.CapacityTypeSpot))
		if why == "" && capacity.Has(apis.CapacityTypeOnDemand) && slices.ContainsFunc(options, func(it *instancetypes.InstanceType) bool { return hasOffering(it, spot) }) {
			reqs = spot
		}
	}
	if why != "" {
		return claim, why
	}
	if multi {
		if options, why = notSameType(options, reqs, pool.name, minimum, cands); why != "" {
			return claim, why
		}
	}
	return finalize(claim, options, reqs), ""
}

// byPrice keeps the types whose worst launch price is below the
// candidates' price, strictly, and checks that they still meet the
// minValues of the candidates' NodePool, pool.
func byPrice(options []*instancetypes.InstanceType, reqs requirements.Requirements, pool string, minimum requirements.Requirements, limit float64) ([]*instancetypes.InstanceType, string) {
	if len(options) == 0 {
		return nil, "replacement has no instance type that can launch"
	}
	var kept []*instancetypes.InstanceType
	cheapest, cheapestType := math.Inf(1), ""
	for _, it := range options {
		worst := worstLaunchPrice(it, reqs)
		if worst < limit {
			kept = append(kept, it)
		}
		if worst < cheapest {
			cheapest, cheapestType = worst, it.Name
		}
	}
	if len(kept) == 0 {
		return nil, fmt.Sprintf("replacement not cheaper: $%.4f (%s at its worst launch price) vs $%.4f", cheapest, cheapestType, limit)
	}
	if _, ok := minValuesMet(kept, minimum); !ok {
		return nil, fmt.Sprintf("the %d cheaper instance types do not meet the minValues of NodePool %s", len(kept), pool)
	}
	return kept, ""
}

// fitting are the NodePool's types that are compatible with the claim's
// requirements, can launch under them and have room for its requests.
func fitting(pool *poolInfo, reqs requirements.Requirements, requests map[string]string) []*instancetypes.InstanceType {
	list := corev1.ResourceList{}
	for name, q := range requests {
		if v, err := resource.ParseQuantity(q); err == nil {
			list[corev1.ResourceName(name)] = v
		}
	}
	need := resources.FromList(list)
	var out []*instancetypes.InstanceType
	for _, it := range pool.catalog {
		if it.Requirements.IntersectsFast(reqs) && hasOffering(it, reqs) && need.Fits(it.Allocatable()) {
			out = append(out, it)
		}
	}
	return out
}

// reachableMinValues lowers each minValues of reqs to the number of
// distinct values the types offer for its key, when they offer fewer.
func reachableMinValues(reqs requirements.Requirements, types []*instancetypes.InstanceType) requirements.Requirements {
	items := reqs.Items()
	for i, r := range items {
		if r.MinValues() == 0 {
			continue
		}
		seen := map[string]bool{}
		for _, it := range types {
			for _, v := range it.Requirements.Get(r.Key()).Values() {
				seen[v] = true
			}
		}
		if len(seen) < r.MinValues() {
			items[i] = r.WithMinValues(len(seen))
		}
	}
	return requirements.NewRequirements(items...)
}

// spotToSpot replaces spot with spot only behind the feature gate; a single
// node needs 15 cheaper types, of which the replacement keeps the cheapest
// 15 (more if minValues needs them), so that it cannot launch a type that
// would at once be consolidated again.
func (e *evaluation) spotToSpot(options []*instancetypes.InstanceType, reqs requirements.Requirements, pool string, minimum requirements.Requirements, limit float64, single bool) ([]*instancetypes.InstanceType, requirements.Requirements, string) {
	if !e.opts.SpotToSpotConsolidation {
		return nil, reqs, "SpotToSpotConsolidation is disabled, so a spot node is not replaced by a spot node"
	}
	reqs = reqs.Add(requirements.In(apis.LabelCapacityType, apis.CapacityTypeSpot))
	options = slices.DeleteFunc(slices.Clone(options), func(it *instancetypes.InstanceType) bool { return !hasOffering(it, reqs) })
	options = orderByPrice(options, reqs)
	kept, why := byPrice(options, reqs, pool, minimum, limit)
	if why != "" || !single {
		return kept, reqs, why
	}
	if len(kept) < spotToSpotMinTypes {
		return nil, reqs, fmt.Sprintf("spot-to-spot consolidation needs %d cheaper instance types, got %d", spotToSpotMinTypes, len(kept))
	}
	keep := spotToSpotMinTypes
	if minimum.HasMinValues() {
		n, _ := minValuesMet(kept, minimum)
		keep = max(keep, n)
	}
	return kept[:min(keep, len(kept))], reqs, ""
}

// notSameType is upstream's filterOutSameType: when the replacement could
// be one of the types being removed, it must be cheaper than the cheapest
// candidate of such a type, or the command is just a deletion of the others
// in disguise.
func notSameType(options []*instancetypes.InstanceType, reqs requirements.Requirements, pool string, minimum requirements.Requirements, cands []*nodeInfo) ([]*instancetypes.InstanceType, string) {
	prices := map[string]float64{}
	for _, c := range cands {
		if c.it == nil {
			continue
		}
		if p, ok := c.it.NodePrice(c.labels()); ok {
			if old, seen := prices[c.it.Name]; !seen || p < old {
				prices[c.it.Name] = p
			}
		}
	}
	limit := math.MaxFloat64
	for _, it := range options {
		if p, ok := prices[it.Name]; ok && p < limit {
			limit = p
		}
	}
	kept, why := byPrice(options, reqs, pool, minimum, limit)
	if why != "" {
		return nil, fmt.Sprintf("would replace %d nodes with one of the same type: %s", len(cands), why)
	}
	return kept, ""
}

// finalize sets the replacement's options (those that can still launch
// under its requirements), requirements and launch choice.
func finalize(claim scheduling.NodeClaim, options []*instancetypes.InstanceType, reqs requirements.Requirements) scheduling.NodeClaim {
	options = slices.DeleteFunc(slices.Clone(options), func(it *instancetypes.InstanceType) bool { return !hasOffering(it, reqs) })
	claim.InstanceTypeOptions = make([]string, len(options))
	for i, it := range options {
		claim.InstanceTypeOptions[i] = it.Name
	}
	claim.Requirements = reqs.NodeSelectorRequirements()
	claim.InstanceType, claim.Zone, claim.CapacityType, claim.PricePerHour = "", "", "", 0
	if it, o, ok := launch(options, reqs); ok {
		claim.InstanceType, claim.Zone, claim.CapacityType, claim.PricePerHour = it.Name, o.Zone, o.CapacityType, o.Price
	}
	return claim
}

// orderByPrice sorts types by their cheapest available offering reqs
// allow, then by name.
func orderByPrice(types []*instancetypes.InstanceType, reqs requirements.Requirements) []*instancetypes.InstanceType {
	price := func(it *instancetypes.InstanceType) float64 {
		if o, ok := it.CheapestOffering(reqs); ok {
			return o.Price
		}
		return math.Inf(1)
	}
	slices.SortStableFunc(types, func(a, b *instancetypes.InstanceType) int {
		return cmp.Or(cmp.Compare(price(a), price(b)), cmp.Compare(a.Name, b.Name))
	})
	return types
}

func nodeNames(nodes []*nodeInfo) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.name
	}
	slices.Sort(out)
	return out
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// round keeps money to a millionth of a dollar, so that sums print alike.
func round(x float64) float64 { return math.Round(x*1e6) / 1e6 }
