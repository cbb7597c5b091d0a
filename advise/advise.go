// Package advise looks for NodePool changes under which Karpenter itself,
// by its default rules (scheduling.Solve), launches cheaper nodes for the
// same pending pods: a cap on vCPUs, a size, family or generation left out,
// a category, family, newer generations, arm64 or spot let in, a NodePool
// preferred by weight, and combinations of the best of these. Each
// candidate is one solve with the edited NodePools; an edit under which a
// pod Karpenter schedules today would stay pending is never advised.
//
// Call Advise with a scheduling.Input (the pending pods and the NodePools
// with their catalogs, as snapshot.FromSet gives them) and Options; the
// Report gives Karpenter's cost today, a lower bound on any plan's, and
// the Advice best first, each with its Edits and the edited NodePools.
// `karpsim advise` is its command line. Advise only reads its input and
// does no I/O.
package advise

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

// Options bound the search. The zero value is the default.
type Options struct {
	// Top is how many pieces of advice Advise returns at most; 0 means 5.
	Top int
	// MaxCandidates caps the single edits simulated; 0 means 64. Edits
	// are generated NodePool by NodePool in a fixed order, so a cap cuts
	// the same ones every time.
	MaxCandidates int
	// MaxEdits caps the edits combined into one piece of advice; 0 means 3.
	MaxEdits int
	// Bound tunes the lower bound reported beside the advice.
	Bound optimize.BoundOptions
}

func (o Options) top() int               { return positiveOr(o.Top, 5) }
func (o Options) maxCandidates() int     { return positiveOr(o.MaxCandidates, 64) }
func (o Options) maxEdits() int          { return positiveOr(o.MaxEdits, 3) }
func positiveOr(v, fallback int) int     { return cmp.Or(max(v, 0), fallback) }
func costOf(r scheduling.Result) float64 { return optimize.PlanPerHour(r) }

// combineFrom is how many of the best single edits are combined in pairs
// and greedily.
const combineFrom = 5

// Report is Advise's answer.
type Report struct {
	// KarpenterPerHour is what Karpenter's plan with the NodePools as they
	// are costs an hour, and ScheduledPods how many pods it schedules.
	KarpenterPerHour float64 `json:"karpenterPerHour"`
	ScheduledPods    int     `json:"scheduledPods"`
	// LowerBoundPerHour is a proven lower bound on the cost of any plan of
	// those pods with the NodePools as they are (optimize.LowerBound): an
	// edit that only narrows them saves at most the gap; one that lets in
	// more types, arm64 or spot may go below it.
	LowerBoundPerHour float64 `json:"lowerBoundPerHour"`
	// Candidates is how many edited sets of NodePools were simulated, and
	// Rejected how many of them would have left a pod pending that
	// Karpenter schedules today.
	Candidates int `json:"candidates"`
	Rejected   int `json:"rejected"`
	// Advice are the cheapest changes found, cheapest first, at most
	// Options.Top; empty when no edit of the family makes Karpenter's plan
	// cheaper.
	Advice []Advice `json:"advice"`
}

// Advice is one set of edits and the plan Karpenter makes under it.
type Advice struct {
	// Edits are the changes, applied together.
	Edits []Edit `json:"edits"`
	// PerHour is what Karpenter's plan costs an hour with the edits, and
	// SavingPerHour and SavingPercent what that saves on the plan without.
	PerHour       float64 `json:"perHour"`
	SavingPerHour float64 `json:"savingPerHour"`
	SavingPercent float64 `json:"savingPercent"`
	// NodeClaims is how many nodes that plan launches.
	NodeClaims int `json:"nodeClaims"`
	// NodePools are the NodePools the edits change, before and after, by
	// name: what to apply.
	NodePools []PoolChange `json:"-"`
	// Result is Karpenter's plan with the edits.
	Result scheduling.Result `json:"-"`
}

// PoolChange is a NodePool as it is and as an Advice edits it.
type PoolChange struct {
	Before, After *apis.NodePool
}

