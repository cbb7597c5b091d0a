package optimize

import (
	"bytes"
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// model is what every bound reads: the pods to bound gathered into groups,
// the node kinds they may go on, the free capacity of the existing nodes,
// and the NodePools' limits.
type model struct {
	dims   []corev1.ResourceName
	groups []group
	// repel are the hostname anti-affinity sets: at most one pod of each
	// set per node. Indices into groups.
	repel   [][]int
	columns []column
	// every are the columns before the dominated ones were dropped: a
	// bound on a narrowing of the NodePools (editBounds) keeps those of
	// them the narrowing keeps, whose dominating columns it may not.
	every []column
	// artificial, when set, is the price artificialPrice returns.
	artificial float64
	// free is the existing nodes' unrequested allocatable, summed; nodes
	// is how many there are.
	free  []float64
	nodes int
	pools []poolLimits
	// excluded are the pods left out of the bound, "namespace/name: why",
	// sorted.
	excluded []string
	// groupOf is each pod's group, by index, for the pods in one.
	groupOf map[*corev1.Pod]int
}

// group is pods with the same requests and the same node kinds they may
// go on (and the same anti-affinity set, if any).
type group struct {
	shape int // index into the shapes, which share compatibility
	count int
	req   []float64 // per dim
	repel int       // index into model.repel, or -1
	// example names one pod of the group, for messages.
	example string
}

// column is a kind of node a plan may launch: an instance type of a
// NodePool at one offering's price.
type column struct {
	pool     int // index into model.pools
	name     string
	zone     string
	capType  string
	price    float64
	it       *instancetypes.InstanceType
	room     []float64         // per dim: allocatable less DaemonSet overhead
	capacity *resources.Vector // the type's, shared
	// shapes is which pod shapes may go on it, by shape index.
	shapes bitset
}

// poolLimits is what a NodePool's limits leave for new nodes: per limited
// resource, capacity still allowed; nodes, the nodes still allowed (-1
// when not limited).
type poolLimits struct {
	name      string
	resources []corev1.ResourceName
	remaining []float64
	nodes     float64 // -1 when not limited
}

func (p *poolLimits) limited() bool { return len(p.resources) > 0 || p.nodes >= 0 }

// exceeds reports whether one node of the capacity is more than the
// limits leave.
func (p *poolLimits) exceeds(capacity resources.Vector) bool {
	for i, name := range p.resources {
		if float64(capacity.Get(name)) > p.remaining[i] {
			return true
		}
	}
	return p.nodes >= 0 && p.nodes < 1
}

type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) key() string    { return fmt.Sprint([]uint64(b)) }
func (b bitset) subsetOf(o bitset) bool {
	for i := range b {
		if b[i]&^o[i] != 0 {
			return false
		}
	}
	return true
}

// shape is pods that share their requests and their requirements in each
// NodePool: they may go on the same node kinds.
type shape struct {
	requests resources.Vector
	// reqs per pool; ok[i] is false when the pool refuses the pod.
	reqs []requirements.Requirements
	ok   []bool
}

// buildModel reads the input into a model. Pods the result lists as
// unschedulable are left out, and so are pods no NodePool can take, as
// well as invalid ones: a bound on fewer pods is still a bound.
func buildModel(in scheduling.Input, r scheduling.Result) (*model, error) {
	// A NodePool entry without its NodePool, or a nil pod, is a caller's
	// slip a bound can leave out rather than fail on.
	var nodePools []scheduling.Pool
	for _, np := range in.NodePools {
		if np.NodePool != nil {
			nodePools = append(nodePools, np)
		}
	}
	var daemons []*corev1.Pod
	for _, d := range in.DaemonSets {
		if d != nil {
			daemons = append(daemons, d)
		}
	}
	return buildModelWith(in, r, scheduling.Prepare(nodePools, daemons, in.Options))
}

