package optimize

import (
	"slices"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// SolveOptions are the knobs of the optimizing planner. The zero value is
// the default.
type SolveOptions struct {
	// MaxSolves caps how many candidate plans the search computes besides
	// Karpenter's, each one solve by package scheduling: 0 means every
	// candidate (see Search), a negative value none. The budget counts
	// solves rather than time so that the same input always gives the
	// same plan.
	MaxSolves int
	// LocalSearch caps how many neighbourhoods the local search solves
	// again once the candidates are weighed (see improve): 0 means
	// DefaultLocalSearch, a negative value none. Like MaxSolves it counts
	// work, not time.
	LocalSearch int
}

// DefaultLocalSearch is how many neighbourhoods the local search solves
// again at most by default. Each is a few claims' pods, against the rest
// of the plan; the search also stops once its solves have placed half as
// many pods as the input has (200 at least), each solve's claims read
// counted as pods.
const DefaultLocalSearch = 16

// minLocalWork is the local search's work budget on small inputs.
const minLocalWork = 200

// Strategies name how a candidate plan was found.
const (
	// StrategyKarpenter is Karpenter's own plan, scheduling.Solve's.
	StrategyKarpenter = "karpenter"
	// StrategyCheapestPacking is scheduling.Solve with
	// scheduling.PackCheapest: each pod where it adds least to the price.
	StrategyCheapestPacking = "cheapest-packing"
	// StrategyEfficientPacking is scheduling.Solve with
	// scheduling.PackEfficient: cheapest packing into claims opened for
	// the type that packs their first pod most cheaply.
	StrategyEfficientPacking = "efficient-packing"
	// StrategyNarrowedCheapestPacking and StrategyNarrowedEfficientPacking
	// are those packings with the NodePools narrowed to the types the
	// aggregate program buys.
	StrategyNarrowedCheapestPacking  = "narrowed+cheapest-packing"
	StrategyNarrowedEfficientPacking = "narrowed+efficient-packing"
	// StrategyNarrowedBalancedPacking is scheduling.PackBalanced with the
	// NodePools narrowed: each claim opened for the narrowed type that
	// packs its first pod most cheaply, then filled with the pods that
	// best match its room left.
	StrategyNarrowedBalancedPacking = "narrowed+balanced-packing"
	// StrategyNarrowed is Karpenter's packing with the NodePools narrowed
	// to the types the aggregate program buys (Narrow).
	StrategyNarrowed = "narrowed"
	// StrategyNodePoolEdits is Karpenter's plan under the cheapest set of
	// narrowing and reweighting NodePool edits the edit search keeps
	// (CheapestNarrowing): what package advise would advise of those.
	StrategyNodePoolEdits = "nodepool-edits"
	// StrategyLocalSearch is added to the strategy of the plan the local
	// search improved ("cheapest-packing+local-search").
	StrategyLocalSearch = "local-search"
)

// Outcome is what Search found: the cheapest plan, how, and every
// candidate it weighed.
type Outcome struct {
	// Result is the plan: Karpenter's unless a candidate was cheaper.
	Result scheduling.Result `json:"result"`
	// KarpenterPerHour is what Karpenter's plan costs an hour, PerHour
	// what Result costs, and Saving the difference (PlanPerHour, unrounded).
	KarpenterPerHour float64 `json:"karpenterPerHour"`
	PerHour          float64 `json:"perHour"`
	Saving           float64 `json:"saving"`
	// Strategy is how Result was found (a Strategy* constant).
	Strategy string `json:"strategy"`
	// NodePools are the NodePools Result's search narrowed, with the
	// types each kept; empty when none was.
	NodePools []NarrowedPool `json:"nodePools,omitempty"`
	// Edits are the NodePool edits under which Karpenter's own plan is
	// Result, when it is (StrategyNodePoolEdits); empty otherwise.
	Edits []Edit `json:"edits,omitempty"`
	// Candidates are the plans weighed, Karpenter's first, in the order
	// they were solved.
	Candidates []Candidate `json:"candidates"`
}

// Candidate is one plan the search weighed.
type Candidate struct {
	Strategy string `json:"strategy"`
	// PerHour is the plan's cost, ScheduledPods the pods it places.
	PerHour       float64 `json:"perHour"`
	ScheduledPods int     `json:"scheduledPods"`
	// Stopped is set when the solve was given up once it certainly cost
	// more than the best plan before it: PerHour and ScheduledPods are
	// then those of the claims it had made.
	Stopped bool `json:"stopped,omitempty"`
	// Chosen is set on the plan Search returned.
	Chosen bool `json:"chosen"`
}

// Solve is the optimizing planner: it returns a plan for in that obeys
// every constraint scheduling.Solve obeys, schedules at least as many pods,
// and costs no more than Karpenter's plan (scheduling.Solve's), which it
// returns when it finds nothing cheaper. It has the same contract as
// scheduling.Solve, so a caller can use either as its planner. The input is
// not changed.
func Solve(in scheduling.Input, opts SolveOptions) (scheduling.Result, error) {
	o, err := Search(in, opts)
	return o.Result, err
}

// Search is Solve with what it weighed. Every candidate is a plan of
// scheduling's own solver, so every constraint is checked by the code
// that checks Karpenter's plans, one home per rule; the candidates differ
// in how pods are packed and which instance types the NodePools offer:
//
//  1. Karpenter's plan, scheduling.Solve(in): the plan to beat.
//  2. Cheapest packing (scheduling.PackCheapest): each pod joins the
//     claim it makes least dearer, or a new claim when that is cheaper,
//     instead of the claim with fewest pods. Claims then grow only while
//     growing is cheaper than a new node, and each launches the cheapest
//     type that holds its pods, as every claim does.
//  3. Efficient packing (scheduling.PackEfficient): the same, with each
//     claim opened for the type that packs pods like its first most
//     cheaply per pod, whose room counts as paid for.
//  4. The cheapest packing, balanced packing (scheduling.PackBalanced:
//     efficient packing with each claim filled by the pods that best
//     match its room left, so cpu-heavy and memory-heavy pods share
//     nodes), efficient packing and Karpenter's, with each NodePool
//     narrowed to the types the aggregate linear program buys at its
//     optimum (with and without its anti-affinity rows), which cover the
//     pods' requests most cheaply in the proportions they ask for them.
//     Karpenter's packing of narrowed NodePools (Narrow) is a change
//     users can make to their NodePools.
//  5. Karpenter's plan under the cheapest set of narrowing and
//     reweighting NodePool edits (CheapestNarrowing: vCPU caps and floors,
//     sizes, families and generations left out, a pool's weight above
//     the others', and combinations of the best), the search package
//     advise runs first: such a plan launches only what the NodePools as
//     they are admit, so no such advice is cheaper than Search's plan.
//  6. Local search on the cheapest candidate (improve): a few of its
//     claims at a time, those that leave most of what they pay for idle
//     first, have their pods solved again, again by scheduling's solver,
//     with the rest of the plan standing as full nodes; the new claims
//     replace them when they place every pod for less. This re-chooses a
//     claim's type, splits it, merges two or moves pods between them,
//     with every type of the input's NodePools, narrowed or not.
//
// The cheapest candidate that schedules at least as many pods as
// Karpenter's wins, ties going to the earlier. Narrowing only takes types
// away, so a narrowed plan is a plan of the NodePools as they are.
func Search(in scheduling.Input, opts SolveOptions) (Outcome, error) {
	// The input's NodePools are compiled once for every solve that
	// keeps them, Karpenter's first.
	// The compiler keeps them for the edit search too, which compiles the
	// NodePools an edit changes from theirs.
	compiler := scheduling.NewCompiler(in.DaemonSets, in.Options)
	prep := compiler.Prepare(in.NodePools)
	prep.RememberNodes()
	base := prep.Solve(in)
	o := Outcome{Result: base, KarpenterPerHour: PlanPerHour(base), PerHour: PlanPerHour(base), Strategy: StrategyKarpenter,
		Candidates: []Candidate{{Strategy: StrategyKarpenter, PerHour: PlanPerHour(base), ScheduledPods: base.Summary.ScheduledPods, Chosen: true}}}
	budget := opts.MaxSolves
	if budget == 0 {
		budget = -1 // every candidate
	} else if budget < 0 {
		return o, nil
	}
	// chosenPools are the chosen plan's NodePools when narrowed.
	var chosenPools []scheduling.Pool
	consider := func(strategy string, trial scheduling.Input, narrowed []NarrowedPool, solver *scheduling.Prepared) bool {
		if budget == 0 {
			return false
		}
		budget--
		// A candidate is given up once it certainly costs more than the
		// best plan so far.
		trial.Options.StopAbovePrice = o.PerHour
		r := solver.WithOptions(trial.Options).Solve(trial)
		cost := PlanPerHour(r)
		stopped := slices.ContainsFunc(r.Unschedulable, func(u scheduling.Unschedulable) bool { return u.Reason == scheduling.ErrStopped.Error() })
		o.Candidates = append(o.Candidates, Candidate{Strategy: strategy, PerHour: cost, ScheduledPods: r.Summary.ScheduledPods, Stopped: stopped})
		if !stopped && r.Summary.ScheduledPods >= base.Summary.ScheduledPods && cost < o.PerHour*(1-1e-9) {
			o.Result, o.PerHour, o.Strategy, o.NodePools = r, cost, strategy, narrowed
			chosenPools = nil
			if narrowed != nil {
				chosenPools = trial.NodePools
			}
			for i := range o.Candidates {
				o.Candidates[i].Chosen = i == len(o.Candidates)-1
			}
		}
		return true
	}
	for _, c := range []struct {
		strategy string
		packing  scheduling.Packing
	}{{StrategyCheapestPacking, scheduling.PackCheapest}, {StrategyEfficientPacking, scheduling.PackEfficient}} {
		trial := in
		trial.Options.Packing = c.packing
		if !consider(c.strategy, trial, nil, prep) {
			return o.improve(in, prep, nil, chosenPools, opts), nil
		}
	}
	m, err := buildModelWith(in, base, prep)
	if err != nil {
		return o.finish(), err
	}
	narrowings, err := modelNarrowings(in, m)
	if err != nil {
		return o.finish(), err
	}
	// won says, per narrowing, whether one of its packings gave the best
	// plan so far.
	won := make([]bool, len(narrowings))
	// Each narrowing's NodePools are compiled once for its packings, when
	// the first is solved.
	preps := make([]*scheduling.Prepared, len(narrowings))
	for k, c := range []struct {
		strategy string
		packing  scheduling.Packing
	}{{StrategyNarrowedCheapestPacking, scheduling.PackCheapest}, {StrategyNarrowedBalancedPacking, scheduling.PackBalanced}, {StrategyNarrowedEfficientPacking, scheduling.PackEfficient}, {StrategyNarrowed, scheduling.PackFewestPods}} {
		for i, n := range narrowings {
			// A narrowing whose first two packings (by price, and
			// balanced) did not give the best plan is not tried with
			// the others: narrowed types that win neither way rarely
			// win packed otherwise.
			if k >= 2 && !won[i] {
				continue
			}
			trial := in
			trial.NodePools = n.pools
			trial.Options.Packing = c.packing
			if preps[i] == nil {
				preps[i] = compiler.Prepare(n.pools)
				preps[i].RememberNodes()
			}
			if !consider(c.strategy, trial, n.narrowed, preps[i]) {
				return o.improve(in, prep, m, chosenPools, opts), nil
			}
			won[i] = won[i] || o.Candidates[len(o.Candidates)-1].Chosen
		}
	}
	if budget != 0 {
		limit := DefaultMaxEditCandidates
		if budget > 0 {
			limit = min(limit, budget)
		}
		s := NewEditSearch(in, base)
		s.compiler = compiler
		// A set of edits whose plan certainly costs no less than the best
		// plan so far is not solved: the sets the search combines with it
		// narrow the NodePools further, and cost no less either.
		bounds, best := newEditBounds(in, m), o.PerHour
		bounds.labels = compiler.LabelGroups
		// Search weighs only the cheapest plan of the run, so a set
		// whose plan certainly costs more than the run needs of it is
		// given up too (EditSearch.Run).
		s.skip = func(edits []Edit, limit float64) bool { return bounds.skips(edits, min(best, limit*(1+1e-12))) }
		s.cheapest = true
		plans := s.Run(NarrowingEdits(in, base, limit), DefaultMaxEdits, nil)
		if len(plans) > 0 {
			p := plans[0]
			o.Candidates = append(o.Candidates, Candidate{Strategy: StrategyNodePoolEdits, PerHour: p.PerHour, ScheduledPods: p.Result.Summary.ScheduledPods})
			if p.PerHour < o.PerHour*(1-1e-9) {
				o.Result, o.PerHour, o.Strategy, o.NodePools, o.Edits = p.Result, p.PerHour, StrategyNodePoolEdits, nil, p.Edits
				chosenPools = nil
				for i := range o.Candidates {
					o.Candidates[i].Chosen = i == len(o.Candidates)-1
				}
			}
		}
	}
	return o.improve(in, prep, m, chosenPools, opts), nil
}

// improve runs the local search on the chosen plan, packing each
// neighbourhood by price (PackCheapest, which splits and shrinks claims
// where PackEfficient mostly rebuilds the claim it had), and finishes the
// outcome. The search solves with the input's NodePools (compiled in
// prep, of which m is the model when built), even for a plan of narrowed
// ones (narrowed): the part-filled claims a packing leaves are most often
// cheapest on types the narrowing took away. Outcome.NodePools, a change users can make, then names the
// narrowing only if the improved plan still launches none of those.
func (o Outcome) improve(in scheduling.Input, prep *scheduling.Prepared, m *model, narrowed []scheduling.Pool, opts SolveOptions) Outcome {
	limit := opts.LocalSearch
	if limit == 0 {
		limit = DefaultLocalSearch
	}
	if limit > 0 {
		solvers := []solver{{prep, scheduling.PackCheapest, m}}
		if r, ok := improve(in, o.Result, solvers, limit, max(len(in.Pods)/2, minLocalWork)); ok {
			cost := PlanPerHour(r)
			o.Result, o.PerHour, o.Strategy = r, cost, o.Strategy+"+"+StrategyLocalSearch
			if narrowed != nil && !launchesOnly(r, narrowed) {
				o.NodePools = nil
			}
			// The edits no longer give the plan: the local search chose
			// its claims' types among every type of the NodePools.
			o.Edits = nil
			for i := range o.Candidates {
				o.Candidates[i].Chosen = false
			}
			o.Candidates = append(o.Candidates, Candidate{Strategy: o.Strategy, PerHour: cost, ScheduledPods: r.Summary.ScheduledPods, Chosen: true})
		}
	}
	return o.finish()
}

// launchesOnly reports whether every claim of the plan launches a type
// its NodePool has in pools.
func launchesOnly(r scheduling.Result, pools []scheduling.Pool) bool {
	for _, c := range r.NodeClaims {
		i := slices.IndexFunc(pools, func(np scheduling.Pool) bool { return np.NodePool != nil && np.NodePool.Name == c.NodePool })
		if i < 0 || !slices.ContainsFunc(pools[i].InstanceTypes, func(it *instancetypes.InstanceType) bool { return it != nil && it.Name == c.InstanceType }) {
			return false
		}
	}
	return true
}

func (o Outcome) finish() Outcome {
	o.Saving = o.KarpenterPerHour - o.PerHour
	return o
}
