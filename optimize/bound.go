// Package optimize measures how far a plan is from the cheapest possible
// and looks for cheaper ones.
//
// LowerBound proves a cost per hour below which no plan can place the same
// pods, from linear-programming relaxations of the packing problem. Solve
// (and Search, which says what it tried) is the optimizing planner: the
// cheapest of plans that package scheduling itself solves with other
// packings or narrowed NodePools, improved by a local search that has
// scheduling solve a few claims' pods again at a time, so every constraint
// Karpenter keeps still holds. Solve has a planner's signature, so
// simulator.Config.Planner, controller.Config.Planner and
// consolidation.Options.Planner take it in place of scheduling.Solve. The
// package only reads its input and does no I/O.
package optimize

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/karpsim/karpsim/scheduling"
)

// Methods name the bound LowerBound returned, the strongest it proved.
const (
	// MethodNone: nothing to bound (no pod needs a new node), or every
	// relaxation proved 0.
	MethodNone = "none"
	// MethodLP is the aggregate linear program: fractional nodes covering
	// the pods' total requests.
	MethodLP = "lp"
	// MethodColumnGeneration is Farley's bound from column generation over
	// whole-pod packings of single nodes.
	MethodColumnGeneration = "column-generation"
	// MethodAntiAffinity is one node per pod of a hostname anti-affinity
	// set, alone or within the aggregate program.
	MethodAntiAffinity = "anti-affinity"
)

// BoundOptions tune the effort of LowerBound. The zero value is the
// default; no option changes whether the result is a bound, only how
// strong it is.
type BoundOptions struct {
	// MaxIterations caps the rounds of column generation; 0 means 40, a
	// negative value skips column generation.
	MaxIterations int
	// MaxKnapsackNodes caps the search for each node type's best packing
	// in a round; 0 means 4000. A search cut short is still bounded from
	// above, which keeps Farley's bound valid.
	MaxKnapsackNodes int
}

func (o BoundOptions) iterations() int {
	switch {
	case o.MaxIterations < 0:
		return 0
	case o.MaxIterations == 0:
		return 40
	}
	return o.MaxIterations
}

func (o BoundOptions) knapsackNodes() int {
	if o.MaxKnapsackNodes > 0 {
		return o.MaxKnapsackNodes
	}
	return 4000
}

// Bound is a proven lower bound on the hourly cost of the new nodes of any
// plan that schedules the pods the plan at hand schedules.
type Bound struct {
	// PerHour is the bound: the largest of the bounds below.
	PerHour float64 `json:"perHour"`
	// Method names which bound PerHour is (a Method* constant).
	Method string `json:"method"`
	// LP is the aggregate linear-programming bound.
	LP float64 `json:"lp"`
	// ColumnGeneration is Farley's bound from column generation, 0 when it
	// did not run.
	ColumnGeneration float64 `json:"columnGeneration"`
	// Iterations is how many rounds column generation ran; Converged is
	// set when it stopped because no packing could lower its program, so
	// that ColumnGeneration is the program's optimum (to a millionth).
	Iterations int  `json:"iterations"`
	Converged  bool `json:"converged"`
	// AntiAffinity is the bound of one node per pod of a hostname
	// anti-affinity set: the largest set's pods alone, or the aggregate
	// program with that many nodes for every other pod too; 0 when there
	// is no set.
	AntiAffinity float64 `json:"antiAffinity"`
	// PlanPerHour is what the plan's new NodeClaims cost an hour
	// (PlanPerHour(r), unrounded), and Gap how much more that is than the
	// bound: (plan − bound) / bound, 0 when the bound is 0. Gap is
	// negative only when r is not a plan of these pods (an empty Result).
	PlanPerHour float64 `json:"planPerHour"`
	Gap         float64 `json:"gap"`
	// Pods is how many pods the bound covers.
	Pods int `json:"pods"`
	// ByNodePool is, per NodePool by name, the plan's cost there and the
	// aggregate bound on the pods only that NodePool admits: what any plan
	// must spend in it.
	ByNodePool []PoolBound `json:"byNodePool"`
	// Excluded are the pods left out, "namespace/name: why", sorted:
	// those the plan leaves unschedulable, invalid ones and those no
	// NodePool offers a node for.
	Excluded []string `json:"excluded,omitempty"`
}

// PoolBound is a NodePool's share of the plan and of the bound.
type PoolBound struct {
	NodePool    string  `json:"nodePool"`
	PlanPerHour float64 `json:"planPerHour"`
	// PerHour bounds what any plan spends on new nodes of this pool: the
	// aggregate bound over the pods no other pool admits.
	PerHour float64 `json:"perHour"`
}