// buildModelWith is buildModel with the input's NodePools and DaemonSets
// compiled already, by a caller that compiled them for its solves.
func buildModelWith(in scheduling.Input, r scheduling.Result, prep *scheduling.Prepared) (*model, error) {
	m := &model{}
	unschedulable := map[string]bool{}
	for _, u := range r.Unschedulable {
		unschedulable[u.Pod] = true
	}
	pools := prep.Capacity()
	slices.SortStableFunc(pools, func(a, b scheduling.PoolCapacity) int { return cmp.Compare(a.Name, b.Name) })
	m.pools = readLimits(in, pools)

	// Shapes first: pods are read once per distinct spec signature.
	var shapes []shape
	shapeIndex := map[string]int{}
	type podShape struct {
		shape int
		repel string
		pod   *corev1.Pod
	}
	var pods []podShape
	var texts requirementTexts
	// last is the last pod read, and what it read as: a pod like it (the
	// next replica of a Deployment, most often) reads the same. read is
	// the pod being read.
	var last struct {
		reading  podReading
		shape    int // -1 when it was left out
		repel    string
		excluded string // why it was left out, after its key
	}
	var read podReading
	for _, pod := range in.Pods {
		if pod == nil {
			continue
		}
		// The pod's key is only read when it is needed.
		if len(unschedulable) > 0 && unschedulable[podKey(pod)] {
			m.excluded = append(m.excluded, podKey(pod)+": unschedulable in the plan")
			continue
		}
		read = readingOf(pod, read.spec)
		if read.same(&last.reading) {
			if last.shape < 0 {
				m.excluded = append(m.excluded, podKey(pod)+last.excluded)
			} else {
				pods = append(pods, podShape{shape: last.shape, repel: last.repel, pod: pod})
			}
			continue
		}
		// The buffers swap: read's is free for the next pod.
		last.reading, read = read, last.reading
		last.shape, last.repel = -1, ""
		requests, err := resources.PodRequests(pod)
		if err != nil {
			last.excluded = fmt.Sprintf(": %v", err)
			m.excluded = append(m.excluded, podKey(pod)+last.excluded)
			continue
		}
		sh := shape{requests: requests}
		var sig strings.Builder
		sig.Write(requests.AppendKey(nil))
		any := false
		for pi, pc := range pools {
			reqs, err := pc.Requirements(pod)
			sh.reqs = append(sh.reqs, reqs)
			sh.ok = append(sh.ok, err == nil)
			if err == nil {
				any = true
				sig.WriteByte('|')
				sig.WriteString(texts.of(pi, reqs))
			} else {
				sig.WriteString("|-")
			}
		}
		if !any {
			last.excluded = ": no NodePool admits it"
			m.excluded = append(m.excluded, podKey(pod)+last.excluded)
			continue
		}
		i, ok := shapeIndex[sig.String()]
		if !ok {
			i = len(shapes)
			shapeIndex[sig.String()] = i
			shapes = append(shapes, sh)
		}
		last.shape, last.repel = i, repelKey(pod)
		pods = append(pods, podShape{shape: i, repel: last.repel, pod: pod})
	}
	m.dims = dimsOf(shapes)
	m.every = allColumns(pools, m.pools, shapes, m.dims)
	m.columns = undominated(m.every, m.pools)

	// Shapes no column takes are excluded; the others become groups, split
	// by anti-affinity set.
	takes := newBitset(len(shapes))
	for _, c := range m.columns {
		for i := range takes {
			takes[i] |= c.shapes[i]
		}
	}
	type groupKey struct {
		shape int
		repel string
	}
	groupIndex := map[groupKey]int{}
	repelIndex := map[string]int{}
	m.groupOf = make(map[*corev1.Pod]int, len(pods))
	for _, p := range pods {
		if !takes.has(p.shape) {
			m.excluded = append(m.excluded, podKey(p.pod)+": no instance type of an admitting NodePool fits it")
			continue
		}
		gk := groupKey{p.shape, p.repel}
		gi, ok := groupIndex[gk]
		if !ok {
			gi = len(m.groups)
			groupIndex[gk] = gi
			g := group{shape: p.shape, req: vectorIn(shapes[p.shape].requests, m.dims), repel: -1, example: podKey(p.pod)}
			if p.repel != "" {
				ri, ok := repelIndex[p.repel]
				if !ok {
					ri = len(m.repel)
					repelIndex[p.repel] = ri
					m.repel = append(m.repel, nil)
				}
				g.repel = ri
				m.repel[ri] = append(m.repel[ri], gi)
			}
			m.groups = append(m.groups, g)
		}
		m.groups[gi].count++
		m.groupOf[p.pod] = gi
	}
	m.free, m.nodes = freeCapacity(in.Nodes, m.dims), len(in.Nodes)
	m.dropSlackLimits()
	slices.Sort(m.excluded)
	return m, nil
}

