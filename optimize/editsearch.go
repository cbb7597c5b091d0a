package optimize

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// combineFrom is how many of the cheapest single edits an edit search
// combines in pairs and greedily.
const combineFrom = 5

// EditPlan is Karpenter's own plan (scheduling.Solve) under a set of
// NodePool edits.
type EditPlan struct {
	// Edits are the changes, applied together.
	Edits []Edit
	// PerHour is what the plan costs an hour (PlanPerHour).
	PerHour float64
	// NodePools are the NodePools the edits change, before and after.
	NodePools []PoolChange
	// Result is the plan.
	Result scheduling.Result
}

// PoolChange is a NodePool as it is and as a set of edits leaves it.
type PoolChange struct {
	Before, After *apis.NodePool
}

// EditSearch simulates Karpenter's plan under sets of NodePool edits and
// keeps those under which it costs less than base, Karpenter's plan
// without them, schedules as many pods, leaves pending only pods base
// leaves pending, and launches on every committed NodePool (Committed) at
// least the nodes of each instance type and capacity type base launches
// there. Each set is solved once, however often it is asked for.
type EditSearch struct {
	in          scheduling.Input
	base        scheduling.Result
	basePerHour float64
	pending     map[string]bool
	committed   map[string]int
	solved      map[string]editTrial
	// compiler compiles each set's NodePools, the ones the set leaves
	// alone once for all the sets.
	compiler *scheduling.Compiler
	// skip, when set, says which sets need no solve: Search skips those
	// whose plan cannot beat its best, or costs more than limit (+Inf:
	// none), the most a plan the run needs may cost (editBounds).
	skip func(edits []Edit, limit float64) bool
	// cheapest, when set, has Run solve only what its cheapest plan
	// needs, as Search, which weighs no other, asks: the first plan it
	// returns is the one it returns otherwise, and of the others it
	// returns only some.
	cheapest bool
	// Tried counts the sets solved, and Rejected those whose plan would
	// leave a pod pending that base schedules or launch less on a
	// committed NodePool.
	Tried, Rejected int
	// Skipped counts the sets skip spared a solve.
	Skipped int
	// unskipped are the sets skip did not spare, with the limit asked.
	unskipped map[string]float64
	// Equal counts the sets not solved because they offer what an
	// earlier one does (asEarlier).
	Equal int
	// offers are the sets solved, for asEarlier; unread, per label key,
	// whether the input reads it only from the NodePools; listed, the
	// sets whose plans Run returns, by EditsKey.
	offers []*offerRecord
	unread map[string]bool
	listed map[string]bool
}

// editTrial is what a set's solve found: its plan when kept; otherwise
// nil, and the set's plan is not kept or costs more than above (+Inf:
// it is not kept).
type editTrial struct {
	plan  *EditPlan
	above float64
}

// NewEditSearch returns a search of edits to in, whose plan by
// scheduling.Solve is base.
func NewEditSearch(in scheduling.Input, base scheduling.Result) *EditSearch {
	s := &EditSearch{in: in, base: base, basePerHour: PlanPerHour(base), pending: map[string]bool{}, committed: map[string]int{}, solved: map[string]editTrial{}, unskipped: map[string]float64{}, unread: map[string]bool{}, listed: map[string]bool{},
		compiler: scheduling.NewCompiler(in.DaemonSets, in.Options)}
	for _, u := range base.Unschedulable {
		s.pending[u.Pod] = true
	}
	s.committed = s.committedLaunches(base)
	return s
}

// committedLaunches counts r's claims on committed NodePools by pool,
// instance type and capacity type.
func (s *EditSearch) committedLaunches(r scheduling.Result) map[string]int {
	pools := map[string]bool{}
	for _, np := range s.in.NodePools {
		if Committed(np.NodePool) {
			pools[np.NodePool.Name] = true
		}
	}
	out := map[string]int{}
	for _, c := range r.NodeClaims {
		if pools[c.NodePool] {
			out[c.NodePool+"/"+c.InstanceType+"/"+c.CapacityType]++
		}
	}
	return out
}

