package consolidation

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// simulationTaint keeps pods off a node in a simulation only. It marks
// nodes inside their consolidateAfter window, which pods of consolidation
// candidates may not move to (pending pods, pods of deleting nodes and pods
// of drifted nodes tolerate it: Karpenter enforces the rule in
// consolidation's simulations only, and exempts the first two even there),
// and the placeholder nodes that stand in for nodes left out of a
// simulation, which have nothing allocatable.
var simulationTaint = corev1.Taint{Key: "consolidation.karpsim.io/not-a-destination", Effect: corev1.TaintEffectNoSchedule}

// simulator runs Karpenter's SimulateScheduling: the candidates are
// removed, and their reschedulable pods, the pending pods and the pods of
// nodes already being deleted are placed on the remaining nodes or on new
// NodeClaims. What does not change between simulations is built once.
type simulator struct {
	base scheduling.Input
	// prepared is base's NodePools and DaemonSets compiled for every solve.
	prepared *scheduling.Prepared
	// priced are the base NodePools' catalogs with prices, same order.
	priced []priced
	dest   []*destination
	// byRoom are the indexes of dest, most free CPU first; fixed those
	// some pending or displaced pod might land on.
	byRoom, fixed []int
	// capacity is, per NodePool, the capacity of its destinations: what a
	// solve over every node but the candidates charges its limits.
	// Karpenter's simulation (SimulateScheduling) builds its scheduler over
	// the active nodes less the candidates, and the scheduler takes each
	// pool's remaining resources from its limits less those nodes'
	// capacity: neither the candidates nor the nodes being deleted count.
	capacity map[string]resources.Vector
	// pending are the pending pods, tolerating simulationTaint when some
	// node is inside its consolidateAfter window.
	pending []*corev1.Pod
	// displaced are the pods of deleting nodes that will need a place.
	displaced []*corev1.Pod
	// pdbs are the evaluation's PDBs by pod.
	pdbs pdbIndex
	// requests shares the nodes' pods' requests (nodeInfo.podRequests).
	requests resources.Interner
	// shapes are read once per pod: those of the nodes' pods are kept
	// with the node (movingPods), the others here.
	shapes map[*corev1.Pod]*shape
	byKey  map[string]*shape
	// classes are the shapes' constraint classes, by constraint key.
	classes map[string]*shapeClass
	// key is scratch space for shape keys.
	key []byte
	// placeholders are the placeholder nodes made so far, by pool and
	// capacity: a simulation passes the same *Node for the same capacity,
	// which the preparation then reads once.
	placeholders map[string]*scheduling.Node
	// kept marks, with the stamp stamp, the destinations a simulation
	// keeps (reachable).
	kept  []uint32
	stamp uint32
	// prune lets a simulation leave out nodes that cannot take any pod it
	// places; off when some pod has topology constraints, which count the
	// pods of every node.
	prune bool
	// uninitialized and window name the nodes moved pods may not land on.
	uninitialized, window map[string]bool
	// movable reports whether a pod of a node being disrupted is placed
	// again: not one that do-not-disrupt or a PDB allowing no disruption
	// will keep from being evicted, for which Karpenter launches nothing.
	// The pod is the node's, matching are the PDBs selecting it.
	movable func(n *nodeInfo, p *corev1.Pod, matching []*pdb) bool
	// exhaustive solves every simulation over every node and type.
	exhaustive bool
	// planner is Options.Planner: when set, it plans consolidation
	// simulations that need new nodes again (see planned).
	planner func(scheduling.Input) (scheduling.Result, error)
	// solves counts the simulations run, for benchmarks; idle counts the
	// solves over every type narrowingIdle found needless, for tests.
	solves, idle int
	// solveAgain is evaluation.solveAgain.
	solveAgain bool
	// leftOut remembers narrowingIdle's answers.
	leftOut map[leftOutKey]bool
	// credit, while set, is the reservation credit of a terminate-first
	// simulation (runCredited).
	credit map[string]int
}

// destination is a node pods may go to.
type destination struct {
	// index is the destination's place in simulator.dest.
	index int
	info  *nodeInfo
	node  *scheduling.Node
	// room is allocatable less every bound pod: at least what the solver
	// will find free.
	room     resources.Vector
	capacity resources.Vector
	// labels are the node's labels as requirements, read on first use
	// (nodeLabels): most destinations of a packed cluster have no room
	// for any pod and are never asked.
	labels     requirements.Requirements
	labelsRead bool
	hardTaints []corev1.Taint
}

