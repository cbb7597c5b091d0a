package optimize

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

// The kinds of NodePool edit that only narrow a NodePool or reweight it.
// Karpenter's plan under such edits launches only what the NodePools as
// they are admit, so it is a plan of the input too: Search weighs them
// (EditSearch), and package advise offers them, with the widening kinds,
// as changes to make.
const (
	// KindCapCPU adds instance-cpu Lt N+1: no type of more than N vCPUs.
	KindCapCPU = "cap-cpu"
	// KindFloorCPU adds instance-cpu Gt N: no type of N vCPUs or fewer.
	KindFloorCPU = "floor-cpu"
	// KindDropSize adds a size to instance-size NotIn (metal, 24xlarge…).
	KindDropSize = "drop-size"
	// KindDropFamily adds a family to instance-family NotIn.
	KindDropFamily = "drop-family"
	// KindDropGeneration adds a generation to instance-generation NotIn.
	KindDropGeneration = "drop-generation"
	// KindPreferPool raises the pool's weight above every other pool's.
	KindPreferPool = "prefer-nodepool"
)

// CommittedKey marks a NodePool as committed capacity (reserved
// instances, a savings plan, a capacity reservation it must use): a label
// or an annotation of this key with the value "true". No edit changes a
// committed NodePool, and a set of edits under which Karpenter launches
// less on it (fewer nodes of any instance type and capacity type than
// today) is not kept: the search never moves pods away from it.
const CommittedKey = "karpsim.dev/committed"

// Committed reports whether the NodePool is marked as committed capacity
// (CommittedKey).
func Committed(np *apis.NodePool) bool {
	return np != nil && (np.Labels[CommittedKey] == "true" || np.Annotations[CommittedKey] == "true")
}

// Edit is one change to one NodePool.
type Edit struct {
	// Kind is one of the Kind* constants (of this package or advise's).
	Kind string `json:"kind"`
	// NodePool is the name of the NodePool the edit changes.
	NodePool string `json:"nodePool"`
	// Change says what the edit does to the NodePool, in words.
	Change string `json:"change"`

	// Slot names what the edit sets: two edits of one slot do not combine.
	Slot string `json:"-"`
	// Op is what the edit does, as data.
	Op EditOp `json:"-"`
}

// The actions of an EditOp.
const (
	// ActionRestrict adds the requirement Key Operator Value, or tightens
	// the pool's requirement of that key and operator: NotIn gains the
	// value, Lt takes the smaller bound, Gt the larger.
	ActionRestrict = "restrict"
	// ActionWiden adds Value to the pool's In requirements on Key and
	// takes it out of its NotIn ones (dropping a NotIn left empty).
	ActionWiden = "widen"
	// ActionDropUpperBounds removes the pool's In lists and upper bounds
	// (Lt, Lte) on Key, keeping its lower bounds.
	ActionDropUpperBounds = "drop-upper-bounds"
	// ActionWeight sets the pool's weight to Weight.
	ActionWeight = "weight"
)

// EditOp is an edit's change to a NodePool, as data: one of the Action*
// constants and its operands.
type EditOp struct {
	Action   string
	Key      string
	Operator corev1.NodeSelectorOperator
	Value    string
	Weight   int32
}

// Apply makes the edit's change on np, a copy of the NodePool it names.
func (e Edit) Apply(np *apis.NodePool) {
	switch e.Op.Action {
	case ActionRestrict:
		restrict(np, e.Op.Key, e.Op.Operator, e.Op.Value)
	case ActionWiden:
		widen(np, e.Op.Key, e.Op.Value)
	case ActionDropUpperBounds:
		np.Spec.Template.Spec.Requirements = slices.DeleteFunc(np.Spec.Template.Spec.Requirements, func(r apis.NodeSelectorRequirementWithMinValues) bool {
			return r.Key == e.Op.Key && (r.Operator == corev1.NodeSelectorOpIn || r.Operator == corev1.NodeSelectorOpLt || r.Operator == apis.NodeSelectorOpLte)
		})
	case ActionWeight:
		w := e.Op.Weight
		np.Spec.Weight = &w
	}
}

func (e Edit) String() string { return e.NodePool + ": " + e.Change }