// Advise simulates Karpenter's default plan under each edit of the family
// (see the Kind* constants) and the best combinations of them, and returns
// the edits that make it cheaper without leaving any pod pending that it
// schedules today, cheapest first. The input is not changed; the same
// input gives the same Report.
func Advise(in scheduling.Input, opts Options) (Report, error) {
	base := scheduling.Solve(in)
	bound, err := optimize.LowerBound(in, base, opts.Bound)
	if err != nil {
		return Report{}, fmt.Errorf("lower bound: %w", err)
	}
	s := search{in: in, base: base, pending: unschedulable(base)}
	report := Report{KarpenterPerHour: costOf(base), ScheduledPods: base.Summary.ScheduledPods, LowerBoundPerHour: bound.PerHour}
	edits := candidates(in, base, opts.maxCandidates())

	var singles []Advice
	for _, e := range edits {
		if a, ok := s.try([]Edit{e}); ok {
			singles = append(singles, a)
		}
	}
	sortAdvice(singles)
	found := slices.Clone(singles)
	found = append(found, s.combine(singles, opts.maxEdits())...)
	sortAdvice(found)
	found = dedupe(found)

	report.Candidates, report.Rejected = s.tried, s.rejected
	report.Advice = found[:min(len(found), opts.top())]
	return report, nil
}

// search holds what every candidate is compared with.
type search struct {
	in      scheduling.Input
	base    scheduling.Result
	pending map[string]bool
	// tried counts the solves, rejected those that lost a pod; seen holds
	// the edit sets already solved.
	tried, rejected int
	seen            map[string]bool
}

// try solves with the edits applied, and returns the advice when the plan
// schedules every pod the base plan does and costs less.
func (s *search) try(edits []Edit) (Advice, bool) {
	key := editsKey(edits)
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	if s.seen[key] {
		return Advice{}, false
	}
	s.seen[key] = true
	trial, changes := apply(s.in, edits)
	s.tried++
	r := scheduling.Solve(trial)
	if !s.keepsEveryPod(r) {
		s.rejected++
		return Advice{}, false
	}
	cost, was := costOf(r), costOf(s.base)
	if cost >= was*(1-1e-9) {
		return Advice{}, false
	}
	a := Advice{Edits: edits, PerHour: cost, SavingPerHour: was - cost, NodeClaims: len(r.NodeClaims), NodePools: changes, Result: r}
	if was > 0 {
		a.SavingPercent = 100 * a.SavingPerHour / was
	}
	return a, true
}

// keepsEveryPod reports whether r schedules as many pods as the base plan
// and leaves pending only pods the base plan leaves pending.
func (s *search) keepsEveryPod(r scheduling.Result) bool {
	if r.Summary.ScheduledPods < s.base.Summary.ScheduledPods {
		return false
	}
	for _, u := range r.Unschedulable {
		if !s.pending[u.Pod] {
			return false
		}
	}
	return true
}

// combine joins the best single edits: every pair of the first few, and
// a greedy chain that adds the next best edit while the plan gets cheaper,
// up to maxEdits edits.
func (s *search) combine(singles []Advice, maxEdits int) []Advice {
	if maxEdits < 2 {
		return nil
	}
	top := singles[:min(len(singles), combineFrom)]
	var out []Advice
	for i := range top {
		for j := i + 1; j < len(top); j++ {
			if edits, ok := join(top[i].Edits, top[j].Edits); ok {
				if a, ok := s.try(edits); ok {
					out = append(out, a)
				}
			}
		}
	}
	if len(top) == 0 {
		return out
	}
	chain := top[0]
	for _, next := range top[1:] {
		if len(chain.Edits) >= maxEdits {
			break
		}
		edits, ok := join(chain.Edits, next.Edits)
		if !ok {
			continue
		}
		if a, ok := s.try(edits); ok && a.PerHour < chain.PerHour {
			chain = a
			out = append(out, a)
		}
	}
	return out
}

// join returns the edits of a and b together, unless two of them set the
// same thing.
func join(a, b []Edit) ([]Edit, bool) {
	out := slices.Clone(a)
	for _, e := range b {
		if slices.ContainsFunc(out, func(o Edit) bool { return o.slot == e.slot }) {
			return nil, false
		}
		out = append(out, e)
	}
	return out, true
}

// apply returns the input with the edits applied to copies of their
// NodePools, and each changed NodePool before and after.
func apply(in scheduling.Input, edits []Edit) (scheduling.Input, []PoolChange) {
	pools := slices.Clone(in.NodePools)
	var changes []PoolChange
	for i, np := range pools {
		if np.NodePool == nil {
			continue
		}
		var edited *apis.NodePool
		for _, e := range edits {
			if e.NodePool != np.NodePool.Name {
				continue
			}
			if edited == nil {
				edited = np.NodePool.DeepCopy()
			}
			e.apply(edited)
		}
		if edited != nil {
			pools[i].NodePool = edited
			changes = append(changes, PoolChange{Before: np.NodePool, After: edited})
		}
	}
	in.NodePools = pools
	return in, changes
}

