package optimize

import (
	"math"
	"slices"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

// editBounds bounds from below what Karpenter's plan costs under a set of
// narrowing NodePool edits, before it is solved, so that Search solves
// only the sets whose plan could beat its best: the aggregate program
// (aggregateLP) over the columns the edited NodePools still launch.
//
// It is a relaxation of every plan under the edits that places the pods
// the model bounds (the pods base schedules, which a kept plan schedules
// too): an edit that restricts a type label only takes columns away, and
// gives no column a pod shape the pool as it is did not; the limits do
// not change; and when there are DaemonSets, whose overhead a narrower
// pool may carry less of, every type is given its whole allocatable; a
// column whose pods all ask for the same counts only the room whole pods
// can use (usableRoom). The columns a narrowing keeps are taken from
// before dominated ones were dropped (model.every), and dominated ones
// dropped again among them.
// Every column keeps its room whatever the edits, so a set of edits that
// narrows further is bounded no lower: the sets the edit search combines
// with a set skipped cannot beat the best plan either.
type editBounds struct {
	in scheduling.Input
	m  *model
	// pools are the model's pools by NodePool name.
	pools map[string]int
	// columns are the model's columns before dominated ones were
	// dropped, less those another offering of the same type dominates,
	// with the room the bound gives them.
	columns []column
	// artificial is the whole model's artificial price, which keeps a
	// program whose pods lost every column still a bound, and high.
	artificial float64
}

func newEditBounds(in scheduling.Input, m *model) *editBounds {
	b := &editBounds{in: in, m: m, pools: map[string]int{}, artificial: artificialPrice(m)}
	for i, p := range m.pools {
		b.pools[p.name] = i
	}
	// The shapes' requests, and the columns each type of a pool has.
	requests := make([][]float64, len(m.groups))
	for _, g := range m.groups {
		if g.shape >= len(requests) {
			requests = append(requests, make([][]float64, g.shape+1-len(requests))...)
		}
		requests[g.shape] = g.req
	}
	type typeKey struct {
		pool int
		it   *instancetypes.InstanceType
	}
	ofType := map[typeKey][]int{}
	daemons := len(in.DaemonSets) > 0
	for _, c := range m.every {
		if daemons {
			c.room = vectorIn(c.it.Allocatable(), m.dims)
		}
		c.room = usableRoom(c, requests)
		k := typeKey{c.pool, c.it}
		// An offering of a type that another of the same type dominates
		// stays dominated under any narrowing, which keeps both or
		// neither.
		if slices.ContainsFunc(ofType[k], func(i int) bool { return dominates(&b.columns[i], &c, m.pools) }) {
			continue
		}
		ofType[k] = append(ofType[k], len(b.columns))
		b.columns = append(b.columns, c)
	}
	return b
}

// usableRoom is how much of each resource the pods a column takes can use
// of its room: when they all ask for the same, only as many of them as
// fit, each whole (a relaxation still, and a tighter one); otherwise the
// room.
func usableRoom(c column, requests [][]float64) []float64 {
	var req []float64
	for s, r := range requests {
		if r == nil || !c.shapes.has(s) {
			continue
		}
		if req != nil && !slices.Equal(req, r) {
			return c.room
		}
		req = r
	}
	if req == nil {
		return c.room
	}
	n := float64(fitCount(req, c.room, math.MaxInt32))
	usable := make([]float64, len(req))
	for d, v := range req {
		usable[d] = min(c.room[d], n*v)
	}
	return usable
}

// bound is a lower bound on the cost of any plan under the edits that
// places every pod the model bounds: +Inf when some of those pods have no
// column left and no existing node to go to, 0 when the edits are not
// ones it can weigh (they widen a pool, or restrict an offering's zone,
// capacity type or reservation).
func (b *editBounds) bound(edits []Edit) float64 {
	for _, e := range edits {
		switch {
		case e.Op.Action == ActionWeight:
		case e.Op.Action == ActionRestrict && !slices.Contains(offeringKeys, e.Op.Key):
		default:
			return 0
		}
	}
	_, changes := ApplyEdits(b.in, edits)
	narrowed := map[int]requirements.Requirements{}
	for _, c := range changes {
		pi, ok := b.pools[c.After.Name]
		if !ok {
			continue
		}
		reqs, err := requirements.FromNodePool(c.After.Spec.Template)
		if err != nil {
			return 0
		}
		was, err := requirements.FromNodePool(c.Before.Spec.Template)
		if err != nil {
			return 0
		}
		if slices.ContainsFunc(edits, func(e Edit) bool { return e.NodePool == c.After.Name && e.Op.Action == ActionRestrict }) {
			// The columns are the pool's as it is: only what the
			// edits changed can take a type away.
			narrowed[pi] = reqs.ChangedFrom(was)
		}
	}
	if len(narrowed) == 0 {
		// A weight moves no column.
		return 0
	}
	type typeKey struct {
		pool int
		it   *instancetypes.InstanceType
	}
	admits := map[typeKey]bool{}
	var cols []column
	for _, c := range b.columns {
		reqs, ok := narrowed[c.pool]
		if ok {
			k := typeKey{c.pool, c.it}
			admit, seen := admits[k]
			if !seen {
				admit = c.it.Requirements.IntersectsFast(reqs)
				admits[k] = admit
			}
			if !admit {
				continue
			}
		}
		cols = append(cols, c)
	}
	m := *b.m
	m.columns = undominated(cols, m.pools)
	m.artificial = b.artificial
	if m.nodes == 0 {
		for _, g := range m.groups {
			if !slices.ContainsFunc(m.columns, func(c column) bool { return c.shapes.has(g.shape) }) {
				return math.Inf(1)
			}
		}
	}
	v, err := solveAggregate(aggregateLP(&m, nil, len(m.repel) > 0))
	if err != nil {
		return 0
	}
	return v
}