// Narrows reports whether the edit only narrows or reweights a NodePool:
// Karpenter's plan under it is a plan of the NodePool as it is.
func (e Edit) Narrows() bool {
	switch e.Kind {
	case KindCapCPU, KindFloorCPU, KindDropSize, KindDropFamily, KindDropGeneration, KindPreferPool:
		return true
	}
	return false
}

// DefaultMaxEditCandidates is how many single edits of a family an edit
// search simulates by default, and DefaultMaxEdits how many edits one
// set combines.
const (
	DefaultMaxEditCandidates = 64
	DefaultMaxEdits          = 3
)

// cpuCaps and cpuFloors are the vCPU counts a cap or a floor may stop at.
var (
	cpuCaps   = []int{2, 4, 8, 16, 32, 48, 64, 96}
	cpuFloors = []int{1, 3, 7, 15}
)

// sizeOrder ranks the EC2 sizes, smallest first, for the order of drop-size
// candidates; a size it does not know sorts by name after them.
var sizeOrder = []string{"nano", "micro", "small", "medium", "large", "xlarge", "2xlarge", "3xlarge", "4xlarge",
	"6xlarge", "8xlarge", "9xlarge", "10xlarge", "12xlarge", "16xlarge", "18xlarge", "24xlarge", "32xlarge",
	"48xlarge", "56xlarge", "96xlarge", "112xlarge", "metal"}

// EditPools are the input's NodePools that edits may change, sorted by
// name: those with a NodePool object that is not committed capacity.
func EditPools(in scheduling.Input) []scheduling.Pool {
	pools := slices.Clone(in.NodePools)
	pools = slices.DeleteFunc(pools, func(np scheduling.Pool) bool { return np.NodePool == nil || Committed(np.NodePool) })
	slices.SortFunc(pools, func(a, b scheduling.Pool) int { return strings.Compare(a.NodePool.Name, b.NodePool.Name) })
	return pools
}

// Launched returns, per NodePool name, the instance types the plan
// launches from it, in the order of its claims.
func Launched(in scheduling.Input, r scheduling.Result) map[string][]*instancetypes.InstanceType {
	launched := map[string][]*instancetypes.InstanceType{}
	for _, c := range r.NodeClaims {
		for _, np := range in.NodePools {
			if np.NodePool == nil || np.NodePool.Name != c.NodePool {
				continue
			}
			if it, ok := np.InstanceTypes.Get(c.InstanceType); ok && !slices.Contains(launched[c.NodePool], it) {
				launched[c.NodePool] = append(launched[c.NodePool], it)
			}
		}
	}
	return launched
}

// NarrowingEdits are the narrowing and reweighting edits worth a solve,
// at most limit, NodePool by NodePool (by name, committed ones left out),
// in a fixed order: vCPU caps below the largest and floors above the
// smallest type base launched from the pool, each size, family and
// generation it launched left out, and the pool's weight above every
// other's. An edit that changes nothing the pool may launch is left out.
func NarrowingEdits(in scheduling.Input, base scheduling.Result, limit int) []Edit {
	launched := Launched(in, base)
	all := slices.DeleteFunc(slices.Clone(in.NodePools), func(np scheduling.Pool) bool { return np.NodePool == nil })
	var out []Edit
	for _, np := range EditPools(in) {
		launches := newPoolLaunches(np)
		for _, it := range launched[np.NodePool.Name] {
			if i := slices.Index(np.InstanceTypes, it); i >= 0 {
				launches.hint = append(launches.hint, i)
			}
		}
		var edits []Edit
		if l := launched[np.NodePool.Name]; len(l) > 0 {
			edits = append(edits, cpuEdits(np.NodePool.Name, l)...)
			edits = append(edits, dropEdits(np.NodePool.Name, l)...)
		}
		if e, ok := preferEdit(np.NodePool.Name, all); ok {
			edits = append(edits, e)
		}
		for _, e := range edits {
			if len(out) == limit {
				return out
			}
			if launches.changedBy(e) {
				out = append(out, e)
			}
		}
	}
	return out
}

// ChangesLaunches reports whether the edit changes what the NodePool may
// launch (a weight always counts) and leaves it something to launch.
func ChangesLaunches(np scheduling.Pool, e Edit) bool {
	return newPoolLaunches(np).changedBy(e)
}