// dropSlackLimits forgets the limits no plan can reach: those that leave
// room for a node per pod of the pool's largest type. Dropping a
// constraint only relaxes the programs, and these ones, with right-hand
// sides far beyond anything else, would only cost the solver precision.
func (m *model) dropSlackLimits() {
	pods := 0.0
	for _, g := range m.groups {
		pods += float64(g.count)
	}
	for pi := range m.pools {
		l := &m.pools[pi]
		largest := make([]float64, len(l.resources))
		for j := range m.columns {
			if m.columns[j].pool != pi {
				continue
			}
			for i, name := range l.resources {
				largest[i] = max(largest[i], float64(m.columns[j].capacity.Get(name)))
			}
		}
		var names []corev1.ResourceName
		var remaining []float64
		for i, name := range l.resources {
			if l.remaining[i] < pods*largest[i] {
				names = append(names, name)
				remaining = append(remaining, l.remaining[i])
			}
		}
		l.resources, l.remaining = names, remaining
		if l.nodes >= pods {
			l.nodes = -1
		}
	}
}

// podReading is a pod with what the model reads of it encoded to
// compare pods: its requests, its requirements in every pool and its
// anti-affinity set come from its spec, namespace, labels and
// annotations only. The spec is compared protobuf-encoded, an encoding
// of every field (TestPodSpecEncodesEveryField) with map keys sorted, far
// cheaper than reflect.DeepEqual; it is encoded only once compared with
// a pod of the same metadata.
type podReading struct {
	pod     *corev1.Pod
	spec    []byte
	encoded bool // spec holds the encoding, if ok
	ok      bool
}

// readingOf reads the pod, to encode its spec into buf's storage.
func readingOf(pod *corev1.Pod, buf []byte) podReading {
	return podReading{pod: pod, spec: buf[:0]}
}

func (r *podReading) encode() {
	if r.encoded {
		return
	}
	n := r.pod.Spec.Size()
	r.spec = slices.Grow(r.spec[:0], n)[:n]
	_, err := r.pod.Spec.MarshalToSizedBuffer(r.spec)
	r.encoded, r.ok = true, err == nil
}

// same reports whether the two pods read alike: false when either is
// not a pod or its spec did not encode.
func (r *podReading) same(o *podReading) bool {
	if r.pod == nil || o.pod == nil || r.pod.Namespace != o.pod.Namespace || !maps.Equal(r.pod.Labels, o.pod.Labels) ||
		!maps.Equal(r.pod.Annotations, o.pod.Annotations) {
		return false
	}
	r.encode()
	o.encode()
	return r.ok && o.ok && bytes.Equal(r.spec, o.spec)
}

func podKey(pod *corev1.Pod) string {
	ns := pod.Namespace
	if ns == "" {
		ns = "default"
	}
	return ns + "/" + pod.Name
}

// repelKey identifies the pod's hostname anti-affinity set: non-empty
// when the pod has a required anti-affinity term on the hostname whose
// selector matches the pod's own labels in its own namespace. Pods with
// the same key (the same labels, namespace and terms) repel each other:
// no two on one node. Other terms are left out, which only loosens the
// bound.
func repelKey(pod *corev1.Pod) string {
	a := pod.Spec.Affinity
	if a == nil || a.PodAntiAffinity == nil {
		return ""
	}
	for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != apis.LabelHostname || term.LabelSelector == nil || term.NamespaceSelector != nil {
			continue
		}
		if len(term.Namespaces) > 0 && !slices.Contains(term.Namespaces, pod.Namespace) {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		return fmt.Sprintf("%s|%s|%s", pod.Namespace, labels.Set(pod.Labels).String(), sel.String())
	}
	return ""
}