// nodeLabels are the node's labels as requirements.
func (d *destination) nodeLabels() requirements.Requirements {
	if !d.labelsRead {
		d.labels, d.labelsRead = requirements.FromLabels(d.node.Labels), true
	}
	return d.labels
}

// movingPods are a node's reschedulable pods that are placed again when it
// is disrupted (simulator.movable), their shapes and keys (podKeys).
type movingPods struct {
	pods   []*corev1.Pod
	shapes []*shape
	keys   []string
}

func newSimulator(e *evaluation) *simulator {
	s := &simulator{
		uninitialized: map[string]bool{}, window: map[string]bool{},
		shapes: map[*corev1.Pod]*shape{}, byKey: map[string]*shape{},
		classes: map[string]*shapeClass{}, placeholders: map[string]*scheduling.Node{}, leftOut: map[leftOutKey]bool{},
		pdbs: e.pdbs, prune: !e.exhaustive, exhaustive: e.exhaustive, planner: e.opts.Planner, solveAgain: e.solveAgain,
		movable: func(n *nodeInfo, p *corev1.Pod, matching []*pdb) bool {
			if !n.noDoNotDisrupt {
				if ok, _ := apis.DoNotDisrupt(p, e.now); ok {
					return false
				}
			}
			return blockedBy(p, matching, true) == ""
		},
	}
	s.base = scheduling.Input{DaemonSets: e.daemons, Options: e.opts.Scheduling}
	// The NodePools and DaemonSets are the same in every simulation:
	// compiled once, or taken from the caller's cache.
	s.priced, s.prepared = e.opts.Cache.compiled(e)
	for _, pr := range s.priced {
		s.base.NodePools = append(s.base.NodePools, scheduling.Pool{NodePool: pr.np, InstanceTypes: pr.catalog})
	}
	// Every simulation passes the same *Node of a destination, unchanged.
	s.prepared.RememberNodes()
	for _, n := range e.nodes {
		if n.in.Node != nil {
			s.addNode(e, n)
		}
	}
	s.pending = e.cluster.Pending
	if len(s.window) > 0 {
		s.pending = withToleration(s.pending, simulationTaint)
		s.displaced = withToleration(s.displaced, simulationTaint)
	}
	// A pending pod no node and no type could take fails in every solve
	// and changes nothing else there: it is left out.
	s.pending = slices.DeleteFunc(slices.Clone(s.pending), func(p *corev1.Pod) bool {
		sh := s.shape(p)
		return !s.exhaustive && (sh.invalid || (!s.fitsType(sh, 0) && !slices.ContainsFunc(s.dest, func(d *destination) bool { return d.accepts(sh) })))
	})
	for _, p := range slices.Concat(s.pending, s.displaced, e.cluster.DaemonSets) {
		s.prune = s.prune && !hasTopology(p)
	}
	s.byRoom = make([]int, len(s.dest))
	for i := range s.byRoom {
		s.byRoom[i] = i
	}
	slices.SortStableFunc(s.byRoom, func(a, b int) int { return cmp.Compare(s.dest[b].room.CPU(), s.dest[a].room.CPU()) })
	s.capacity = map[string]resources.Vector{}
	fixed := slices.Concat(s.pending, s.displaced)
	for i, d := range s.dest {
		s.capacity[d.info.poolName] = s.capacity[d.info.poolName].Add(d.capacity)
		if slices.ContainsFunc(fixed, func(p *corev1.Pod) bool { return d.accepts(s.shape(p)) }) {
			s.fixed = append(s.fixed, i)
		}
	}
	return s
}

// addNode files one node: a deleting node gives its pods to every
// simulation (and, as in Karpenter, nothing to its pool's limits); any
// other is a destination.
func (s *simulator) addNode(e *evaluation, n *nodeInfo) {
	capacity := resources.FromList(n.in.Node.Capacity)
	if being := n.in.Deleting || (n.in.NodeClaim != nil && (n.in.NodeClaim.DeletionTimestamp != nil || terminating(n.in.NodeClaim))); being {
		pdbs := n.podPDBs(s.pdbs)
		for _, i := range n.reschedulableAt {
			if p := n.pods[i]; s.movable(n, p, pdbs[i]) {
				s.displaced = append(s.displaced, p)
			}
		}
		return
	}
	node := n.in.Node
	d := &destination{index: len(s.dest), info: n, node: node, capacity: capacity, room: resources.FromList(node.Allocatable)}
	for i, p := range n.pods {
		d.room = d.room.Sub(*n.podRequests(&s.requests)[i])
		s.prune = s.prune && !hasTopology(p)
	}
	switch {
	case !node.Initialized:
		s.uninitialized[n.name] = true
	case n.in.NodeClaim != nil && n.pool != nil && !n.pool.static() && !n.consolidationOff && n.windowLeft > 0:
		s.window[n.name] = true
		tainted := *node
		tainted.Taints = append(slices.Clone(node.Taints), simulationTaint)
		d.node = &tainted
	}
	d.hardTaints = hardTaints(node.Initialized, d.node.Taints)
	s.dest = append(s.dest, d)
	n.dest = d
}