// cpuEdits caps and floors the vCPUs below the largest and above the
// smallest type the plan launched.
func cpuEdits(pool string, launched []*instancetypes.InstanceType) []Edit {
	lo, hi := 1<<30, 0
	for _, it := range launched {
		if c, ok := IntLabel(it, apis.LabelInstanceCPU); ok {
			lo, hi = min(lo, c), max(hi, c)
		}
	}
	var edits []Edit
	for _, c := range cpuCaps {
		if c < hi {
			v := strconv.Itoa(c + 1)
			edits = append(edits, Edit{Kind: KindCapCPU, NodePool: pool, Change: fmt.Sprintf("at most %d vCPUs (%s Lt %s)", c, apis.LabelInstanceCPU, v),
				Slot: pool + "/cpu<", Op: EditOp{Action: ActionRestrict, Key: apis.LabelInstanceCPU, Operator: corev1.NodeSelectorOpLt, Value: v}})
		}
	}
	for _, f := range cpuFloors {
		if f >= lo && f < hi {
			v := strconv.Itoa(f)
			edits = append(edits, Edit{Kind: KindFloorCPU, NodePool: pool, Change: fmt.Sprintf("at least %d vCPUs (%s Gt %s)", f+1, apis.LabelInstanceCPU, v),
				Slot: pool + "/cpu>", Op: EditOp{Action: ActionRestrict, Key: apis.LabelInstanceCPU, Operator: corev1.NodeSelectorOpGt, Value: v}})
		}
	}
	return edits
}

// dropEdits leave out one size, family or generation the plan launched.
func dropEdits(pool string, launched []*instancetypes.InstanceType) []Edit {
	var edits []Edit
	for _, d := range []struct{ kind, key, what string }{
		{KindDropSize, apis.LabelInstanceSize, "size"},
		{KindDropFamily, apis.LabelInstanceFamily, "family"},
		{KindDropGeneration, apis.LabelInstanceGeneration, "generation"},
	} {
		values := launchedValues(launched, d.key)
		if d.kind == KindDropSize {
			slices.SortFunc(values, compareSizes)
		}
		for _, v := range values {
			edits = append(edits, Edit{Kind: d.kind, NodePool: pool, Change: fmt.Sprintf("no %s %s (%s NotIn %s)", d.what, v, d.key, v),
				Slot: pool + "/" + d.key + "!=" + v, Op: EditOp{Action: ActionRestrict, Key: d.key, Operator: corev1.NodeSelectorOpNotIn, Value: v}})
		}
	}
	return edits
}

// preferEdit raises the pool's weight above every other pool's, when
// there are others and it is not already alone on top.
func preferEdit(pool string, pools []scheduling.Pool) (Edit, bool) {
	if len(pools) < 2 {
		return Edit{}, false
	}
	top, own := int32(0), int32(0)
	for _, np := range pools {
		w := int32(0)
		if np.NodePool.Spec.Weight != nil {
			w = *np.NodePool.Spec.Weight
		}
		if np.NodePool.Name == pool {
			own = w
		} else {
			top = max(top, w)
		}
	}
	if own > top || top >= 100 {
		return Edit{}, false
	}
	weight := top + 1
	return Edit{Kind: KindPreferPool, NodePool: pool, Change: fmt.Sprintf("weight %d, above every other NodePool", weight),
		Slot: pool + "/weight", Op: EditOp{Action: ActionWeight, Weight: weight}}, true
}

// restrict adds a requirement, or tightens the pool's requirement of the
// same key and operator: NotIn gains the value, Lt takes the smaller
// bound, Gt the larger.
func restrict(np *apis.NodePool, key string, op corev1.NodeSelectorOperator, value string) {
	reqs := np.Spec.Template.Spec.Requirements
	for i := range reqs {
		r := &reqs[i]
		if r.Key != key || r.Operator != op {
			continue
		}
		switch op {
		case corev1.NodeSelectorOpNotIn:
			if !slices.Contains(r.Values, value) {
				r.Values = append(slices.Clone(r.Values), value)
			}
		case corev1.NodeSelectorOpLt, corev1.NodeSelectorOpGt:
			if tighter(op, value, r.Values) {
				r.Values = []string{value}
			}
		}
		return
	}
	np.Spec.Template.Spec.Requirements = append(reqs, apis.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: []string{value}})
}

