package consolidation

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// A solve compiles every NodePool over its catalog and every node with its
// pods, whatever the pods to place. Two reductions keep consolidation's many
// solves small without changing what they decide:
//
//   - a node that none of the pods being placed could land on is left out
//     (its capacity still counts against its NodePool's limits);
//   - a consolidation solve only offers new-node types whose cheapest
//     offering is below the candidates' price, since no other type can pass
//     the price filter afterwards.
//
// Both are necessary-condition filters; see run and consolidate for why the
// answers stay the same. The same conditions also answer some simulations
// without a solve: a pod of a candidate that no remaining node and no
// offered type could take fails in the solve too, and a pending pod that no
// node and no type could take fails in every solve, so it is left out.

// shape is what a pod needs of a node, read once, in its most permissive
// form: the solver may relax preferences and move to later required
// node-affinity terms, so a node compatible with none of the terms, or
// without room for the requests, can never take the pod.
type shape struct {
	requests    resources.Vector
	forms       []requirements.Requirements
	tolerations []corev1.Toleration
	// invalid pods are placed nowhere.
	invalid bool
	// class is shared by the shapes with the same constraints (forms and
	// tolerations), whatever their requests.
	class *shapeClass
	// fits are fitsType's answers so far, by limit: the candidates of a
	// packed cluster ask it again for the same few prices.
	fits []fitAnswer
}

// fitAnswer is fitsType's answer for one shape and limit.
type fitAnswer struct {
	limit float64
	fits  bool
}

// maxFitAnswers bounds the answers a shape keeps.
const maxFitAnswers = 32

// shapeClass remembers which destinations the constraints of its shapes
// admit (their hard taints tolerated, their labels compatible), and which
// NodePools and instance types suit them: that does not change during an
// evaluation, and every simulation asks it again of the same destinations
// and types. Each answer is 0 while not yet known, 1 for yes, 2 for no.
type shapeClass struct {
	// forms and tolerations are its shapes' (see shape).
	forms       []requirements.Requirements
	tolerations []corev1.Toleration
	// admits is per destination index.
	admits []int8
	// byRoom are the destinations that admit the class, in
	// simulator.byRoom order, read up to byRoom[scanned] (admitting).
	byRoom  []int
	scanned int
	// pools is per index in simulator.priced, types per that index and
	// index in its catalog.
	pools []int8
	types [][]int8
	// below are, per price limit, the types of every catalog that suit
	// the class and whose cheapest offering is below the limit (every
	// type for 0): fitsType then only checks their room.
	below map[float64][]typeRef
}

// maxBelowLimits bounds the limits a class keeps its suitable types for;
// fitsType checks every type for the others.
const maxBelowLimits = 16

// typeRef is a type of simulator.priced: the pool's index and the type's
// index in its catalog.
type typeRef struct{ pool, index int }

// appendConstraintKey appends what tells pods apart by the constraints
// shape reads of them; with their requests, it tells shapes apart, so that
// the pods of one workload share a shape and each simulation checks it
// once.
func appendConstraintKey(b []byte, p *corev1.Pod) []byte {
	var few [8]string
	keys := few[:0]
	for k := range p.Spec.NodeSelector {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = append(append(append(append(b, '|'), k...), '='), p.Spec.NodeSelector[k]...)
	}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		b = fmt.Appendf(b, "|%v", a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms)
	}
	if len(p.Spec.Tolerations) > 0 {
		b = fmt.Appendf(b, "|%v", p.Spec.Tolerations)
	}
	return b
}

func newShape(p *corev1.Pod, requests resources.Vector) *shape {
	sh := &shape{requests: requests, tolerations: p.Spec.Tolerations}
	terms := []corev1.NodeSelectorTerm{{}}
	if a := p.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if t := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms; len(t) > 0 {
			terms = t
		}
	}
	selector := requirements.FromLabels(p.Spec.NodeSelector)
	for _, term := range terms {
		reqs, err := requirements.FromNodeSelectorRequirements(term.MatchExpressions...)
		if err != nil {
			continue
		}
		sh.forms = append(sh.forms, selector.Intersect(reqs))
	}
	sh.invalid = len(sh.forms) == 0
	return sh
}

// accepts reports whether the pod might land on the node: it fits the
// node's room (an upper bound of what the solver finds), tolerates its hard
// taints (ignored on uninitialized nodes, whose startup taints the solver
// ignores) and is compatible with its labels in some form.
func (d *destination) accepts(sh *shape) bool {
	if sh.invalid || !sh.requests.Fits(d.room) {
		return false
	}
	if sh.class == nil {
		return d.admits(sh.forms, sh.tolerations)
	}
	return d.admitsClass(sh.class)
}