// Run solves each single edit, then every pair of the combineFrom
// cheapest kept, then a greedy chain: the cheapest, plus each next of
// them while the plan gets cheaper, up to maxEdits edits. A combined set
// is solved only when try, if not nil, accepts it. Run returns every kept
// plan of the run, cheapest first, then by fewer edits, then by the
// edits' names.
//
// When the search wants only the cheapest plan (cheapest), a set whose
// plan certainly costs more than the run needs of it is given up (its
// solve stopped, or skipped when the bound says so): a single edit
// costing more than the combineFrom-th cheapest kept so far is not among
// those combined and not the cheapest; a pair costing more than the
// cheapest plan so far is not the cheapest; and the chain takes a set
// only when it costs less than the chain's plan. A set whose compiled
// NodePools offer what those of a set solved before offer takes that
// set's verdict without a solve (asEarlier): one kept as an earlier set
// that ranks before it is not returned.
func (s *EditSearch) Run(singles []Edit, maxEdits int, try func([]Edit) bool) []EditPlan {
	var kept []EditPlan
	clear(s.listed)
	for _, e := range singles {
		if p, ok := s.tryBelow([]Edit{e}, s.singlesLimit(kept)); ok {
			kept = append(kept, p)
		}
	}
	SortEditPlans(kept)
	found := slices.Clone(kept)
	for _, p := range kept {
		s.listed[EditsKey(p.Edits)] = true
	}
	if maxEdits >= 2 && len(kept) > 0 {
		attempt := func(edits []Edit, limit float64) (EditPlan, tryOutcome) {
			if try != nil && !try(edits) {
				return EditPlan{}, tryNotKept
			}
			return s.tryOutcome(edits, limit, true)
		}
		top := kept[:min(len(kept), combineFrom)]
		for i := range top {
			for j := i + 1; j < len(top); j++ {
				if edits, ok := joinEdits(top[i].Edits, top[j].Edits); ok {
					// A set kept as an earlier one (tryKeptAsEarlier)
					// ranks after it, which found holds.
					if p, o := attempt(edits, s.cheapestLimit(found)); o == tryKept {
						found = s.list(found, p)
					}
				}
			}
		}
		chain := top[0]
		for _, next := range top[1:] {
			if len(chain.Edits) >= maxEdits {
				break
			}
			edits, ok := joinEdits(chain.Edits, next.Edits)
			if !ok {
				continue
			}
			if p, o := attempt(edits, s.limit(chain.PerHour)); o != tryNotKept && p.PerHour < chain.PerHour {
				chain = p
				if o == tryKept {
					found = s.list(found, p)
				}
			}
		}
	}
	SortEditPlans(found)
	return slices.CompactFunc(found, func(a, b EditPlan) bool { return EditsKey(a.Edits) == EditsKey(b.Edits) })
}

// limit is the most a plan the run needs may cost, when the search wants
// only the cheapest plan: v then, +Inf otherwise.
func (s *EditSearch) limit(v float64) float64 {
	if !s.cheapest {
		return math.Inf(1)
	}
	return v
}

// singlesLimit is the most a single edit's plan may cost to be among the
// combineFrom cheapest of kept and those to come: the combineFrom-th
// cheapest of kept (a plan of the same cost may still come before it, by
// its edit's name), +Inf while there are fewer.
func (s *EditSearch) singlesLimit(kept []EditPlan) float64 {
	if !s.cheapest || len(kept) < combineFrom {
		return math.Inf(1)
	}
	costs := make([]float64, len(kept))
	for i, p := range kept {
		costs[i] = p.PerHour
	}
	slices.Sort(costs)
	return costs[combineFrom-1]
}