// widen adds the value to the pool's In requirements on key and takes it
// out of its NotIn ones.
func widen(np *apis.NodePool, key, value string) {
	reqs := np.Spec.Template.Spec.Requirements
	for i := range reqs {
		r := &reqs[i]
		if r.Key != key {
			continue
		}
		switch r.Operator {
		case corev1.NodeSelectorOpIn:
			if !slices.Contains(r.Values, value) {
				r.Values = append(slices.Clone(r.Values), value)
			}
		case corev1.NodeSelectorOpNotIn:
			r.Values = slices.DeleteFunc(slices.Clone(r.Values), func(v string) bool { return v == value })
		}
	}
	// A NotIn left without values is not valid: it excluded nothing but
	// the value, so it goes.
	np.Spec.Template.Spec.Requirements = slices.DeleteFunc(reqs, func(r apis.NodeSelectorRequirementWithMinValues) bool {
		return r.Key == key && r.Operator == corev1.NodeSelectorOpNotIn && len(r.Values) == 0
	})
}

// tighter reports whether the bound value excludes more than the first of
// values does.
func tighter(op corev1.NodeSelectorOperator, value string, values []string) bool {
	if len(values) == 0 {
		return true
	}
	v, err1 := strconv.Atoi(value)
	old, err2 := strconv.Atoi(values[0])
	if err1 != nil || err2 != nil {
		return true
	}
	if op == corev1.NodeSelectorOpLt {
		return v < old
	}
	return v > old
}

// poolLaunches is what a NodePool may launch as it is, read once for all
// the edits of the pool that ChangesLaunches weighs, and only as far as
// they need: which types it admits (an offering of which its requirements
// allow), type by type as an edit asks; and, for an edit that widens the
// pool or restricts an offering's key, every offering of every type it
// admits, one bit each, in catalog order.
type poolLaunches struct {
	np scheduling.Pool
	// valid is false when the NodePool's requirements do not read: it
	// launches nothing as it is.
	valid bool
	// reqs are the NodePool's requirements, when valid.
	reqs requirements.Requirements
	// admits is, per catalog index, whether the pool admits the type:
	// admitUnread until asked (admitted).
	admits []admitState
	// hint are catalog indexes an edit is weighed on first: the types
	// the pool launches, which the edits of NarrowingEdits take away or
	// keep. The order changes no answer, only how soon it comes.
	hint []int
	// read is set once first, before and types are.
	read bool
	// first is, per catalog index, the bit of the type's first offering.
	first  []int
	before bitset
	// types are the catalog indexes of the types before admits.
	types []int
}

// admitState is whether a pool admits a type, once read.
type admitState uint8

const (
	admitUnread admitState = iota
	admitYes
	admitNo
)

func newPoolLaunches(np scheduling.Pool) *poolLaunches {
	l := &poolLaunches{np: np, admits: make([]admitState, len(np.InstanceTypes))}
	reqs, err := requirements.FromNodePool(np.NodePool.Spec.Template)
	if err != nil {
		return l
	}
	l.valid, l.reqs = true, reqs
	return l
}

// readAll reads every offering the pool admits (first, before, types).
func (l *poolLaunches) readAll() {
	if l.read {
		return
	}
	l.read = true
	l.first = make([]int, len(l.np.InstanceTypes))
	n := 0
	for i, it := range l.np.InstanceTypes {
		l.first[i] = n
		if it != nil {
			n += len(it.Offerings)
		}
	}
	l.before = newBitset(n)
	if !l.valid {
		return
	}
	for i, it := range l.np.InstanceTypes {
		if l.admit(l.before, i, it, l.reqs, true) {
			l.types = append(l.types, i)
		}
	}
}

// admitted reports whether the pool as it is admits the type at catalog
// index i: its requirements admit the type and one of its offerings.
func (l *poolLaunches) admitted(i int) bool {
	if l.admits[i] == admitUnread {
		it := l.np.InstanceTypes[i]
		ok := l.valid && it != nil && it.Requirements.IntersectsFast(l.reqs) &&
			slices.ContainsFunc(it.Offerings, func(o instancetypes.Offering) bool { return o.CompatibleUnder(it.LabelRules(), l.reqs) })
		l.admits[i] = admitNo
		if ok {
			l.admits[i] = admitYes
		}
	}
	return l.admits[i] == admitYes
}

