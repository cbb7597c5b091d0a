package consolidation

import (
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// narrowingIdle reports whether the types a solve below limit leaves out
// could take none of the pods a simulation of removing the candidates
// places (theirs, the pending pods', the deleting nodes'): then the
// narrowed solve places every pod as a solve over every type does, since
// each claim's options are filtered by the pods it takes, and consolidate
// need not solve again over every type. No pod may have topology
// constraints (a claim that fails still registers its host), no type left
// out may offer reserved capacity (it changes how claims are checked), the
// packing must be Karpenter's (others price a new claim over every option)
// and there must be no planner (it plans over the NodePools cut to limit).
func (s *simulator) narrowingIdle(cands []*nodeInfo, limit float64) bool {
	if s.exhaustive || s.solveAgain || !s.prune || s.planner != nil || s.base.Options.Packing != scheduling.PackFewestPods {
		return false
	}
	var shapes []*shape
	seen := map[*shapeClass]bool{}
	add := func(sh *shape) {
		if !seen[sh.class] {
			seen[sh.class] = true
			shapes = append(shapes, sh)
		}
	}
	for _, c := range cands {
		for _, sh := range s.moving(c).shapes {
			add(sh)
		}
	}
	for _, p := range s.pending {
		add(s.shape(p))
	}
	for _, p := range s.displaced {
		add(s.shape(p))
	}
	if _, ok := s.leftOut[leftOutKey{limit: limit}]; !ok {
		s.leftOut[leftOutKey{limit: limit}] = s.prepared.LeftOut(limit, func(_ string, it *instancetypes.InstanceType) bool {
			return !slices.ContainsFunc(it.Offerings, func(o instancetypes.Offering) bool {
				return o.CapacityType == apis.CapacityTypeReserved && o.ReservationID != ""
			})
		})
	}
	if !s.leftOut[leftOutKey{limit: limit}] {
		return false
	}
	for _, sh := range shapes {
		if !s.leftOutIdle(sh, limit) {
			return false
		}
	}
	return true
}

// leftOutKey names an answer of leftOutIdle: whether the types a solve
// below limit leaves out can take no pod of the class; with no class,
// whether none of them offers reserved capacity.
type leftOutKey struct {
	class *shapeClass
	limit float64
}

// leftOutIdle reports whether no type a solve below limit leaves out can
// take a pod of the shape's class, remembered per class and limit.
func (s *simulator) leftOutIdle(sh *shape, limit float64) bool {
	if sh.invalid {
		return true
	}
	key := leftOutKey{class: sh.class, limit: limit}
	idle, ok := s.leftOut[key]
	if !ok {
		idle = s.prepared.LeftOut(limit, func(pool string, it *instancetypes.InstanceType) bool {
			p, i := s.typeIndex(pool, it)
			if p < 0 {
				return false
			}
			pr := s.priced[p]
			return !sh.class.suitsPool(pr, p, sh) || !sh.class.suitsType(pr, p, i, sh)
		})
		s.leftOut[key] = idle
	}
	return idle
}

// typeIndex finds the type in the priced NodePool's catalog: the pool's
// index in simulator.priced and the type's in its catalog, or -1.
func (s *simulator) typeIndex(pool string, it *instancetypes.InstanceType) (int, int) {
	for p, pr := range s.priced {
		if pr.np.Name != pool {
			continue
		}
		if i, ok := pr.index[it]; ok {
			return p, i
		}
		return -1, -1
	}
	return -1, -1
}