// dimsOf is the resources some shape requests, in slot order: cpu, memory,
// pods, and any other.
func dimsOf(shapes []shape) []corev1.ResourceName {
	seen := map[corev1.ResourceName]bool{corev1.ResourceCPU: true, corev1.ResourceMemory: true, corev1.ResourcePods: true}
	dims := []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourcePods}
	var extra []corev1.ResourceName
	for _, s := range shapes {
		for _, name := range s.requests.Names() {
			if !seen[name] && s.requests.Get(name) > 0 {
				seen[name] = true
				extra = append(extra, name)
			}
		}
	}
	slices.Sort(extra)
	return append(dims, extra...)
}

func vectorIn(v resources.Vector, dims []corev1.ResourceName) []float64 {
	out := make([]float64, len(dims))
	for i, name := range dims {
		out[i] = float64(v.Get(name))
	}
	return out
}

// readLimits works out what each pool's limits leave once the input's
// nodes of that pool are counted.
func readLimits(in scheduling.Input, pools []scheduling.PoolCapacity) []poolLimits {
	byName := map[string]corev1.ResourceList{}
	for _, np := range in.NodePools {
		if np.NodePool != nil {
			byName[np.NodePool.Name] = np.NodePool.Spec.Limits
		}
	}
	out := make([]poolLimits, len(pools))
	for i, pc := range pools {
		l := poolLimits{name: pc.Name, nodes: -1}
		list := byName[pc.Name]
		names := make([]corev1.ResourceName, 0, len(list))
		for name := range list {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			q := list[name]
			if name == "nodes" {
				// Bounded as every amount is: apimachinery reads 1e30 as 0.
				l.nodes = float64(resources.FromList(corev1.ResourceList{name: q}).Get(name))
				continue
			}
			l.resources = append(l.resources, name)
			l.remaining = append(l.remaining, float64(resources.FromList(corev1.ResourceList{name: q}).Get(name)))
		}
		for _, n := range in.Nodes {
			if n == nil || n.NodePool != pc.Name {
				continue
			}
			capacity := resources.FromList(n.Capacity)
			for j, name := range l.resources {
				l.remaining[j] -= float64(capacity.Get(name))
			}
			if l.nodes >= 0 {
				l.nodes--
			}
		}
		out[i] = l
	}
	return out
}

// freeCapacity sums, over the existing nodes, what their pods leave of
// their allocatable. Pods may go there for nothing; which pod fits which
// node is not checked, which only loosens the bound.
func freeCapacity(nodes []*scheduling.Node, dims []corev1.ResourceName) []float64 {
	free := make([]float64, len(dims))
	for _, n := range nodes {
		if n == nil {
			continue
		}
		left := resources.FromList(n.Allocatable)
		for _, p := range n.Pods {
			if p == nil {
				continue
			}
			if req, err := resources.PodRequests(p); err == nil {
				left = left.Sub(req)
			}
		}
		for i, name := range dims {
			free[i] += max(0, float64(left.Get(name)))
		}
	}
	return free
}

