package optimize

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// Narrowing is a cheaper plan than Karpenter's for the same pods, found by
// letting NodePools launch fewer instance types: Karpenter's own plan for
// NodePools whose requirements allow only those types, so every
// constraint of the solve holds, and a change users can make.
type Narrowing struct {
	// Result is scheduling.Solve's plan with the narrowed NodePools.
	Result scheduling.Result `json:"result"`
	// PerHour is its cost (PlanPerHour), and Saving what it saves an hour
	// on the plan it was compared with.
	PerHour float64 `json:"perHour"`
	Saving  float64 `json:"saving"`
	// NodePools are the NodePools narrowed, by name, each with the types
	// it kept, sorted; the others keep all theirs.
	NodePools []NarrowedPool `json:"nodePools"`
}

// NarrowedPool is a NodePool limited to some of its instance types.
type NarrowedPool struct {
	NodePool      string   `json:"nodePool"`
	InstanceTypes []string `json:"instanceTypes"`
}

// Narrow looks for a plan cheaper than r that schedules as many pods: it
// keeps, in each NodePool, only the instance types the aggregate linear
// program buys at its optimum (with and without the anti-affinity rows),
// solves again with scheduling.Solve, and returns the cheapest such plan,
// or false when none is cheaper. The narrowed types are those that cover
// the pods' requests most cheaply in aggregate; Karpenter, which picks
// the cheapest type for each node as it fills it, often launches others.
//
// This is the first step towards an optimizing planner, and a heuristic:
// it proves nothing (LowerBound does), and narrowing can make a plan
// dearer, which Narrow then does not return. The input is not changed.
func Narrow(in scheduling.Input, r scheduling.Result) (Narrowing, bool, error) {
	candidates, err := lpNarrowings(in, r)
	if err != nil {
		return Narrowing{}, false, err
	}
	best, found := Narrowing{PerHour: PlanPerHour(r)}, false
	for _, c := range candidates {
		trial := in
		trial.NodePools = c.pools
		plan := scheduling.Solve(trial)
		cost := PlanPerHour(plan)
		if plan.Summary.ScheduledPods >= r.Summary.ScheduledPods && cost < best.PerHour*(1-1e-9) {
			best, found = Narrowing{Result: plan, PerHour: cost, NodePools: c.narrowed}, true
		}
	}
	if found {
		best.Saving = PlanPerHour(r) - best.PerHour
	}
	return best, found, nil
}

// narrowing is the input's NodePools cut to the instance types an
// aggregate program buys, and which pools that cut.
type narrowing struct {
	pools    []scheduling.Pool
	narrowed []NarrowedPool
}

// lpNarrowings returns the distinct narrowings of the input's NodePools to
// the types the aggregate linear program buys at its optimum, with and
// without the anti-affinity rows; those that cut no pool are left out.
// r is the plan the program bounds (its unschedulable pods are left out).
func lpNarrowings(in scheduling.Input, r scheduling.Result) ([]narrowing, error) {
	m, err := buildModel(in, r)
	if err != nil {
		return nil, err
	}
	return modelNarrowings(in, m)
}

// modelNarrowings is lpNarrowings with the model of the input built.
func modelNarrowings(in scheduling.Input, m *model) ([]narrowing, error) {
	var candidates [][]bool
	for _, spread := range []bool{true, false} {
		if spread && len(m.repel) == 0 {
			continue
		}
		p := aggregateLP(m, nil, spread)
		if len(p.b) == 0 {
			continue
		}
		_, x, err := p.duals(len(p.b) <= gonumMaxRows)
		if err != nil {
			return nil, fmt.Errorf("aggregate program: %w", err)
		}
		used := make([]bool, len(m.columns))
		any := false
		for j := range m.columns {
			if x[j] > 1e-9 {
				used[j], any = true, true
			}
		}
		if any && !slices.ContainsFunc(candidates, func(c []bool) bool { return slices.Equal(c, used) }) {
			candidates = append(candidates, used)
		}
	}
	var out []narrowing
	for _, used := range candidates {
		pools, narrowed := narrowPools(in, m, used)
		same := func(n narrowing) bool { return reflect.DeepEqual(n.narrowed, narrowed) }
		if len(narrowed) > 0 && !slices.ContainsFunc(out, same) {
			out = append(out, narrowing{pools: pools, narrowed: narrowed})
		}
	}
	return out, nil
}

// narrowPools returns the input's NodePools with each pool's catalog cut
// to the types of the used columns; a pool with none keeps all its types.
func narrowPools(in scheduling.Input, m *model, used []bool) ([]scheduling.Pool, []NarrowedPool) {
	keep := map[string]map[string]bool{}
	for j, c := range m.columns {
		if !used[j] {
			continue
		}
		pool := m.pools[c.pool].name
		if keep[pool] == nil {
			keep[pool] = map[string]bool{}
		}
		keep[pool][c.name] = true
	}
	out := slices.Clone(in.NodePools)
	var pools []NarrowedPool
	for i, np := range out {
		if np.NodePool == nil || keep[np.NodePool.Name] == nil {
			continue
		}
		names := keep[np.NodePool.Name]
		var cut instancetypes.Catalog
		for _, it := range np.InstanceTypes {
			if it != nil && names[it.Name] {
				cut = append(cut, it)
			}
		}
		if len(cut) == len(np.InstanceTypes) {
			continue
		}
		out[i].InstanceTypes = cut
		np := NarrowedPool{NodePool: np.NodePool.Name}
		for _, it := range cut {
			np.InstanceTypes = append(np.InstanceTypes, it.Name)
		}
		slices.Sort(np.InstanceTypes)
		pools = append(pools, np)
	}
	slices.SortFunc(pools, func(a, b NarrowedPool) int { return cmp.Compare(a.NodePool, b.NodePool) })
	return out, pools
}