// cheapestLimit is the most a set's plan may cost to be the cheapest of
// found and those to come: the cheapest of found (a plan of the same
// cost may still come first, by fewer edits or its edits' names).
func (s *EditSearch) cheapestLimit(found []EditPlan) float64 {
	if len(found) == 0 {
		return math.Inf(1)
	}
	return s.limit(slices.MinFunc(found, func(a, b EditPlan) int { return cmp.Compare(a.PerHour, b.PerHour) }).PerHour)
}

// skips reports whether skip spares the set (named key) a solve below
// limit, and remembers it when so. Asked again at a limit no lower than
// one it answered no at, it answers no again without asking: a lower
// limit only spares more.
func (s *EditSearch) skips(key string, edits []Edit, limit float64) bool {
	if s.skip == nil {
		return false
	}
	if at, asked := s.unskipped[key]; asked && limit >= at {
		return false
	}
	if !s.skip(edits, limit) {
		s.unskipped[key] = limit
		return false
	}
	s.Skipped++
	s.solved[key] = editTrial{above: limit}
	return true
}

// Try solves Karpenter's plan with the edits applied, and returns it when
// the search keeps it.
func (s *EditSearch) Try(edits []Edit) (EditPlan, bool) {
	return s.tryBelow(edits, math.Inf(1))
}

// tryBelow is Try for a run that needs the plan only when it costs at
// most limit (+Inf: whatever it costs): it may give up a set whose plan
// certainly costs more, and then reports it as not kept.
func (s *EditSearch) tryBelow(edits []Edit, limit float64) (EditPlan, bool) {
	p, o := s.tryOutcome(edits, limit, false)
	return p, o == tryKept
}

// tryOutcome is tryBelow, which may, when asEarlierOK, answer that a set
// not solved is tryKeptAsEarlier (asEarlier).
func (s *EditSearch) tryOutcome(edits []Edit, limit float64, asEarlierOK bool) (EditPlan, tryOutcome) {
	key := EditsKey(edits)
	if t, done := s.solved[key]; done && (t.plan != nil || t.above >= limit) {
		if t.plan == nil {
			return EditPlan{}, tryNotKept
		}
		return *t.plan, tryKept
	}
	s.solved[key] = editTrial{above: math.Inf(1)}
	if s.skips(key, edits, limit) {
		return EditPlan{}, tryNotKept
	}
	trial, changes := ApplyEdits(s.in, edits)
	// A plan dearer than base is never kept, nor one dearer than limit
	// needed: its solve stops as soon as it certainly is, and a plan
	// stopped only by limit is not kept below it.
	trial.Options.StopAbovePrice = s.basePerHour
	if stop := limit * (1 + 1e-9); stop < s.basePerHour {
		trial.Options.StopAbovePrice = stop
	}
	// The price the solve stops above, +Inf when it does not stop (a
	// StopAbovePrice of 0: base launches nothing, or limit is 0).
	stop := trial.Options.StopAbovePrice
	if stop <= 0 {
		stop = math.Inf(1)
	}
	prep := s.prepare(trial.NodePools, edits, changes)
	if p, o, decided := s.asEarlier(key, edits, prep, stop, limit, asEarlierOK); decided {
		return p, o
	}
	s.Tried++
	r := prep.WithOptions(trial.Options).Solve(trial)
	solved := &offerRecord{edits: edits, key: key, prep: prep, stop: stop}
	if slices.ContainsFunc(r.Unschedulable, func(u scheduling.Unschedulable) bool { return u.Reason == scheduling.ErrStopped.Error() }) {
		if trial.Options.StopAbovePrice < s.basePerHour {
			s.solved[key] = editTrial{above: limit}
		}
		solved.stopped = true
		s.remember(solved)
		return EditPlan{}, tryNotKept
	}
	s.remember(solved)
	if !s.keeps(r) {
		s.Rejected++
		return EditPlan{}, tryNotKept
	}
	cost := PlanPerHour(r)
	if cost >= s.basePerHour*(1-1e-9) {
		return EditPlan{}, tryNotKept
	}
	p := &EditPlan{Edits: edits, PerHour: cost, NodePools: changes, Result: r}
	s.solved[key] = editTrial{plan: p}
	solved.plan = p
	return *p, tryKept
}