// admit sets the bits of the type's offerings the requirements admit, if
// they admit the type (and offerings, checking each offering's zone,
// capacity type and reservation), and reports whether any was.
func (l *poolLaunches) admit(bits bitset, i int, it *instancetypes.InstanceType, reqs requirements.Requirements, offerings bool) bool {
	if it == nil || !it.Requirements.IntersectsFast(reqs) {
		return false
	}
	any := false
	for k, o := range it.Offerings {
		if !offerings && l.before.has(l.first[i]+k) || offerings && o.CompatibleUnder(it.LabelRules(), reqs) {
			bits.set(l.first[i] + k)
			any = true
		}
	}
	return any
}

// changedBy reports whether the edit changes what the NodePool may
// launch (a weight always counts) and leaves it something to launch.
func (l *poolLaunches) changedBy(e Edit) bool {
	if e.Kind == KindPreferPool {
		return true
	}
	edited := l.np.NodePool.DeepCopy()
	e.Apply(edited)
	reqs, err := requirements.FromNodePool(edited.Spec.Template)
	if err != nil {
		return false
	}
	if l.valid && e.Op.Action == ActionRestrict && !slices.Contains(offeringKeys, e.Op.Key) {
		// A restriction of a type label only takes types away, each
		// with all its offerings: the types admitted now meet every
		// requirement the edit left alone, so only what it changed is
		// checked (Requirements.ChangedFrom). It changes what the pool
		// launches when it takes away a type the pool admits, and
		// leaves it something when it keeps one.
		return l.splits(reqs.ChangedFrom(l.reqs))
	}
	l.readAll()
	after := newBitset(len(l.before) * 64)
	if l.valid && e.Op.Action == ActionRestrict {
		// A restriction of an offering's key only takes offerings
		// away: only those the pool launches now are read again.
		for _, i := range l.types {
			l.admit(after, i, l.np.InstanceTypes[i], reqs, true)
		}
	} else {
		for i, it := range l.np.InstanceTypes {
			l.admit(after, i, it, reqs, true)
		}
	}
	return !slices.Equal(after, l.before) && slices.ContainsFunc(after, func(w uint64) bool { return w != 0 })
}

// splits reports whether, of the types the pool admits, the requirements
// take one away and keep one. Whether the pool admits a type is read
// only of the types that could answer what is still open.
func (l *poolLaunches) splits(changed requirements.Requirements) bool {
	kept, lost := false, false
	settles := func(i int) bool {
		it := l.np.InstanceTypes[i]
		if it == nil {
			return false
		}
		pass := it.Requirements.IntersectsFast(changed)
		if pass && kept || !pass && lost || !l.admitted(i) {
			return false
		}
		kept, lost = kept || pass, lost || !pass
		return kept && lost
	}
	for _, i := range l.hint {
		if settles(i) {
			return true
		}
	}
	for i := range l.np.InstanceTypes {
		if settles(i) {
			return true
		}
	}
	return false
}

// offeringKeys are the labels an offering's compatibility reads.
var offeringKeys = []string{apis.LabelTopologyZone, apis.LabelCapacityType, apis.LabelCapacityReservationID, apis.LabelCapacityReservationType, apis.LabelCapacityReservationInterruptible}

// launchedValues are the distinct values of key of the types, sorted.
func launchedValues(types []*instancetypes.InstanceType, key string) []string {
	var values []string
	for _, it := range types {
		if v, ok := it.Labels()[key]; ok && !slices.Contains(values, v) {
			values = append(values, v)
		}
	}
	slices.Sort(values)
	return values
}

// IntLabel is the type's label key as an integer.
func IntLabel(it *instancetypes.InstanceType, key string) (int, bool) {
	n, err := strconv.Atoi(it.Labels()[key])
	return n, err == nil
}

func compareSizes(a, b string) int {
	i, j := slices.Index(sizeOrder, a), slices.Index(sizeOrder, b)
	if i < 0 {
		i = len(sizeOrder)
	}
	if j < 0 {
		j = len(sizeOrder)
	}
	return cmp.Or(cmp.Compare(i, j), strings.Compare(a, b))
}