// shape is the pod's shape, remembered for the pod.
func (s *simulator) shape(p *corev1.Pod) *shape {
	sh, ok := s.shapes[p]
	if !ok {
		sh = s.readShape(p)
		s.shapes[p] = sh
	}
	return sh
}

// readShape is the pod's shape, shared with every pod of the same requests
// and constraints.
func (s *simulator) readShape(p *corev1.Pod) *shape {
	r, _ := resources.PodRequests(p)
	return s.readShapeOf(p, r)
}

// readShapeOf is readShape for a pod whose requests are r.
func (s *simulator) readShapeOf(p *corev1.Pod, r resources.Vector) *shape {
	key := r.AppendKey(s.key[:0])
	split := len(key)
	key = appendConstraintKey(key, p)
	s.key = key
	sh, ok := s.byKey[string(key)]
	if ok {
		return sh
	}
	if class, ok := s.classes[string(key[split:])]; ok {
		// The constraints are the class's: so are the forms.
		sh = &shape{requests: r, forms: class.forms, tolerations: class.tolerations, invalid: len(class.forms) == 0, class: class}
	} else {
		sh = newShape(p, r)
		sh.class = &shapeClass{forms: sh.forms, tolerations: sh.tolerations}
		s.classes[string(key[split:])] = sh.class
	}
	s.byKey[string(key)] = sh
	return sh
}

// moving are the node's pods that a simulation removing it places again,
// read on first use.
func (s *simulator) moving(n *nodeInfo) *movingPods {
	if n.moving == nil {
		m := &movingPods{pods: make([]*corev1.Pod, 0, len(n.reschedulableAt)), shapes: make([]*shape, 0, len(n.reschedulableAt))}
		requests, pdbs := n.podRequests(&s.requests), n.podPDBs(s.pdbs)
		for _, i := range n.reschedulableAt {
			if p := n.pods[i]; s.movable(n, p, pdbs[i]) {
				m.pods = append(m.pods, p)
				m.shapes = append(m.shapes, s.readShapeOf(p, *requests[i]))
			}
		}
		n.moving = m
	}
	return n.moving
}

// podKeys are the keys of the moving pods, made on first need: most
// simulations of a packed cluster end before a solve.
func (m *movingPods) podKeys() []string {
	if m.keys == nil {
		m.keys = make([]string, len(m.pods))
		for i, p := range m.pods {
			m.keys[i] = apis.PodKey(p)
		}
	}
	return m.keys
}

// outcome is what a simulation says about removing some candidates.
type outcome struct {
	// failure says why the candidates cannot go: a pod that would not fit
	// anywhere, or that would land on a node it may not move to.
	failure string
	// claims are the new NodeClaims the pods need.
	claims []scheduling.NodeClaim
	// moves say where the candidates' pods go.
	moves []Move
	// narrowed is set when new nodes were limited to types below a price.
	narrowed bool
	// pendingFailed counts the pending pods that fit nowhere.
	pendingFailed int
	// planned is Options.Planner's outcome for the same simulation, when
	// it places every pod that must move on new nodes that cost less than
	// those of this one.
	planned *outcome
}

// run simulates removing the candidates. Nodes that none of the pods being
// placed could land on are left out: the solver would try them and place
// nothing there, since a node's room only shrinks during a solve. One
// untolerated placeholder per NodePool carries their capacity, so that
// NodePool limits count as in a solve over every node but the candidates.
// With a price limit, new nodes may only be of types whose cheapest
// offering is below it. With oneClaim, a simulation that could only succeed
// with several new nodes is answered without a solve (see cannotFit).
func (s *simulator) run(cands []*nodeInfo, limit float64, oneClaim bool) outcome {
	return s.simulate(cands, limit, oneClaim, true)
}