// prepare compiles the NodePools of a set of edits. Edits that only
// restrict a type label or reweight a pool admit no type the pool did not
// and leave its offerings' keys alone, so each pool they change is
// compiled from the options of the pool as it is. (Compiling it from a
// pool another set narrowed, with fewer options, measured no faster: the
// solves then price the options again, which they share among all the
// narrowings of one pool.)
func (s *EditSearch) prepare(pools []scheduling.Pool, edits []Edit, changes []PoolChange) *scheduling.Prepared {
	for _, e := range edits {
		switch {
		case e.Op.Action == ActionWeight:
		case e.Op.Action == ActionRestrict && !slices.Contains(offeringKeys, e.Op.Key):
		default:
			return s.compiler.Prepare(pools)
		}
	}
	narrows := make(map[*apis.NodePool]*apis.NodePool, len(changes))
	for _, c := range changes {
		narrows[c.After] = c.Before
	}
	return s.compiler.PrepareNarrowing(pools, narrows)
}

// keeps reports whether r schedules as many pods as base, leaves pending
// only pods base leaves pending, and launches on committed NodePools at
// least what base does.
func (s *EditSearch) keeps(r scheduling.Result) bool {
	if r.Summary.ScheduledPods < s.base.Summary.ScheduledPods {
		return false
	}
	for _, u := range r.Unschedulable {
		if !s.pending[u.Pod] {
			return false
		}
	}
	if len(s.committed) > 0 {
		got := s.committedLaunches(r)
		for k, n := range s.committed {
			if got[k] < n {
				return false
			}
		}
	}
	return true
}

// ApplyEdits returns the input with the edits applied to copies of their
// NodePools, and each changed NodePool before and after, in the input's
// order. The input is not changed.
func ApplyEdits(in scheduling.Input, edits []Edit) (scheduling.Input, []PoolChange) {
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
			e.Apply(edited)
		}
		if edited != nil {
			pools[i].NodePool = edited
			changes = append(changes, PoolChange{Before: np.NodePool, After: edited})
		}
	}
	in.NodePools = pools
	return in, changes
}

// joinEdits returns the edits of a and b together, unless two of them set
// the same thing.
func joinEdits(a, b []Edit) ([]Edit, bool) {
	out := slices.Clone(a)
	for _, e := range b {
		if slices.ContainsFunc(out, func(o Edit) bool { return o.Slot == e.Slot }) {
			return nil, false
		}
		out = append(out, e)
	}
	return out, true
}

// SortEditPlans orders plans cheapest first, then by fewer edits, then by
// the edits' names.
func SortEditPlans(plans []EditPlan) {
	slices.SortStableFunc(plans, func(a, b EditPlan) int {
		return cmp.Or(cmp.Compare(a.PerHour, b.PerHour), cmp.Compare(len(a.Edits), len(b.Edits)), strings.Compare(EditsKey(a.Edits), EditsKey(b.Edits)))
	})
}

// EditsKey names a set of edits independently of their order.
func EditsKey(edits []Edit) string {
	names := make([]string, len(edits))
	for i, e := range edits {
		names[i] = e.String()
	}
	slices.Sort(names)
	return strings.Join(names, "\n")
}

// CheapestNarrowing runs the edit search over the narrowing and
// reweighting edits of in (NarrowingEdits, DefaultMaxEditCandidates of
// them, combined up to DefaultMaxEdits) and returns the cheapest plan it
// keeps, or false when no edit makes base cheaper. It is the search
// package advise runs first, with the same edits, so that no narrowing
// advice is cheaper.
func CheapestNarrowing(in scheduling.Input, base scheduling.Result) (EditPlan, bool) {
	s := NewEditSearch(in, base)
	plans := s.Run(NarrowingEdits(in, base, DefaultMaxEditCandidates), DefaultMaxEdits, nil)
	if len(plans) == 0 {
		return EditPlan{}, false
	}
	return plans[0], true
}