// admitsClass is admits for the class, remembered.
func (d *destination) admitsClass(c *shapeClass) bool {
	if d.index >= len(c.admits) {
		c.admits = append(c.admits, make([]int8, d.index+1-len(c.admits))...)
	}
	return remember(&c.admits[d.index], func() bool { return d.admits(c.forms, c.tolerations) })
}

// admits reports whether a pod with the tolerations tolerates the node's
// hard taints and is compatible with its labels in one of the forms.
func (d *destination) admits(forms []requirements.Requirements, tolerations []corev1.Toleration) bool {
	for i := range d.hardTaints {
		if !slices.ContainsFunc(tolerations, func(t corev1.Toleration) bool { return scheduling.ToleratesTaint(&t, &d.hardTaints[i]) }) {
			return false
		}
	}
	for _, form := range forms {
		if d.nodeLabels().CompatibleFast(form, requirements.DenyUndefined) {
			return true
		}
	}
	return false
}

// fitsType reports whether some type of the catalogs, narrowed to limit
// when it is positive, has the room and a label set the pod may accept.
func (s *simulator) fitsType(sh *shape, limit float64) bool {
	for _, a := range sh.fits {
		if a.limit == limit {
			return a.fits
		}
	}
	fits := s.fitsTypeNow(sh, limit)
	if len(sh.fits) < maxFitAnswers {
		sh.fits = append(sh.fits, fitAnswer{limit: limit, fits: fits})
	}
	return fits
}

// fitsTypeNow is fitsType, worked out.
func (s *simulator) fitsTypeNow(sh *shape, limit float64) bool {
	if c := sh.class; c != nil && (c.below[limit] != nil || len(c.below) < maxBelowLimits) {
		for _, t := range c.suitableBelow(s.priced, limit, sh) {
			if sh.requests.Fits(s.priced[t.pool].catalog[t.index].Allocatable()) {
				return true
			}
		}
		return false
	}
	for p, pr := range s.priced {
		if !sh.class.suitsPool(pr, p, sh) {
			continue
		}
		for i, it := range pr.catalog {
			if (limit > 0 && pr.cheapest[i] >= limit) || !sh.requests.Fits(it.Allocatable()) {
				continue
			}
			if sh.class.suitsType(pr, p, i, sh) {
				return true
			}
		}
	}
	return false
}

// suitableBelow are the types of the catalogs below limit (every one when
// it is 0) whose pool and labels suit the class, sh being one of its
// shapes; worked out once per limit.
func (c *shapeClass) suitableBelow(priced []priced, limit float64, sh *shape) []typeRef {
	if refs, ok := c.below[limit]; ok {
		return refs
	}
	refs := []typeRef{}
	for p, pr := range priced {
		if !c.suitsPool(pr, p, sh) {
			continue
		}
		for i := range pr.catalog {
			if (limit <= 0 || pr.cheapest[i] < limit) && c.suitsType(pr, p, i, sh) {
				refs = append(refs, typeRef{p, i})
			}
		}
	}
	if c.below == nil {
		c.below = map[float64][]typeRef{}
	}
	c.below[limit] = refs
	return refs
}

// suitsPool is pr.suits(sh), remembered for the class; p is pr's index.
func (c *shapeClass) suitsPool(pr priced, p int, sh *shape) bool {
	if c == nil {
		return pr.suits(sh)
	}
	if p >= len(c.pools) {
		c.pools = append(c.pools, make([]int8, p+1-len(c.pools))...)
	}
	return remember(&c.pools[p], func() bool { return pr.suits(sh) })
}

// suitsType is suits(pr.catalog[i], sh), remembered for the class.
func (c *shapeClass) suitsType(pr priced, p, i int, sh *shape) bool {
	if c == nil {
		return suits(pr.catalog[i], sh)
	}
	if p >= len(c.types) {
		c.types = append(c.types, make([][]int8, p+1-len(c.types))...)
	}
	if c.types[p] == nil {
		c.types[p] = make([]int8, len(pr.catalog))
	}
	return remember(&c.types[p][i], func() bool { return suits(pr.catalog[i], sh) })
}

// remember answers from *known (1 yes, 2 no) or, when it is 0, from
// compute, and keeps the answer there.
func remember(known *int8, compute func() bool) bool {
	if *known == 0 {
		*known = 2
		if compute() {
			*known = 1
		}
	}
	return *known == 1
}