// LowerBound proves a lower bound on the hourly cost of the new nodes that
// any plan needs to schedule the input's pods, except those r reports
// unschedulable. r is the plan to compare with, normally Solve(in); only
// its unschedulable pods and its cost are read.
//
// Why it is a bound. Every plan puts each pod on an existing node (its free
// capacity costs nothing) or on a new node of a type some NodePool admits
// the pod on, at one of the type's offerings, paying at least that
// offering's price; the nodes' requests fit their allocatable less
// DaemonSet overhead, and each NodePool's new nodes stay within what its
// limits leave. The programs below keep these constraints and drop others
// (topology spread, pod affinity, which existing node takes which pod,
// preferences, volume topology, minValues, reservation counts), so every
// plan is a solution of each and costs at least its optimum. The bounds
// are certified by duality rather than read off a solver: a dual solution,
// scaled until it is exactly feasible, proves its value whatever the
// solver's rounding or how early column generation stopped.
//
// The result is deterministic: the same input gives the same Bound. The
// input is not changed.
func LowerBound(in scheduling.Input, r scheduling.Result, opts BoundOptions) (Bound, error) {
	m, err := buildModel(in, r)
	if err != nil {
		return Bound{}, err
	}
	b := Bound{Method: MethodNone, PlanPerHour: PlanPerHour(r), Excluded: m.excluded}
	for _, g := range m.groups {
		b.Pods += g.count
	}
	if b.LP, err = aggregateBound(m); err != nil {
		return Bound{}, fmt.Errorf("aggregate bound: %w", err)
	}
	if b.AntiAffinity, err = antiAffinityBound(m); err != nil {
		return Bound{}, fmt.Errorf("anti-affinity bound: %w", err)
	}
	if iterations := opts.iterations(); iterations > 0 && len(m.groups) > 0 {
		cg := newColumnGeneration(m, opts.knapsackNodes())
		b.ColumnGeneration, b.Iterations, b.Converged, err = cg.run(iterations)
		if err != nil {
			return Bound{}, fmt.Errorf("column generation: %w", err)
		}
	}
	for _, c := range []struct {
		v      float64
		method string
	}{{b.LP, MethodLP}, {b.ColumnGeneration, MethodColumnGeneration}, {b.AntiAffinity, MethodAntiAffinity}} {
		if c.v > b.PerHour {
			b.PerHour, b.Method = c.v, c.method
		}
	}
	if b.PerHour > 0 {
		b.Gap = (b.PlanPerHour - b.PerHour) / b.PerHour
	}
	if b.ByNodePool, err = poolBounds(m, r, b.LP); err != nil {
		return Bound{}, err
	}
	return b, nil
}

// PlanPerHour is what the plan's new NodeClaims cost an hour: the sum of
// their launch prices, unrounded (Summary.PricePerHour is rounded for
// printing).
func PlanPerHour(r scheduling.Result) float64 {
	total := 0.0
	for _, c := range r.NodeClaims {
		total += c.PricePerHour
	}
	return total
}

// poolBounds bounds each NodePool's share: the aggregate program over the
// groups whose columns all belong to the pool.
func poolBounds(m *model, r scheduling.Result, all float64) ([]PoolBound, error) {
	plan := map[string]float64{}
	for _, c := range r.NodeClaims {
		plan[c.NodePool] += c.PricePerHour
	}
	out := make([]PoolBound, 0, len(m.pools))
	for pi, l := range m.pools {
		pb := PoolBound{NodePool: l.name, PlanPerHour: plan[l.name]}
		only := func(g int) bool {
			for j := range m.columns {
				if m.columns[j].pool != pi && m.columns[j].shapes.has(m.groups[g].shape) {
					return false
				}
			}
			return true
		}
		everyGroup := true
		for g := range m.groups {
			everyGroup = everyGroup && only(g)
		}
		if everyGroup {
			pb.PerHour = all
		} else if p := aggregateLP(m, only, false); len(p.b) > 0 {
			y, _, err := p.duals(len(p.b) <= gonumMaxRows)
			if err != nil {
				return nil, fmt.Errorf("NodePool %q: aggregate bound: %w", l.name, err)
			}
			pb.PerHour = p.certify(y)
		}
		out = append(out, pb)
	}
	slices.SortFunc(out, func(a, b PoolBound) int { return cmp.Compare(a.NodePool, b.NodePool) })
	return out, nil
}
