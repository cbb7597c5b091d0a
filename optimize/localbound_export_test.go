package optimize

import (
	"fmt"

	"github.com/karpsim/karpsim/scheduling"
)

// CheckNeighbourhoodBounds solves, on the plan r of the input, with the
// model Search builds (on Karpenter's plan, base), every
// neighbourhood of the local search's first pass that cannotImprove
// leaves unsolved, and fails when one of those solves places every pod
// for less than the claims it would replace. It returns how many it
// solved so.
func CheckNeighbourhoodBounds(in scheduling.Input, base, r scheduling.Result) (int, error) {
	prep := scheduling.Prepare(in.NodePools, in.DaemonSets, in.Options)
	m, err := buildModelWith(in, base, prep)
	if err != nil {
		return 0, err
	}
	ls, ok := newLocalSearch(in, r, m)
	if !ok {
		return 0, nil
	}
	s := solver{prep, scheduling.PackCheapest, m}
	checked := 0
	for _, members := range ls.neighbourhoods() {
		old := 0.0
		for _, i := range members {
			old += ls.claims[i].PricePerHour
		}
		if !ls.cannotImprove(members, s, old) {
			continue
		}
		checked++
		got := ls.solve(members, s, old)
		if got.Summary.UnschedulablePods == 0 && PlanPerHour(got) < old*(1-1e-9) {
			return checked, fmt.Errorf("claims %v cost %.6f, solved again %.6f", members, old, PlanPerHour(got))
		}
	}
	return checked, nil
}
