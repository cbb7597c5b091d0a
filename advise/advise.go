// Package advise looks for NodePool changes under which Karpenter itself,
// by its default rules (scheduling.Solve), launches cheaper nodes for the
// same pending pods: a cap on vCPUs, a size, family or generation left out,
// a category, family, newer generations, arm64 or spot let in, a NodePool
// preferred by weight, and combinations of the best of these. Each
// candidate is one solve with the edited NodePools; an edit under which a
// pod Karpenter schedules today would stay pending is never advised. The
// package only reads its input and does no I/O.
package advise

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

// Options bound the search. The zero value is the default.
type Options struct {
	// Top is how many pieces of advice Advise returns at most; 0 means 5.
	Top int
	// MaxCandidates caps the single edits simulated of each family, the
	// narrowing and reweighting ones and the widening ones; 0 means 64
	// (optimize.DefaultMaxEditCandidates). Edits are generated NodePool by
	// NodePool in a fixed order, so a cap cuts the same ones every time.
	MaxCandidates int
	// MaxEdits caps the edits combined into one piece of advice; 0 means 3.
	MaxEdits int
	// Bound tunes the lower bound reported beside the advice.
	Bound optimize.BoundOptions
}

func (o Options) top() int { return positiveOr(o.Top, 5) }
func (o Options) maxCandidates() int {
	return positiveOr(o.MaxCandidates, optimize.DefaultMaxEditCandidates)
}
func (o Options) maxEdits() int          { return positiveOr(o.MaxEdits, optimize.DefaultMaxEdits) }
func positiveOr(v, fallback int) int     { return cmp.Or(max(v, 0), fallback) }
func costOf(r scheduling.Result) float64 { return optimize.PlanPerHour(r) }

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
	// NodePools are the NodePools the edits change, before and after, in
	// the input's order: what to apply.
	NodePools []PoolChange `json:"-"`
	// Result is Karpenter's plan with the edits.
	Result scheduling.Result `json:"-"`
}

// PoolChange is a NodePool as it is and as an Advice edits it.
type PoolChange = optimize.PoolChange

// Advise simulates Karpenter's default plan under each edit of the family
// (see the Kind* constants) and the best combinations of them, and returns
// the edits that make it cheaper without leaving any pod pending that it
// schedules today, cheapest first. It searches in two runs of one
// optimize.EditSearch: the narrowing and reweighting edits alone (as the
// optimizing planner does, so that with the default options no such
// advice beats optimize.Solve), then every edit, combining only sets
// with a widening edit. NodePools marked as committed capacity
// (CommittedKey) are not edited, nor moved away from. The input is not
// changed; the same input gives the same Report.
func Advise(in scheduling.Input, opts Options) (Report, error) {
	base := scheduling.Solve(in)
	bound, err := optimize.LowerBound(in, base, opts.Bound)
	if err != nil {
		return Report{}, fmt.Errorf("lower bound: %w", err)
	}
	was := costOf(base)
	report := Report{KarpenterPerHour: was, ScheduledPods: base.Summary.ScheduledPods, LowerBoundPerHour: bound.PerHour}
	s := optimize.NewEditSearch(in, base)
	narrowing := optimize.NarrowingEdits(in, base, opts.maxCandidates())
	plans := s.Run(narrowing, opts.maxEdits(), nil)
	if widening := wideningEdits(in, opts.maxCandidates()); len(widening) > 0 {
		all := append(slices.Clone(narrowing), widening...)
		plans = append(plans, s.Run(all, opts.maxEdits(), func(edits []Edit) bool {
			return slices.ContainsFunc(edits, func(e Edit) bool { return !e.Narrows() })
		})...)
	}
	optimize.SortEditPlans(plans)
	plans = slices.CompactFunc(plans, func(a, b optimize.EditPlan) bool { return optimize.EditsKey(a.Edits) == optimize.EditsKey(b.Edits) })
	found := make([]Advice, len(plans))
	for i, p := range plans {
		found[i] = Advice{Edits: p.Edits, PerHour: p.PerHour, SavingPerHour: was - p.PerHour, NodeClaims: len(p.Result.NodeClaims), NodePools: p.NodePools, Result: p.Result}
		if was > 0 {
			found[i].SavingPercent = 100 * found[i].SavingPerHour / was
		}
	}
	found = dedupe(found)
	report.Candidates, report.Rejected = s.Tried, s.Rejected
	report.Advice = found[:min(len(found), opts.top())]
	return report, nil
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
		if !slices.ContainsFunc(b, func(o Edit) bool { return o.Slot == e.Slot && o.Change == e.Change }) {
			return false
		}
	}
	return true
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