// runDrift simulates removing a drifted node: no price limit, and its pods
// may move to nodes inside their consolidateAfter window.
func (s *simulator) runDrift(n *nodeInfo) outcome {
	return s.simulate([]*nodeInfo{n}, 0, false, false)
}

// runCredited is runDrift with units given back to capacity reservations
// before the solve, in Karpenter's provisioning mode: terminate-first
// drift's second pass (see evaluation.terminateFirst).
func (s *simulator) runCredited(n *nodeInfo, credit map[string]int) outcome {
	s.credit = credit
	defer func() { s.credit = nil }()
	return s.simulate([]*nodeInfo{n}, 0, false, false)
}

// simulate is run, with consolidate saying whether the candidates' pods
// keep off nodes inside their consolidateAfter window. Pods of the
// candidates that will not be evicted are not placed.
func (s *simulator) simulate(cands []*nodeInfo, limit float64, oneClaim, consolidate bool) outcome {
	leaving := make(map[*nodeInfo]bool, len(cands))
	var own []*corev1.Pod
	var ownShapes []*shape
	for _, c := range cands {
		leaving[c] = true
		m := s.moving(c)
		if len(cands) == 1 {
			// Read only, or replaced below.
			own, ownShapes = m.pods, m.shapes
			break
		}
		own, ownShapes = append(own, m.pods...), append(ownShapes, m.shapes...)
	}
	if !consolidate && len(s.window) > 0 {
		own = withToleration(own, simulationTaint)
		ownShapes = make([]*shape, len(own))
		for i, p := range own {
			ownShapes[i] = s.shape(p)
		}
	}
	// Pods of one shape count once for reachability, and each for room.
	var shapes []*shape
	var weights []int
	var first []*corev1.Pod
	for i, p := range own {
		sh := ownShapes[i]
		if j := slices.Index(shapes, sh); j >= 0 {
			weights[j]++
			continue
		}
		shapes, weights, first = append(shapes, sh), append(weights, 1), append(first, p)
	}
	if s.exhaustive {
		limit = 0
	}
	kept, homeless := s.reachable(shapes, leaving)
	if why := s.cannotFit(first, shapes, weights, homeless, limit, oneClaim); why != "" && !s.exhaustive {
		return outcome{failure: why}
	}
	var ownKeys []string
	for _, c := range cands {
		if len(cands) == 1 {
			ownKeys = s.moving(c).podKeys()
			break
		}
		ownKeys = append(ownKeys, s.moving(c).podKeys()...)
	}
	in := s.base
	in.Pods = slices.Concat(s.pending, s.displaced, own)
	in.Nodes = make([]*scheduling.Node, 0, len(kept)+len(s.capacity))
	elsewhere := maps.Clone(s.capacity)
	for _, i := range kept {
		d := s.dest[i]
		in.Nodes = append(in.Nodes, d.node)
		if d.info.poolName != "" {
			elsewhere[d.info.poolName] = elsewhere[d.info.poolName].Sub(d.capacity)
		}
	}
	// The leaving destinations, in destination order.
	gone := make([]*destination, 0, len(cands))
	for _, c := range cands {
		if c.dest != nil && c.dest.info == c {
			gone = append(gone, c.dest)
		}
	}
	slices.SortFunc(gone, func(a, b *destination) int { return cmp.Compare(a.index, b.index) })
	for _, d := range slices.Compact(gone) {
		if d.info.poolName != "" {
			elsewhere[d.info.poolName] = elsewhere[d.info.poolName].Sub(d.capacity)
		}
	}
	for _, pool := range sortedKeys(elsewhere) {
		if pool != "" && !elsewhere[pool].IsZero() {
			in.Nodes = append(in.Nodes, s.placeholder(pool, elsewhere[pool]))
		}
	}
	s.solves++
	var result scheduling.Result
	narrowed := false
	if s.credit != nil {
		// Karpenter's provisioning mode with the credit: rare enough to
		// solve without the compiled pools, which hold neither.
		in.NodePools = s.poolsBelow(0)
		in.Options.ReservationCredit, in.Options.ReservedFallback = s.credit, false
		result = scheduling.Solve(in)
	} else {
		result, narrowed = s.prepared.SolveBelow(in, limit)
	}
	if !narrowed {
		limit = 0
	}
	out := s.interpret(result, ownKeys, limit, consolidate)
	out.narrowed = narrowed
	if consolidate && out.failure == "" && len(out.claims) > 0 {
		out.planned = s.planned(in, out, ownKeys, limit)
	}
	return out
}

