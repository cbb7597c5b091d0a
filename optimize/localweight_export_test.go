package optimize

import (
	"fmt"
	"slices"

	"github.com/karpsim/karpsim/scheduling"
)

// CheckWeightBounds solves again, on the plan r of the input, with the
// model Search builds (on Karpenter's plan, base), every neighbourhood of
// the local search's first pass whose pods ask for different things,
// with each packing and no price cap, and fails when a solve placing
// every pod costs less than the neighbourhood's weight bound. It returns
// how many solves it checked, and how many neighbourhoods the bound
// leaves unsolved (it is at least what their claims cost).
func CheckWeightBounds(in scheduling.Input, base, r scheduling.Result) (checked, skipped int, err error) {
	prep := scheduling.Prepare(in.NodePools, in.DaemonSets, in.Options)
	m, err := buildModelWith(in, base, prep)
	if err != nil {
		return 0, 0, err
	}
	ls, ok := newLocalSearch(in, r, m)
	if !ok || len(ls.existing) > 0 {
		return 0, 0, nil
	}
	for _, members := range ls.neighbourhoods() {
		var groups, counts []int
		var req []float64
		uniform, known := true, true
		old := 0.0
		for _, i := range members {
			old += ls.claims[i].PricePerHour
			for _, p := range ls.fixed[i].Pods {
				gi, ok := m.groupOf[p]
				if !ok {
					known = false
					break
				}
				if req == nil {
					req = m.groups[gi].req
				} else if !slices.Equal(req, m.groups[gi].req) {
					uniform = false
				}
				if k := slices.Index(groups, gi); k >= 0 {
					counts[k]++
				} else {
					groups, counts = append(groups, gi), append(counts, 1)
				}
			}
		}
		if !known || uniform {
			continue
		}
		bound := weightBound(m, groups, counts)
		if bound*(1-1e-12) >= old*(1-1e-9) {
			skipped++
		}
		for _, packing := range []scheduling.Packing{scheduling.PackCheapest, scheduling.PackFewestPods, scheduling.PackEfficient, scheduling.PackBalanced} {
			got := ls.solve(members, solver{prep, packing, m}, 0)
			if got.Summary.UnschedulablePods > 0 {
				continue
			}
			checked++
			if cost := PlanPerHour(got); cost < bound*(1-1e-12) {
				return checked, skipped, fmt.Errorf("claims %v: packing %v places their pods for %.6f, below their weight bound %.6f", members, packing, cost, bound)
			}
		}
	}
	return checked, skipped, nil
}