// allColumns lists every (pool, instance type, offering) some shape may
// go on, in order of price, then pool, type, zone and capacity type;
// undominated then drops the dominated ones: a column is dropped when a
// cheaper (or equal, listed earlier) one takes every shape it takes, has
// as much room in every dimension, and uses no more of any limit. Any
// packing of the dropped column then fits the one kept, for no more
// money, so no bound below loses anything by the drop.
func allColumns(pools []scheduling.PoolCapacity, limits []poolLimits, shapes []shape, dims []corev1.ResourceName) []column {
	// A column per offering at most. The columns are large: they are
	// listed small first (offering), sorted, and built once, in order.
	n, types := 0, 0
	for _, pc := range pools {
		types += len(pc.Types)
		for _, tc := range pc.Types {
			n += len(tc.InstanceType.Offerings)
		}
	}
	type offering struct {
		price          float64
		pool, typ, off int32 // indexes in pools, their Types, its Offerings
		room           int32 // index in rooms
	}
	all := make([]offering, 0, n)
	// The types' rooms share one allocation, large enough for all.
	var rooms [][]float64
	roomWords := make([]float64, 0, types*len(dims))
	// The columns' shape sets share one allocation, a set per offering
	// listed, in listing order.
	width := len(newBitset(len(shapes)))
	words := make([]uint64, n*width)
	// typeOK is which shapes a type takes, whatever the offering.
	typeOK := newBitset(len(shapes))
	// same[si] is the first shape whose requirements in the pool are
	// shapes[si]'s own set (requirements.SameSet), whose answer is
	// shapes[si]'s: most shapes hold the pool's requirements unchanged.
	same := make([]int, len(shapes))
	// changed[si] is what shapes[si]'s requirements in the pool add to
	// the pool's own (Requirements.ChangedFrom): every type the pool
	// lists meets the pool's requirements, so a type meets a shape's
	// when it meets what the shape adds, most often nothing.
	changed := make([]requirements.Requirements, len(shapes))
	for pi, pc := range pools {
		base, baseErr := pc.Requirements(neutralPod)
		for si := range shapes {
			same[si] = si
			for sj := range si {
				if shapes[sj].ok[pi] && shapes[sj].reqs[pi].SameSet(shapes[si].reqs[pi]) {
					same[si] = sj
					break
				}
			}
			if changed[si] = shapes[si].reqs[pi]; baseErr == nil && shapes[si].ok[pi] {
				changed[si] = changed[si].ChangedFrom(base)
			}
		}
		compatible := offeringShapes{pool: pi, shapes: shapes}
		for ti, tc := range pc.Types {
			it := tc.InstanceType
			if limits[pi].exceeds(it.Capacity) {
				continue
			}
			clear(typeOK)
			anyShape := false
			for si := range shapes {
				s := &shapes[si]
				if !s.ok[pi] || !s.requests.Fits(tc.Room) {
					continue
				}
				// An earlier shape of the same requirements that fits
				// answered for this one; otherwise it is asked.
				if sj := same[si]; sj < si && shapes[sj].requests.Fits(tc.Room) {
					if typeOK.has(sj) {
						typeOK.set(si)
						anyShape = true
					}
					continue
				}
				if it.Requirements.IntersectsFast(changed[si]) {
					typeOK.set(si)
					anyShape = true
				}
			}
			if !anyShape {
				continue
			}
			room := int32(-1)
			for oi, o := range it.Offerings {
				if !o.Available || o.Price < 0 {
					continue
				}
				k := len(all) * width
				set := words[k : k+width]
				anyShape = false
				for i, w := range compatible.of(it.LabelRules(), o) {
					set[i] = w & typeOK[i]
					anyShape = anyShape || set[i] != 0
				}
				if !anyShape {
					clear(set)
					continue
				}
				if room < 0 {
					room = int32(len(rooms))
					k := len(roomWords)
					for _, name := range dims {
						roomWords = append(roomWords, float64(tc.Room.Get(name)))
					}
					rooms = append(rooms, roomWords[k:len(roomWords):len(roomWords)])
				}
				all = append(all, offering{price: o.Price, pool: int32(pi), typ: int32(ti), off: int32(oi), room: room})
			}
		}
	}
	order := make([]int32, len(all))
	for i := range order {
		order[i] = int32(i)
	}
	it := func(o *offering) *instancetypes.InstanceType { return pools[o.pool].Types[o.typ].InstanceType }
	// Ties keep the listing's order: the index breaks them, which makes
	// the order total and the unstable sort's answer the stable one's.
	slices.SortFunc(order, func(i, j int32) int {
		a, b := &all[i], &all[j]
		if c := cmp.Compare(a.price, b.price); c != 0 {
			return c
		}
		if c := cmp.Compare(a.pool, b.pool); c != 0 {
			return c
		}
		ta, tb := it(a), it(b)
		oa, ob := &ta.Offerings[a.off], &tb.Offerings[b.off]
		return cmp.Or(cmp.Compare(ta.Name, tb.Name), cmp.Compare(oa.Zone, ob.Zone), cmp.Compare(oa.CapacityType, ob.CapacityType), cmp.Compare(i, j))
	})
	columns := make([]column, len(all))
	for k, i := range order {
		o := &all[i]
		t := it(o)
		off := &t.Offerings[o.off]
		w := int(i) * width
		columns[k] = column{pool: int(o.pool), name: t.Name, it: t, zone: off.Zone, capType: off.CapacityType, price: o.price,
			room: rooms[o.room], capacity: &t.Capacity, shapes: words[w : w+width : w+width]}
	}
	return columns
}

