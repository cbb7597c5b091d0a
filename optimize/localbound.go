package optimize

import (
	"cmp"
	"math"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// A neighbourhood whose pods all ask for the same cannot be placed for
// less than the cheapest set of new nodes with room for them all, each
// node's type and offering one its pods' requirements allow, as a lower
// bound reads them (scheduling.PoolCapacity). When that is no cheaper
// than the claims the neighbourhood would replace, its solve cannot
// improve the plan, and is not run: the search goes on as if it had
// failed, so its plan is the same either way.

// podClass is pods the local search reads alike (podReading.same): the
// same requests, and the same node kinds they may go on.
type podClass struct {
	reading  podReading
	requests resources.Vector
	// options are, by solver's Prepared, the node kinds the class's pods
	// may go on.
	options map[*scheduling.Prepared][]nodeOption
}

// nodeOption is a node kind: a type's room for pods in a pool, at its
// cheapest offering the pods allow.
type nodeOption struct {
	room  resources.Vector
	price float64
}

// classOf returns the class of the pod, by index in ls.classes, read
// once per pod.
func (ls *localSearch) classOf(p *corev1.Pod) int {
	if ci, ok := ls.classIndex[p]; ok {
		return ci
	}
	read := readingOf(p, ls.scratch)
	ci := -1
	// The last class found comes first: a claim's pods are mostly one
	// Deployment's.
	if ls.lastClass < len(ls.classes) && read.same(ls.classes[ls.lastClass].reading) {
		ci = ls.lastClass
	} else {
		ci = slices.IndexFunc(ls.classes, func(c podClass) bool { return read.same(c.reading) })
	}
	if ci < 0 {
		ci = len(ls.classes)
		ls.classes = append(ls.classes, podClass{reading: read, requests: ls.requestsOf(p).vector, options: map[*scheduling.Prepared][]nodeOption{}})
		ls.scratch = nil
	} else {
		ls.scratch = read.spec
	}
	ls.classIndex[p], ls.lastClass = ci, ci
	return ci
}

// optionsOf returns the node kinds the class's pods may go on in the
// prepared NodePools: a superset of those a solve may launch for them.
func (ls *localSearch) optionsOf(ci int, prep *scheduling.Prepared) []nodeOption {
	c := &ls.classes[ci]
	if opts, ok := c.options[prep]; ok {
		return opts
	}
	caps := ls.capacity[prep]
	if caps == nil {
		caps = prep.Capacity()
		ls.capacity[prep] = caps
	}
	opts := []nodeOption{}
	for _, pc := range caps {
		reqs, err := pc.Requirements(c.reading.pod)
		if err != nil {
			continue
		}
		for _, tc := range pc.Types {
			it := tc.InstanceType
			if !c.requests.Fits(tc.Room) || !it.Requirements.IntersectsFast(reqs) {
				continue
			}
			price := math.Inf(1)
			for _, o := range it.Offerings {
				if o.Available && o.CompatibleUnder(it.LabelRules(), reqs) {
					price = min(price, o.Price)
				}
			}
			if !math.IsInf(price, 1) {
				opts = append(opts, nodeOption{room: tc.Room, price: price})
			}
		}
	}
	c.options[prep] = opts
	return opts
}

// cannotImprove reports whether the member claims' pods certainly cost
// no less than old however the solver places them: they all ask for the
// same, and the cheapest nodes with room for them all cost at least old.
// It answers false when it cannot tell.
func (ls *localSearch) cannotImprove(members []int, s solver, old float64) bool {
	// Pods may go on the input's nodes for nothing.
	if len(ls.existing) > 0 {
		return false
	}
	var classes []int
	var requests resources.Vector
	pods := 0
	for _, i := range members {
		for _, p := range ls.fixed[i].Pods {
			ci := ls.classOf(p)
			if pods == 0 {
				requests = ls.classes[ci].requests
			} else if !slices.Contains(classes, ci) && !ls.classes[ci].requests.Equal(requests) {
				return false
			}
			pods++
			if !slices.Contains(classes, ci) {
				classes = append(classes, ci)
			}
		}
	}
	if pods == 0 {
		return false
	}
	// The pods of a new node are of its kind's classes: each kind of
	// any class may be bought, holding as many pods as fit.
	best := map[int]float64{} // by how many pods fit, the cheapest kind
	for _, ci := range classes {
		for _, o := range ls.optionsOf(ci, s.prep) {
			if o.price < 0 {
				return false
			}
			n := min(fitPods(requests, o.room), pods)
			if n < 1 {
				continue
			}
			if p, ok := best[n]; !ok || o.price < p {
				best[n] = o.price
			}
		}
	}
	if len(best) == 0 {
		return false
	}
	return coverCost(best, pods)*(1-1e-12) >= old*(1-1e-9)
}

// fitPods is how many pods of the requests fit in the room.
func fitPods(requests, room resources.Vector) int {
	n := math.MaxInt
	for _, name := range requests.Names() {
		if r := requests.Get(name); r > 0 {
			n = min(n, int(room.Get(name)/r))
		}
	}
	return n
}

// coverCost is the least a set of nodes holding pods pods costs, given,
// by how many pods a node holds, the cheapest such node.
func coverCost(best map[int]float64, pods int) float64 {
	// Only the kinds cheaper than every roomier one matter.
	type kind struct {
		fit   int
		price float64
	}
	var kinds []kind
	for fit, price := range best {
		kinds = append(kinds, kind{fit, price})
	}
	slices.SortFunc(kinds, func(a, b kind) int { return cmp.Compare(b.fit, a.fit) })
	frontier := kinds[:0]
	for _, k := range kinds {
		if len(frontier) == 0 || k.price < frontier[len(frontier)-1].price {
			frontier = append(frontier, k)
		}
	}
	cost := make([]float64, pods+1)
	for j := 1; j <= pods; j++ {
		cost[j] = math.Inf(1)
		for _, k := range frontier {
			cost[j] = min(cost[j], k.price+cost[max(0, j-k.fit)])
		}
	}
	return cost[pods]
}
