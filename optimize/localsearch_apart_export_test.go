package optimize

import (
	"fmt"
	"reflect"

	"github.com/karpsim/karpsim/scheduling"
)

// StandApart is standApart, for tests.
var StandApart = standApart

// CheckApart solves every neighbourhood of the local search's first pass
// on the plan r of the input twice, with every other claim standing as a
// node and with only those the search keeps when the claims stand apart
// (standApart), and fails when the two solves differ. It returns how many
// neighbourhoods it solved, none when the claims do not stand apart.
func CheckApart(in scheduling.Input, r scheduling.Result) (int, error) {
	if !standApart(in) {
		return 0, nil
	}
	apart, ok := newLocalSearchApart(in, r, nil, true)
	if !ok {
		return 0, nil
	}
	whole, _ := newLocalSearchApart(in, r, nil, false)
	prep := scheduling.Prepare(in.NodePools, in.DaemonSets, in.Options)
	prep.RememberNodes()
	s := solver{prep: prep, packing: scheduling.PackCheapest}
	checked := 0
	for _, members := range apart.neighbourhoods() {
		old := 0.0
		for _, i := range members {
			old += apart.claims[i].PricePerHour
		}
		got, want := apart.solve(members, s, old), whole.solve(members, s, old)
		checked++
		if !reflect.DeepEqual(got.NodeClaims, want.NodeClaims) || !reflect.DeepEqual(got.Bindings, want.Bindings) ||
			!reflect.DeepEqual(got.Warnings, want.Warnings) || got.Summary.UnschedulablePods != want.Summary.UnschedulablePods {
			return checked, fmt.Errorf("claims %v: solved apart %+v\nsolved with every claim standing %+v", members, got, want)
		}
	}
	return checked, nil
}

// LocalSearchReads reports whether the local search can work on the plan
// r of the input (newLocalSearch).
func LocalSearchReads(in scheduling.Input, r scheduling.Result) bool {
	_, ok := newLocalSearch(in, r, nil)
	return ok
}
