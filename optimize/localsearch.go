package optimize

import (
	"cmp"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// The local search improves a plan one neighbourhood at a time: it takes
// a few of the plan's NodeClaims away and solves their pods again with
// scheduling's own solver, every other NodeClaim standing as a node that
// takes no more pods, so that the pods see the rest of the plan (its
// zones, hostnames and pods, for topology, anti-affinity and limits) as
// they would in one solve. A neighbourhood of one claim re-chooses its
// type or splits it; of two, merges them into one cheaper type or moves
// pods between them. The new claims replace the old when they place
// every pod for less. Every plan it returns is therefore made of
// scheduling's own claims: no rule is checked here a second time.

// fixedSuffix names the node a NodeClaim stands as in a neighbourhood's
// solve: no new claim's name ("<pool>-<n>") ends with it.
const fixedSuffix = ".fixed"

// localSearch is the state of one search over a plan.
type localSearch struct {
	in    scheduling.Input
	pods  map[podName]*corev1.Pod
	pools map[string]scheduling.Pool
	// types are, by pool and name, the claims' instance types' indices
	// (see typeIndex), and typeRate reads them for podFloor (see
	// readRates).
	types    map[typeName]int
	typeRate map[string][]typeRate
	// claims are the plan's NodeClaims, and fixed the node each stands
	// as (kept by pointer, which the Prepared remembers nodes by; see
	// fixedNode).
	// floor is, per claim, what its pods could cost at the least (see
	// podFloor): the claim's price above it is what the search may
	// recover by solving it again.
	claims []scheduling.NodeClaim
	fixed  []*scheduling.Node
	floor  []float64
	// shapes name, per claim, its NodePool, launch and pods' requests,
	// by index in shapeIndex: claims of one shape mostly fare alike in a
	// neighbourhood.
	shapes     []int
	shapeIndex map[string]int
	// rates caches podFloor by pool and requests; requests, each pod's
	// requests and their text, read once.
	rates    map[rateKey]float64
	requests map[*corev1.Pod]podRequests
	// model, when set, is a model of the input, whose groups' pods ask
	// for the same: their requests are read once per group, in
	// groupRequests (read says which are).
	model         *model
	groupRequests []podRequests
	groupRead     []bool
	// existing are the input's nodes with the pods the plan binds to
	// them, bindings those bindings, by node name.
	existing []*scheduling.Node
	bindings []scheduling.Binding
	warnings map[string]bool
	// pinned are the pods whose move could break another pod's rule
	// (see pinnedPods), by key.
	pinned map[string]bool
	// solves and work are what the search may still spend: solves of
	// neighbourhoods, and work, each solve's pods to place and the nodes
	// it reads (the rest of the plan's claims).
	solves, work int
	// failed are the neighbourhoods solved in vain, by key (see
	// neighbourhoodKey), which a later pass does not solve again.
	failed map[string]bool
	// apart is set when the claims outside a neighbourhood cannot change
	// how its pods are placed (see standApart); limited are the NodePools
	// with limits, which those claims still count against.
	apart   bool
	limited map[string]bool
}

// solver is one way to solve a neighbourhood again: the input's
// NodePools, or some narrowed, compiled once, with a packing; and the
// model of the input with those NodePools, when built (see
// cannotImprove).
type solver struct {
	prep    *scheduling.Prepared
	packing scheduling.Packing
	model   *model
}

// improve runs the local search over the plan r of the input, spending
// at most maxSolves neighbourhood solves and maxWork work (pods to place
// and claims read, summed over the solves), and
// returns the plan it ends with (r when nothing improved) and whether it
// improved. The budget counts work, not time: the same input always
// gives the same plan.
func improve(in scheduling.Input, r scheduling.Result, solvers []solver, maxSolves, maxWork int) (scheduling.Result, bool) {
	// Any model of the input has its pods' requests.
	var m *model
	if len(solvers) > 0 {
		m = solvers[0].model
	}
	ls, ok := newLocalSearch(in, r, m)
	if !ok {
		return r, false
	}
	ls.solves, ls.work = maxSolves, maxWork
	improved := false
	for ls.solves > 0 && ls.work > 0 {
		if !ls.pass(solvers) {
			break
		}
		improved = true
	}
	if !improved {
		return r, false
	}
	return ls.result(r), true
}

// newLocalSearch reads the plan; it returns false when the search cannot
// work on it: an instance type it cannot find, or capacity reservations,
// which a claim standing as a node would not hold.
func newLocalSearch(in scheduling.Input, r scheduling.Result, m *model) (*localSearch, bool) {
	return newLocalSearchApart(in, r, m, standApart(in))
}

// newLocalSearchApart is newLocalSearch told whether the claims stand
// apart from the neighbourhoods' pods (standApart).
func newLocalSearchApart(in scheduling.Input, r scheduling.Result, m *model, apart bool) (*localSearch, bool) {
	ls := &localSearch{apart: apart, in: in, pods: make(map[podName]*corev1.Pod, len(in.Pods)), pools: map[string]scheduling.Pool{}, failed: map[string]bool{}, rates: map[rateKey]float64{}, requests: map[*corev1.Pod]podRequests{},
		claims: slices.Clone(r.NodeClaims), bindings: slices.Clone(r.Bindings), warnings: map[string]bool{}, shapeIndex: map[string]int{}, model: m, types: map[typeName]int{}, typeRate: map[string][]typeRate{}}
	if m != nil {
		ls.groupRequests, ls.groupRead = make([]podRequests, len(m.groups)), make([]bool, len(m.groups))
	}
	for _, p := range in.Pods {
		if p != nil {
			ls.pods[podName{apis.NamespaceOf(p.Namespace), p.Name}] = p
		}
	}
	ls.limited = map[string]bool{}
	for _, np := range in.NodePools {
		if np.NodePool == nil {
			continue
		}
		ls.pools[np.NodePool.Name] = np
		if len(np.NodePool.Spec.Limits) > 0 {
			ls.limited[np.NodePool.Name] = true
		}
		rates, reserved := readRates(np.InstanceTypes)
		if reserved {
			return nil, false
		}
		ls.typeRate[np.NodePool.Name] = rates
	}
	for _, w := range r.Warnings {
		ls.warnings[w] = true
	}
	for _, c := range ls.claims {
		n, floor, ok := ls.fixedNode(c)
		if !ok {
			return nil, false
		}
		ls.fixed, ls.floor, ls.shapes = append(ls.fixed, n), append(ls.floor, floor), append(ls.shapes, ls.claimShape(c, n))
	}
	bound := map[string][]*corev1.Pod{}
	for _, b := range r.Bindings {
		p, ok := ls.pod(b.Pod)
		if !ok {
			return nil, false
		}
		bound[b.Node] = append(bound[b.Node], p)
	}
	for _, n := range in.Nodes {
		if n != nil {
			ls.existing = append(ls.existing, withPods(n, bound[n.Name]))
		}
	}
	ls.pinned = pinnedPods(in)
	return ls, true
}

// podName is a pod's namespace (defaulted) and name: its key
// (apis.PodKey) without the string built.
type podName struct{ namespace, name string }

// pod is the input's pod of the key.
func (ls *localSearch) pod(key string) (*corev1.Pod, bool) {
	namespace, name, _ := strings.Cut(key, "/")
	p, ok := ls.pods[podName{namespace, name}]
	return p, ok
}

// withPods is the node with the pods bound to it as well, a new *Node
// (the input's is not changed), or n itself when there are none.
func withPods(n *scheduling.Node, pods []*corev1.Pod) *scheduling.Node {
	if len(pods) == 0 {
		return n
	}
	copied := *n
	copied.Pods = slices.Concat(n.Pods, pods)
	return &copied
}

// fixedNode is the node the claim stands as in a neighbourhood's solve:
// launched as the plan launches it, with its pods bound, and room for no
// other pod (its allocatable pod count is the pods it holds), or only
// its name and pods when it never stands (see stands); and what its pods
// could cost at the least (podFloor).
func (ls *localSearch) fixedNode(c scheduling.NodeClaim) (*scheduling.Node, float64, bool) {
	pool, ok := ls.pools[c.NodePool]
	if !ok {
		return nil, 0, false
	}
	i, ok := ls.typeIndex(pool, c.InstanceType)
	if !ok {
		return nil, 0, false
	}
	n := &scheduling.Node{Name: c.Name + fixedSuffix, NodePool: c.NodePool, Pods: make([]*corev1.Pod, 0, len(c.Pods))}
	floor := 0.0
	// Pods placed one after another mostly ask for the same: the last
	// one's floor is read again without a look-up.
	var last podRequests
	lastFloor := 0.0
	for _, key := range c.Pods {
		p, ok := ls.pod(key)
		if !ok {
			return nil, 0, false
		}
		n.Pods = append(n.Pods, p)
		if r := ls.requestsOf(p); len(n.Pods) == 1 || r.text != last.text {
			last, lastFloor = r, ls.podFloor(pool, p)
		}
		floor += lastFloor
	}
	// A node that never stands in a solve is its name and pods only.
	if ls.stands(n) {
		it := pool.InstanceTypes[i]
		n.Labels = c.LaunchLabels(it, pool.NodePool)
		n.Labels[apis.LabelHostname] = n.Name
		n.Taints, n.StartupTaints = pool.NodePool.Spec.Template.Spec.Taints, pool.NodePool.Spec.Template.Spec.StartupTaints
		n.Capacity = it.Capacity.List()
		n.Allocatable = it.Allocatable().With(corev1.ResourcePods, int64(len(n.Pods))).List()
	}
	return n, floor, true
}

// typeName is an instance type's name in a pool.
type typeName struct{ pool, name string }

// typeIndex is the index of the pool's first instance type of the name,
// found once per pool and name: a plan launches few of a pool's types.
func (ls *localSearch) typeIndex(pool scheduling.Pool, name string) (int, bool) {
	key := typeName{pool.NodePool.Name, name}
	if i, ok := ls.types[key]; ok {
		return i, i >= 0
	}
	i := slices.IndexFunc(pool.InstanceTypes, func(it *instancetypes.InstanceType) bool { return it != nil && it.Name == name })
	ls.types[key] = i
	return i, i >= 0
}

// rateKey is a pod's requests in a pool.
type rateKey struct {
	pool     string
	requests string
}

// podFloor is what a pod could cost at the least in the pool: over the
// pool's types, the cheapest available offering times the largest share
// of the type's allocatable the pod asks for. It leaves out the pod's
// requirements and DaemonSets, so it is never above what any plan pays
// for the pod's share of its node.
func (ls *localSearch) podFloor(pool scheduling.Pool, p *corev1.Pod) float64 {
	r := ls.requestsOf(p)
	requests := r.vector
	key := rateKey{pool.NodePool.Name, r.text}
	if rate, ok := ls.rates[key]; ok {
		return rate
	}
	rate := math.Inf(1)
	for _, t := range ls.typeRate[pool.NodePool.Name] {
		share := 0.0
		for i, slot := range floorSlots {
			if r := t.room[i]; r > 0 {
				share = max(share, float64(requests.Slot(slot))/float64(r))
			}
		}
		rate = min(rate, t.price*share)
	}
	if math.IsInf(rate, 1) {
		rate = 0
	}
	ls.rates[key] = rate
	return rate
}

// floorSlots are the resources podFloor reads.
var floorSlots = [...]int{resources.SlotCPU, resources.SlotMemory, resources.SlotPods}

// typeRate is what podFloor reads of an instance type: its cheapest
// available offering's price and its allocatable floorSlots.
type typeRate struct {
	price float64
	room  [len(floorSlots)]int64
}

// readRates reads a pool's types as podFloor reads them, and whether
// one has a capacity reservation's offering (then the rates are not all
// read).
func readRates(types instancetypes.Catalog) ([]typeRate, bool) {
	rates := make([]typeRate, 0, len(types))
	for _, it := range types {
		if it == nil {
			continue
		}
		t := typeRate{price: math.Inf(1)}
		// Offerings are read in place: an offering is large.
		for i := range it.Offerings {
			o := &it.Offerings[i]
			if o.CapacityType == apis.CapacityTypeReserved {
				return nil, true
			}
			if o.Available {
				t.price = min(t.price, o.Price)
			}
		}
		room := it.Allocatable()
		for i, slot := range floorSlots {
			t.room[i] = room.Slot(slot)
		}
		rates = append(rates, t)
	}
	return rates, false
}

// pass tries the neighbourhoods of the plan in order until one improves
// it; it reports whether one did.
func (ls *localSearch) pass(solvers []solver) bool {
	for _, members := range ls.neighbourhoods() {
		key := ls.neighbourhoodKey(members)
		if ls.failed[key] {
			continue
		}
		for _, s := range solvers {
			if ls.solves <= 0 || ls.work <= 0 {
				return false
			}
			if ls.try(members, s) {
				return true
			}
		}
		ls.failed[key] = true
	}
	return false
}

// neighbourhoodKey names the member claims' shapes: a neighbourhood
// like one solved in vain, of the same claims or others of their shapes
// (a uniform workload's many full claims), is not solved again.
func (ls *localSearch) neighbourhoodKey(members []int) string {
	b := make([]byte, 0, 8*len(members))
	for _, i := range members {
		b = strconv.AppendInt(b, int64(ls.shapes[i]), 10)
		b = append(b, ';')
	}
	return string(b)
}

// podRequests are a pod's requests and their text, an exact key
// (Vector.AppendKey).
type podRequests struct {
	vector resources.Vector
	text   string
}

// requestsOf reads the pod's requests, once per pod.
func (ls *localSearch) requestsOf(p *corev1.Pod) podRequests {
	if ls.model != nil {
		if gi, ok := ls.model.groupOf[p]; ok {
			if !ls.groupRead[gi] {
				v, _ := resources.PodRequests(p)
				ls.groupRequests[gi], ls.groupRead[gi] = podRequests{vector: v, text: string(v.AppendKey(nil))}, true
			}
			return ls.groupRequests[gi]
		}
	}
	if r, ok := ls.requests[p]; ok {
		return r
	}
	// An unreadable request was refused by the solve that placed the pod.
	v, _ := resources.PodRequests(p)
	r := podRequests{vector: v, text: string(v.AppendKey(nil))}
	ls.requests[p] = r
	return r
}

// claimShape names the claim's NodePool, launch and its pods' requests,
// by index in ls.shapeIndex.
func (ls *localSearch) claimShape(c scheduling.NodeClaim, n *scheduling.Node) int {
	// The requests are counted, each text with how many pods ask for
	// it: a claim's pods mostly ask for few.
	type counted struct {
		text string
		n    int
	}
	var requests []counted
	for _, p := range n.Pods {
		text := ls.requestsOf(p).text
		k := len(requests) - 1
		if k < 0 || requests[k].text != text {
			k = slices.IndexFunc(requests, func(r counted) bool { return r.text == text })
		}
		if k < 0 {
			requests = append(requests, counted{text, 0})
			k = len(requests) - 1
		}
		requests[k].n++
	}
	slices.SortFunc(requests, func(a, b counted) int { return strings.Compare(a.text, b.text) })
	// The name is the NodePool, launch and each request's text with its
	// count ("<text>*<n>", texts holding neither '*' nor ' '), built
	// without fmt.
	name := make([]byte, 0, 64+len(requests)*32)
	name = append(append(append(append(name, c.NodePool...), c.InstanceType...), c.Zone...), c.CapacityType...)
	name = append(name, '[')
	for k, r := range requests {
		if k > 0 {
			name = append(name, ' ')
		}
		name = append(name, r.text...)
		name = append(name, '*')
		name = strconv.AppendInt(name, int64(r.n), 10)
	}
	name = append(name, ']')
	i, ok := ls.shapeIndex[string(name)]
	if !ok {
		i = len(ls.shapeIndex)
		ls.shapeIndex[string(name)] = i
	}
	return i
}

// neighbourhoods lists the sets of claims to solve again, by index, in
// the order they are tried: each claim alone, then pairs from one
// NodePool, of the claims that pay most above their pods' floor per pod
// (what a solve of the claim may recover for the work of placing its
// pods), most first. A set that pays less than minGain of its price above
// its floor is left out (it cannot improve by more), as are claims
// holding a pinned pod.
func (ls *localSearch) neighbourhoods() [][]int {
	type ranked struct {
		index int
		gain  float64
	}
	var order []ranked
	for i, c := range ls.claims {
		if slices.ContainsFunc(c.Pods, func(k string) bool { return ls.pinned[k] }) {
			continue
		}
		order = append(order, ranked{i, c.PricePerHour - ls.floor[i]})
	}
	slices.SortStableFunc(order, func(a, b ranked) int {
		ga, gb := a.gain/float64(len(ls.claims[a.index].Pods)), b.gain/float64(len(ls.claims[b.index].Pods))
		return cmp.Or(cmp.Compare(gb, ga), cmp.Compare(a.index, b.index))
	})
	var out [][]int
	for _, r := range order {
		if r.gain > minGain*ls.claims[r.index].PricePerHour {
			out = append(out, []int{r.index})
		}
	}
	const pairsOf = 6
	top := order[:min(len(order), pairsOf)]
	for a := range top {
		for b := a + 1; b < len(top); b++ {
			i, j := top[a].index, top[b].index
			if ls.claims[i].NodePool == ls.claims[j].NodePool && top[a].gain+top[b].gain > minGain*(ls.claims[i].PricePerHour+ls.claims[j].PricePerHour) {
				out = append(out, []int{i, j})
			}
		}
	}
	return out
}

// minGain is the least share of its price a neighbourhood must pay above
// its pods' floor to be solved again.
const minGain = 0.1

// try solves the pods of the member claims again with the packing, the
// other claims standing as full nodes, and takes the new claims when
// they place every pod and cost less. It reports whether it did.
func (ls *localSearch) try(members []int, s solver) bool {
	old, pods := 0.0, 0
	for _, i := range members {
		old += ls.claims[i].PricePerHour
		pods += len(ls.fixed[i].Pods)
	}
	ls.solves--
	ls.work -= pods + len(ls.claims)
	// A solve that cannot place the pods for less than old is not run:
	// it would fail.
	if ls.cannotImprove(members, s, old) {
		return false
	}
	r := ls.solve(members, s, old)
	if r.Summary.UnschedulablePods > 0 || PlanPerHour(r) >= old*(1-1e-9) {
		return false
	}
	// A solve that warns of something the plan did not is not taken:
	// the plan's warnings must still tell the whole story.
	if slices.ContainsFunc(r.Warnings, func(w string) bool { return !ls.warnings[w] }) {
		return false
	}
	fixed := map[string]bool{}
	for _, n := range ls.fixed {
		fixed[n.Name] = true
	}
	if slices.ContainsFunc(r.Bindings, func(b scheduling.Binding) bool { return fixed[b.Node] }) {
		return false
	}
	for _, c := range r.NodeClaims {
		if _, _, ok := ls.fixedNode(c); !ok {
			return false
		}
	}
	ls.accept(members, r)
	return true
}

// solve solves the pods of the member claims again with the packing,
// the other claims standing as full nodes, given up above old.
func (ls *localSearch) solve(members []int, s solver, old float64) scheduling.Result {
	sub := ls.in
	sub.Pods, sub.Nodes = nil, slices.Clone(ls.existing)
	for _, i := range members {
		sub.Pods = append(sub.Pods, ls.fixed[i].Pods...)
	}
	for i, n := range ls.fixed {
		if !slices.Contains(members, i) && ls.stands(n) {
			sub.Nodes = append(sub.Nodes, n)
		}
	}
	opts := ls.in.Options
	opts.Packing, opts.StopAbovePrice = s.packing, old
	// No type dearer than the claims it would replace can be part of a
	// cheaper plan for their pods: only the others are offered.
	r, _ := s.prep.WithOptions(opts).SolveBelow(sub, old)
	return r
}

// stands reports whether the claim's node stands in a neighbourhood's
// solve: always, unless the claims stand apart from the neighbourhood's
// pods, when only those of NodePools with limits do, counting against
// them. A node that stands takes no pod (its pod count is full), so one
// that counts for nothing else changes nothing of the solve but its
// cost: reading the node and its pods.
func (ls *localSearch) stands(n *scheduling.Node) bool {
	return !ls.apart || ls.limited[n.NodePool]
}

// standApart reports whether a neighbourhood's pods are placed the same
// with or without the rest of the plan's claims standing as full nodes
// beside them: no pod, to place or bound, has a rule that counts other
// pods or their nodes (pod affinity or anti-affinity, a spread
// constraint, or a default spread constraint it would get), nor shares a
// volume claim or device with another. Only NodePool limits still read
// those nodes (see stands).
func standApart(in scheduling.Input) bool {
	if d := in.Options.DefaultSpread; d != nil && len(d.Constraints) > 0 || in.Options.Devices != nil {
		return false
	}
	apart := func(p *corev1.Pod) bool {
		if p == nil {
			return true
		}
		if a := p.Spec.Affinity; a != nil && (a.PodAffinity != nil || a.PodAntiAffinity != nil) {
			return false
		}
		if len(p.Spec.TopologySpreadConstraints) > 0 || len(p.Spec.ResourceClaims) > 0 {
			return false
		}
		return !slices.ContainsFunc(p.Spec.Volumes, func(v corev1.Volume) bool { return v.PersistentVolumeClaim != nil || v.Ephemeral != nil })
	}
	for _, n := range in.Nodes {
		if n != nil && !allOf(n.Pods, apart) {
			return false
		}
	}
	return allOf(in.Pods, apart)
}

func allOf(pods []*corev1.Pod, ok func(*corev1.Pod) bool) bool {
	return !slices.ContainsFunc(pods, func(p *corev1.Pod) bool { return !ok(p) })
}

// accept replaces the member claims with the new ones, named after the
// claims they replace (then after the pool's last), and binds the pods
// the solve bound to existing nodes.
func (ls *localSearch) accept(members []int, r scheduling.Result) {
	freed := map[string][]int{}
	last := map[string]int{}
	for i, c := range ls.claims {
		n := claimNumber(c)
		last[c.NodePool] = max(last[c.NodePool], n)
		if slices.Contains(members, i) {
			freed[c.NodePool] = append(freed[c.NodePool], n)
		}
	}
	var claims []scheduling.NodeClaim
	var fixed []*scheduling.Node
	var floor []float64
	var shapes []int
	for i := range ls.claims {
		if !slices.Contains(members, i) {
			claims, fixed, floor, shapes = append(claims, ls.claims[i]), append(fixed, ls.fixed[i]), append(floor, ls.floor[i]), append(shapes, ls.shapes[i])
		}
	}
	for _, c := range r.NodeClaims {
		var n int
		if f := freed[c.NodePool]; len(f) > 0 {
			slices.Sort(f)
			n, freed[c.NodePool] = f[0], f[1:]
		} else {
			last[c.NodePool]++
			n = last[c.NodePool]
		}
		c.Name = c.NodePool + "-" + strconv.Itoa(n)
		node, f, _ := ls.fixedNode(c)
		claims, fixed, floor, shapes = append(claims, c), append(fixed, node), append(floor, f), append(shapes, ls.claimShape(c, node))
	}
	ls.claims, ls.fixed, ls.floor, ls.shapes = claims, fixed, floor, shapes
	if len(r.Bindings) == 0 {
		return
	}
	bound := map[string][]*corev1.Pod{}
	for _, b := range r.Bindings {
		p, _ := ls.pod(b.Pod)
		bound[b.Node] = append(bound[b.Node], p)
		ls.bindings = append(ls.bindings, b)
	}
	for i, n := range ls.existing {
		ls.existing[i] = withPods(n, bound[n.Name])
	}
}

// claimNumber is the n of a claim named "<pool>-<n>", 0 for another name.
func claimNumber(c scheduling.NodeClaim) int {
	n, err := strconv.Atoi(strings.TrimPrefix(c.Name, c.NodePool+"-"))
	if err != nil {
		return 0
	}
	return n
}

// result is the plan the search ends with: r's pods refused as before,
// its claims in scheduling's order (by NodePool, then number), its
// bindings sorted by pod, and the summary counted again.
func (ls *localSearch) result(r scheduling.Result) scheduling.Result {
	out := r
	out.NodeClaims = slices.Clone(ls.claims)
	slices.SortFunc(out.NodeClaims, func(a, b scheduling.NodeClaim) int {
		return cmp.Or(cmp.Compare(a.NodePool, b.NodePool), cmp.Compare(claimNumber(a), claimNumber(b)), cmp.Compare(a.Name, b.Name))
	})
	out.Bindings = slices.Clone(ls.bindings)
	slices.SortFunc(out.Bindings, func(a, b scheduling.Binding) int { return cmp.Compare(a.Pod, b.Pod) })
	out.Summary.NodeClaims = len(out.NodeClaims)
	out.Summary.PricePerHour = 0
	for _, c := range out.NodeClaims {
		out.Summary.PricePerHour += c.PricePerHour
	}
	out.Summary.PricePerHour = math.Round(out.Summary.PricePerHour*1e6) / 1e6
	return out
}

// pinnedPods are the pods, by key, whose move the search cannot weigh: a
// neighbourhood's solve holds the pods it places to their own rules, as
// every solve does, but not the other pods' rules that count them. A pod
// is pinned when a required pod-affinity term of any pod selects it, or a
// DoNotSchedule spread constraint it does not carry itself. Selectors are
// read without namespaces and matchLabelKeys, so more pods are pinned
// rather than fewer.
func pinnedPods(in scheduling.Input) map[string]bool {
	var all []*corev1.Pod
	for _, p := range in.Pods {
		if p != nil {
			all = append(all, p)
		}
	}
	for _, n := range in.Nodes {
		if n != nil {
			all = append(all, n.Pods...)
		}
	}
	type rule struct {
		selector labels.Selector
		spread   *corev1.TopologySpreadConstraint // nil for an affinity term
	}
	var rules []rule
	seen := map[string]bool{}
	add := func(sel *metav1.LabelSelector, spread *corev1.TopologySpreadConstraint) {
		if sel == nil {
			return
		}
		key := sel.String()
		if spread != nil {
			key = spread.String()
		}
		if seen[key] {
			return
		}
		seen[key] = true
		if s, err := metav1.LabelSelectorAsSelector(sel); err == nil {
			rules = append(rules, rule{s, spread})
		} else {
			rules = append(rules, rule{labels.Everything(), spread})
		}
	}
	for _, p := range all {
		if a := p.Spec.Affinity; a != nil && a.PodAffinity != nil {
			for _, t := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
				add(t.LabelSelector, nil)
			}
		}
		for i := range p.Spec.TopologySpreadConstraints {
			if c := &p.Spec.TopologySpreadConstraints[i]; c.WhenUnsatisfiable == corev1.DoNotSchedule {
				add(c.LabelSelector, c)
			}
		}
	}
	pinned := map[string]bool{}
	for _, p := range in.Pods {
		if p == nil {
			continue
		}
		set := labels.Set(p.Labels)
		for _, r := range rules {
			if !r.selector.Matches(set) {
				continue
			}
			if r.spread == nil || !slices.ContainsFunc(p.Spec.TopologySpreadConstraints, func(c corev1.TopologySpreadConstraint) bool { return reflect.DeepEqual(c, *r.spread) }) {
				pinned[apis.PodKey(p)] = true
				break
			}
		}
	}
	return pinned
}
