package optimize

import (
	"github.com/karpsim/karpsim/scheduling"
)

// ClaimShapes reads the plan r of the input as the local search does and
// returns each claim's shape (by index, equal for claims of one shape),
// its floor, and its floor summed again pod by pod (podFloor); nil when
// the search cannot read the plan.
func ClaimShapes(in scheduling.Input, r scheduling.Result) (shapes []int, floors, podByPod []float64) {
	ls, ok := newLocalSearch(in, r, nil)
	if !ok {
		return nil, nil, nil
	}
	for i, c := range ls.claims {
		sum := 0.0
		for _, p := range ls.fixed[i].Pods {
			sum += ls.podFloor(ls.pools[c.NodePool], p)
		}
		podByPod = append(podByPod, sum)
	}
	return ls.shapes, ls.floor, podByPod
}