// planned is the planner's outcome for a simulation whose solve, karpenter,
// needed new nodes: the same pods and nodes, with the NodePools cut to the
// types whose cheapest offering the pool allows is below limit (no other
// type can be part of a cheaper replacement). It is nil without a planner,
// when the planner fails, leaves a pod that must move or more pending pods
// without a place (a plan that leaves a CapacityBuffer's virtual pod out
// would consolidate its room away, for provisioning to launch again), or
// finds no new nodes cheaper than karpenter's.
func (s *simulator) planned(in scheduling.Input, karpenter outcome, own []string, limit float64) *outcome {
	if s.planner == nil {
		return nil
	}
	in.NodePools = s.poolsBelow(limit)
	r, err := s.planner(in)
	if err != nil {
		return nil
	}
	out := s.interpret(r, own, limit, true)
	if out.failure != "" || out.pendingFailed > karpenter.pendingFailed || claimsPrice(out.claims) >= claimsPrice(karpenter.claims)*(1-1e-9) {
		return nil
	}
	return &out
}

// poolsBelow are the simulations' NodePools with only the types whose
// cheapest offering the pool allows costs less than limit; as in
// scheduling.Prepared.SolveBelow, a pool keeps every type when none would
// be left, and every pool does when limit is 0.
func (s *simulator) poolsBelow(limit float64) []scheduling.Pool {
	out := make([]scheduling.Pool, len(s.priced))
	for p, pr := range s.priced {
		catalog := pr.catalog
		if limit > 0 {
			catalog = make(instancetypes.Catalog, 0, len(pr.catalog))
			for i, it := range pr.catalog {
				if pr.cheapest[i] < limit {
					catalog = append(catalog, it)
				}
			}
			if len(catalog) == 0 {
				catalog = pr.catalog
			}
		}
		out[p] = scheduling.Pool{NodePool: pr.np, InstanceTypes: catalog}
	}
	return out
}

// claimsPrice is what the claims cost an hour at their launch prices.
func claimsPrice(claims []scheduling.NodeClaim) float64 {
	total := 0.0
	for _, c := range claims {
		total += c.PricePerHour
	}
	return total
}

// reachable works out which destinations to keep in a solve — those some
// pod being placed might land on, the pods of deleting nodes and pending
// pods included; every one but the leaving when pruning is off — in
// destination order, and which of the candidates' pods could land on no
// remaining node at all. Only the nodes with at least the smallest CPU
// request free are checked, so a packed cluster costs little.
func (s *simulator) reachable(shapes []*shape, leaving map[*nodeInfo]bool) (kept []int, homeless []bool) {
	homeless = make([]bool, len(shapes))
	for j := range shapes {
		homeless[j] = true
	}
	// A destination is kept when s.kept holds this simulation's stamp.
	if s.kept == nil {
		s.kept = make([]uint32, len(s.dest))
	}
	s.stamp++
	var marked []int
	keep := func(i int) {
		if s.kept[i] != s.stamp {
			s.kept[i] = s.stamp
			marked = append(marked, i)
		}
	}
	for _, i := range s.fixed {
		keep(i)
	}
	// Each shape looks at the destinations its class admits with the CPU
	// free for it: d.accepts, less the checks the list has made.
	for j, sh := range shapes {
		if sh.invalid {
			continue
		}
		cpu := sh.requests.CPU()
		for _, i := range s.admitting(sh.class, cpu) {
			d := s.dest[i]
			if d.room.CPU() < cpu {
				break
			}
			if (homeless[j] || s.kept[i] != s.stamp) && sh.requests.Fits(d.room) && !leaving[d.info] {
				keep(i)
				homeless[j] = false
			}
		}
	}
	if !s.prune {
		for i, d := range s.dest {
			if !leaving[d.info] {
				kept = append(kept, i)
			}
		}
		return kept, homeless
	}
	for _, i := range marked {
		if !leaving[s.dest[i].info] {
			kept = append(kept, i)
		}
	}
	slices.Sort(kept)
	return kept, homeless
}