// cannotFit says why the candidates' pods cannot all be placed, judged
// without a solve, or "". The pods come as distinct shapes, each with the
// first pod of that shape and how many pods share it. A pod that fits on no remaining node must go to a
// new node: it needs a type (below limit, if set) with room for it and
// labels it accepts. With oneClaim those pods must even share one new node,
// so one type must have room for all of them and suit each of them.
func (s *simulator) cannotFit(own []*corev1.Pod, shapes []*shape, weights []int, homeless []bool, limit float64, oneClaim bool) string {
	var total resources.Vector
	var lost []*shape
	count := 0
	for j, sh := range shapes {
		if !homeless[j] || sh.invalid {
			continue
		}
		if !s.fitsType(sh, limit) {
			if limit > 0 {
				return fmt.Sprintf("no replacement cheaper than $%.4f/h: pod %s fits neither on another node nor on a cheaper new one", limit, apis.PodKey(own[j]))
			}
			return fmt.Sprintf("pod %s would not schedule: it fits neither on another node nor on any instance type", apis.PodKey(own[j]))
		}
		total = total.Add(sh.requests.Scale(int64(weights[j])))
		lost = append(lost, sh)
		count += weights[j]
	}
	if !oneClaim || count < 2 || s.fitsTogether(lost, total, limit) {
		return ""
	}
	if limit > 0 {
		return fmt.Sprintf("no replacement cheaper than $%.4f/h: %d pods fit on no other node, and on no single cheaper new node together", limit, count)
	}
	return fmt.Sprintf("would need more than one new node: %d pods fit on no other node, and on no single new node together", count)
}

// fitsTogether reports whether one type below limit has room for total and
// suits every shape.
func (s *simulator) fitsTogether(shapes []*shape, total resources.Vector, limit float64) bool {
	for p, pr := range s.priced {
		if slices.ContainsFunc(shapes, func(sh *shape) bool { return !sh.class.suitsPool(pr, p, sh) }) {
			continue
		}
		for i, it := range pr.catalog {
			if (limit > 0 && pr.cheapest[i] >= limit) || !total.Fits(it.Allocatable()) {
				continue
			}
			if !slices.ContainsFunc(shapes, func(sh *shape) bool { return !sh.class.suitsType(pr, p, i, sh) }) {
				return true
			}
		}
	}
	return false
}

// suits reports whether the pool's requirements meet some form of the pod.
func (p priced) suits(sh *shape) bool {
	return slices.ContainsFunc(sh.forms, func(form requirements.Requirements) bool { return p.reqs.IntersectsFast(form) })
}

// suits reports whether the type's labels meet some form of the pod.
func suits(it *instancetypes.InstanceType, sh *shape) bool {
	return slices.ContainsFunc(sh.forms, func(form requirements.Requirements) bool { return it.Requirements.IntersectsFast(form) })
}

// hardTaints are the taints relaxation never tolerates: NoSchedule and
// NoExecute; none on an uninitialized node.
func hardTaints(initialized bool, taints []corev1.Taint) []corev1.Taint {
	if !initialized {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(taints), func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectPreferNoSchedule })
}

// priced is a NodePool's launchable catalog with each type's cheapest
// available offering the pool allows, for narrowing.
type priced struct {
	np       *apis.NodePool
	catalog  instancetypes.Catalog
	cheapest []float64
	// reqs are the pool's requirements, its own label included.
	reqs requirements.Requirements
	// index finds a type's place in catalog.
	index map[*instancetypes.InstanceType]int
}

func newPriced(p *poolInfo) priced {
	reqs := p.reqs.Add(requirements.In(apis.LabelNodePool, p.name))
	out := priced{np: p.np, catalog: launchable(p), reqs: reqs}
	out.index = make(map[*instancetypes.InstanceType]int, len(out.catalog))
	for i, it := range out.catalog {
		out.index[it] = i
		cheapest := 0.0
		if o, ok := it.CheapestOffering(reqs); ok {
			cheapest = o.Price
		}
		out.cheapest = append(out.cheapest, cheapest)
	}
	return out
}

// launchable narrows a NodePool's catalog to the types the solver would
// keep for it (compatible with its requirements, with an available offering
// in an allowed zone and capacity type). The solver sees the same options
// in the same order; the full catalog is kept when narrowing would change
// anything else it reads: the label keys it may leave undefined, or the
// count it reports when no type fits.
func launchable(p *poolInfo) instancetypes.Catalog {
	reqs := p.reqs.Add(requirements.In(apis.LabelNodePool, p.name))
	zones, capacityTypes := reqs.Get(apis.LabelTopologyZone), reqs.Get(apis.LabelCapacityType)
	var out instancetypes.Catalog
	for _, it := range p.catalog {
		if !it.Requirements.IntersectsFast(reqs) {
			continue
		}
		if slices.ContainsFunc(it.Offerings, func(o instancetypes.Offering) bool {
			return o.Available && zones.Has(o.Zone) && capacityTypes.Has(o.CapacityType)
		}) {
			out = append(out, it)
		}
	}
	if len(out) == 0 || !slices.Equal(out.LabelKeys(), p.catalog.LabelKeys()) {
		return p.catalog
	}
	return out
}