// undominated are the columns, in price order, less those a kept one
// dominates.
func undominated(all []column, limits []poolLimits) []column {
	var kept []column
	// roomiest is the kept columns' largest room in each dimension: a
	// column with more room in one than every kept column is not
	// dominated.
	var roomiest []float64
	for i := range all {
		c := &all[i]
		dominated := false
		if fitsIn(c.room, roomiest) {
			// The kept columns are tried latest first: as the price
			// rises so does the room, most often, and a roomier
			// column is likelier to dominate.
			for j := len(kept) - 1; j >= 0; j-- {
				if dominates(&kept[j], c, limits) {
					dominated = true
					break
				}
			}
		}
		if !dominated {
			kept = append(kept, *c)
			if roomiest == nil {
				roomiest = slices.Clone(c.room)
			}
			for d, v := range c.room {
				roomiest[d] = max(roomiest[d], v)
			}
		}
	}
	return kept
}

// fitsIn reports whether room is at most roomiest in every dimension
// (false for a nil roomiest).
func fitsIn(room, roomiest []float64) bool {
	if roomiest == nil {
		return false
	}
	for d, v := range room {
		if v > roomiest[d] {
			return false
		}
	}
	return true
}

// dominates reports whether column a is at least as good as b for every
// packing: as cheap, as roomy, taking every shape b takes, and charging no
// more against any limit.
func dominates(a, b *column, limits []poolLimits) bool {
	if a.price > b.price || !b.shapes.subsetOf(a.shapes) {
		return false
	}
	for i := range a.room {
		if a.room[i] < b.room[i] {
			return false
		}
	}
	la := &limits[a.pool]
	if !la.limited() {
		return true
	}
	if a.pool != b.pool {
		return false
	}
	for _, name := range la.resources {
		if a.capacity.Get(name) > b.capacity.Get(name) {
			return false
		}
	}
	return true
}

// neutralPod is a pod that asks for nothing of a node and tolerates
// every taint: what a pool requires of its nodes is its requirements for
// this pod (PoolCapacity.Requirements).
var neutralPod = &corev1.Pod{Spec: corev1.PodSpec{Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}}

// offeringKey is what Offering.CompatibleUnder reads of an offering, and
// the label rules of its type's cloud.
type offeringKey struct {
	zone, capacityType, reservationID, reservationType string
	interruptible                                      bool
	label                                              instancetypes.OfferingLabel
	rules                                              *apis.LabelRules
}

// offeringShapes says which shapes' requirements in one pool allow an
// offering, worked out once per distinct offeringKey: a catalog's
// offerings come in a few zones and capacity types, found by a scan
// cheaper than a map's hash of their strings.
type offeringShapes struct {
	pool   int
	shapes []shape
	keys   []offeringKey
	known  []bitset
}

func (s *offeringShapes) of(rules *apis.LabelRules, o instancetypes.Offering) bitset {
	k := offeringKey{o.Zone, o.CapacityType, o.ReservationID, o.ReservationType, o.Interruptible, o.Label, rules}
	if i := slices.Index(s.keys, k); i >= 0 {
		return s.known[i]
	}
	b := newBitset(len(s.shapes))
	for si := range s.shapes {
		if sh := &s.shapes[si]; sh.ok[s.pool] && o.CompatibleUnder(rules, sh.reqs[s.pool]) {
			b.set(si)
		}
	}
	s.keys, s.known = append(s.keys, k), append(s.known, b)
	return b
}

// requirementTexts is, per pool, the last requirements printed
// (Requirements.String) and their text: a pool's requirements handed on
// to many pods (requirements.SameSet) are printed once.
type requirementTexts struct {
	last  []requirements.Requirements
	texts []string
}

func (t *requirementTexts) of(pool int, r requirements.Requirements) string {
	for len(t.last) <= pool {
		t.last, t.texts = append(t.last, requirements.Requirements{}), append(t.texts, "")
	}
	if t.texts[pool] == "" || !r.SameSet(t.last[pool]) {
		t.last[pool], t.texts[pool] = r, r.String()
	}
	return t.texts[pool]
}