// candidates are the single edits worth a solve, at most limit: those of
// every NodePool (by name) that change what the NodePool may launch, or
// its weight.
func candidates(in scheduling.Input, base scheduling.Result, limit int) []Edit {
	launched := map[string][]*instancetypes.InstanceType{}
	pools := slices.Clone(in.NodePools)
	pools = slices.DeleteFunc(pools, func(np scheduling.Pool) bool { return np.NodePool == nil })
	slices.SortFunc(pools, func(a, b scheduling.Pool) int { return strings.Compare(a.NodePool.Name, b.NodePool.Name) })
	for _, c := range base.NodeClaims {
		for _, np := range pools {
			if np.NodePool.Name != c.NodePool {
				continue
			}
			if it, ok := np.InstanceTypes.Get(c.InstanceType); ok && !slices.Contains(launched[c.NodePool], it) {
				launched[c.NodePool] = append(launched[c.NodePool], it)
			}
		}
	}
	var out []Edit
	for _, np := range pools {
		before := offerings(np.NodePool, np.InstanceTypes)
		for _, e := range poolEdits(np, pools, launched[np.NodePool.Name]) {
			if len(out) == limit {
				return out
			}
			if e.Kind != KindPreferPool {
				edited := np.NodePool.DeepCopy()
				e.apply(edited)
				if after := offerings(edited, np.InstanceTypes); after == before || after == "" {
					continue
				}
			}
			out = append(out, e)
		}
	}
	return out
}

// offerings names, in catalog order, every offering of every type the
// NodePool's requirements admit: two NodePools with the same string
// launch the same things.
func offerings(np *apis.NodePool, catalog instancetypes.Catalog) string {
	reqs, err := requirements.FromNodePool(np.Spec.Template)
	if err != nil {
		return ""
	}
	var b strings.Builder
	for _, it := range catalog {
		if it == nil || !it.Requirements.IntersectsFast(reqs) {
			continue
		}
		for _, o := range it.Offerings {
			if o.Compatible(reqs) {
				fmt.Fprintf(&b, "%s/%s/%s/%s;", it.Name, o.Zone, o.CapacityType, o.ReservationID)
			}
		}
	}
	return b.String()
}

func unschedulable(r scheduling.Result) map[string]bool {
	out := map[string]bool{}
	for _, u := range r.Unschedulable {
		out[u.Pod] = true
	}
	return out
}

// sortAdvice orders advice cheapest first, then by fewer edits, then by
// the edits' descriptions.
func sortAdvice(advice []Advice) {
	slices.SortStableFunc(advice, func(a, b Advice) int {
		return cmp.Or(cmp.Compare(a.PerHour, b.PerHour), cmp.Compare(len(a.Edits), len(b.Edits)), strings.Compare(editsKey(a.Edits), editsKey(b.Edits)))
	})
}

// dedupe drops advice whose edits are a superset of cheaper-or-equal
// advice's, as an extra edit that saves nothing more is noise, and advice
// whose kinds of edit on the same NodePools cheaper advice already has
// (a cap at 16 vCPUs after one at 48), so that the few printed differ.
func dedupe(sorted []Advice) []Advice {
	var out []Advice
	for _, a := range sorted {
		redundant := slices.ContainsFunc(out, func(kept Advice) bool {
			return len(kept.Edits) < len(a.Edits) && kept.PerHour <= a.PerHour && subset(kept.Edits, a.Edits) ||
				kindsKey(kept.Edits) == kindsKey(a.Edits)
		})
		if !redundant {
			out = append(out, a)
		}
	}
	return out
}

func subset(a, b []Edit) bool {
	for _, e := range a {
		if !slices.ContainsFunc(b, func(o Edit) bool { return o.slot == e.slot && o.Change == e.Change }) {
			return false
		}
	}
	return true
}

// editsKey names a set of edits independently of their order.
func editsKey(edits []Edit) string {
	names := make([]string, len(edits))
	for i, e := range edits {
		names[i] = e.String()
	}
	slices.Sort(names)
	return strings.Join(names, "\n")
}

// kindsKey names the kinds of a set of edits and their NodePools.
func kindsKey(edits []Edit) string {
	names := make([]string, len(edits))
	for i, e := range edits {
		names[i] = e.NodePool + "/" + e.Kind
	}
	slices.Sort(names)
	return strings.Join(names, "\n")
}