// admitting returns the destinations the class admits, most free CPU
// first, at least all of those with cpu free: the class reads byRoom down
// to there on first need, and each destination once. A destination's room
// and what it admits do not change during an evaluation.
func (s *simulator) admitting(c *shapeClass, cpu int64) []int {
	for c.scanned < len(s.byRoom) {
		d := s.dest[s.byRoom[c.scanned]]
		if d.room.CPU() < cpu {
			break
		}
		c.scanned++
		if d.admitsClass(c) {
			c.byRoom = append(c.byRoom, d.index)
		}
	}
	return c.byRoom
}

// placeholder is a node no pod can use that carries capacity for a
// NodePool's limits; the same *Node for the same pool and capacity.
func (s *simulator) placeholder(pool string, capacity resources.Vector) *scheduling.Node {
	key := capacity.AppendKey(append(append(s.key[:0], pool...), '|'))
	s.key = key
	n, ok := s.placeholders[string(key)]
	if !ok {
		n = &scheduling.Node{Name: "consolidation.karpsim.io/elsewhere-" + pool, NodePool: pool, Capacity: capacity.List(),
			Taints: []corev1.Taint{simulationTaint}, Initialized: true}
		s.placeholders[string(key)] = n
	}
	return n
}

// interpret reads a solve: every pod of the candidates (own names them)
// and of deleting nodes must be placed, none on a node it may not move
// to; the candidates' pods' places are the moves.
func (s *simulator) interpret(r scheduling.Result, own []string, limit float64, consolidate bool) outcome {
	// One map for both: a pod that moves is a deleting node's or one of
	// the candidates' (ownKeys).
	kind := make(map[string]int8, len(own)+len(s.displaced))
	for _, p := range s.displaced {
		kind[apis.PodKey(p)] = 1
	}
	for _, key := range own {
		kind[key] = 2
	}
	moving := func(key string) bool { return kind[key] != 0 }
	ownKeys := func(key string) bool { return kind[key] == 2 }
	var out outcome
	var failed []scheduling.Unschedulable
	for _, u := range r.Unschedulable {
		if moving(u.Pod) {
			failed = append(failed, u)
		} else {
			out.pendingFailed++
		}
	}
	if len(failed) > 0 {
		more := ""
		if len(failed) > 1 {
			more = fmt.Sprintf(" (and %d more pods)", len(failed)-1)
		}
		out.failure = fmt.Sprintf("pod %s would not schedule: %s%s", failed[0].Pod, failed[0].Reason, more)
		if limit > 0 {
			// The solve only offered types below the limit.
			out.failure = fmt.Sprintf("no replacement cheaper than $%.4f/h: pod %s fits neither on another node nor on a cheaper new one: %s%s",
				limit, failed[0].Pod, failed[0].Reason, more)
		}
		return out
	}
	for _, b := range r.Bindings {
		switch {
		case ownKeys(b.Pod) && s.uninitialized[b.Node]:
			// Only the candidates' pods: those of deleting nodes may
			// wait for a node that is coming up, as Karpenter assumes
			// the replacement of an earlier command will.
			out.failure = fmt.Sprintf("pod %s would schedule against uninitialized node %s", b.Pod, b.Node)
			return out
		case consolidate && ownKeys(b.Pod) && s.window[b.Node]:
			out.failure = fmt.Sprintf("pod %s would move to node %s, which is inside its consolidateAfter window", b.Pod, b.Node)
			return out
		case ownKeys(b.Pod):
			out.moves = append(out.moves, Move{Pod: b.Pod, To: b.Node})
		}
	}
	for _, c := range r.NodeClaims {
		for _, p := range c.Pods {
			if ownKeys(p) {
				out.moves = append(out.moves, Move{Pod: p, To: c.Name})
			}
		}
	}
	slices.SortFunc(out.moves, func(a, b Move) int { return cmp.Compare(a.Pod, b.Pod) })
	out.claims = r.NodeClaims
	return out
}

// withToleration returns copies of the pods that also tolerate the taint.
func withToleration(pods []*corev1.Pod, taint corev1.Taint) []*corev1.Pod {
	out := make([]*corev1.Pod, len(pods))
	for i, p := range pods {
		c := *p
		c.Spec.Tolerations = append(slices.Clone(p.Spec.Tolerations), corev1.Toleration{Key: taint.Key, Operator: corev1.TolerationOpExists, Effect: taint.Effect})
		out[i] = &c
	}
	return out
}

// hasTopology reports constraints that count other pods: topology spread,
// pod affinity or anti-affinity.
func hasTopology(p *corev1.Pod) bool {
	a := p.Spec.Affinity
	return len(p.Spec.TopologySpreadConstraints) > 0 || (a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
