package advise

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

// The kinds of edit Advise tries, the family it searches. Each narrows or
// widens one requirement of one NodePool, or changes its weight.
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
	// KindAddCategory adds a category of the catalog to the pool's
	// instance-category In list.
	KindAddCategory = "add-category"
	// KindAddFamily adds a family of the catalog to the pool's
	// instance-family In list.
	KindAddFamily = "add-family"
	// KindAllowNewerGenerations removes the pool's upper bounds and In
	// list on instance-generation.
	KindAllowNewerGenerations = "allow-newer-generations"
	// KindAllowArm64 adds arm64 to the pool's kubernetes.io/arch In list.
	KindAllowArm64 = "allow-arm64"
	// KindAllowSpot adds spot to the pool's karpenter.sh/capacity-type In
	// list.
	KindAllowSpot = "allow-spot"
	// KindPreferPool raises the pool's weight above every other pool's.
	KindPreferPool = "prefer-nodepool"
)

// Edit is one change to one NodePool.
type Edit struct {
	// Kind is one of the Kind* constants.
	Kind string `json:"kind"`
	// NodePool is the name of the NodePool the edit changes.
	NodePool string `json:"nodePool"`
	// Change says what the edit does to the NodePool, in words.
	Change string `json:"change"`

	// slot names what the edit sets: two edits of one slot do not combine.
	slot  string
	apply func(np *apis.NodePool)
}

func (e Edit) String() string { return e.NodePool + ": " + e.Change }

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

// widenCandidates is how many categories or families of the catalog an
// add edit is tried with, the cheapest per vCPU first.
const widenCandidates = 3

// poolEdits are the edits tried on one NodePool, in a fixed order: what
// the plan launched from it decides the narrowing edits, the catalog the
// widening ones. pools are all the input's NodePools (for weights).
func poolEdits(np scheduling.Pool, pools []scheduling.Pool, launched []*instancetypes.InstanceType) []Edit {
	name := np.NodePool.Name
	reqs, err := requirements.FromNodePool(np.NodePool.Spec.Template)
	if err != nil {
		return nil // Solve reports a pool it cannot read; nothing to edit.
	}
	var edits []Edit
	if len(launched) > 0 {
		edits = append(edits, cpuEdits(name, launched)...)
		edits = append(edits, dropEdits(name, launched)...)
	}
	edits = append(edits, widenEdits(name, reqs, np.InstanceTypes)...)
	if e, ok := preferEdit(name, pools); ok {
		edits = append(edits, e)
	}
	return edits
}

// cpuEdits caps and floors the vCPUs below the largest and above the
// smallest type the plan launched.
func cpuEdits(pool string, launched []*instancetypes.InstanceType) []Edit {
	lo, hi := 1<<30, 0
	for _, it := range launched {
		if c, ok := intLabel(it, apis.LabelInstanceCPU); ok {
			lo, hi = min(lo, c), max(hi, c)
		}
	}
	var edits []Edit
	for _, c := range cpuCaps {
		if c < hi {
			v := strconv.Itoa(c + 1)
			edits = append(edits, Edit{Kind: KindCapCPU, NodePool: pool, Change: fmt.Sprintf("at most %d vCPUs (%s Lt %s)", c, apis.LabelInstanceCPU, v),
				slot: pool + "/cpu<", apply: restrict(apis.LabelInstanceCPU, corev1.NodeSelectorOpLt, v)})
		}
	}
	for _, f := range cpuFloors {
		if f >= lo && f < hi {
			v := strconv.Itoa(f)
			edits = append(edits, Edit{Kind: KindFloorCPU, NodePool: pool, Change: fmt.Sprintf("at least %d vCPUs (%s Gt %s)", f+1, apis.LabelInstanceCPU, v),
				slot: pool + "/cpu>", apply: restrict(apis.LabelInstanceCPU, corev1.NodeSelectorOpGt, v)})
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
				slot: pool + "/" + d.key + "!=" + v, apply: restrict(d.key, corev1.NodeSelectorOpNotIn, v)})
		}
	}
	return edits
}

// widenEdits let the pool launch what its requirements keep out today: a
// category or family of the catalog (the cheapest per vCPU), newer
// generations, arm64, spot.
func widenEdits(pool string, reqs requirements.Requirements, catalog instancetypes.Catalog) []Edit {
	var edits []Edit
	for _, w := range []struct{ kind, key, what string }{
		{KindAddCategory, apis.LabelInstanceCategory, "category"},
		{KindAddFamily, apis.LabelInstanceFamily, "family"},
	} {
		r, ok := reqs.Lookup(w.key)
		if !ok || r.Operator() != corev1.NodeSelectorOpIn {
			continue
		}
		for _, c := range cheapestOutside(catalog, reqs, w.key, widenCandidates) {
			v, note := c.value, ""
			if c.arm64 {
				note = ", arm64"
			}
			edits = append(edits, Edit{Kind: w.kind, NodePool: pool, Change: fmt.Sprintf("also %s %s%s (%s In += %s)", w.what, v, note, w.key, v),
				slot: pool + "/" + w.key + "+=" + v, apply: widen(w.key, v)})
		}
	}
	if r, ok := reqs.Lookup(apis.LabelInstanceGeneration); ok {
		if _, _, _, hasLte := r.Bounds(); hasLte || r.Operator() == corev1.NodeSelectorOpIn {
			edits = append(edits, Edit{Kind: KindAllowNewerGenerations, NodePool: pool, Change: "newer generations (no upper bound or In list on " + apis.LabelInstanceGeneration + ")",
				slot: pool + "/generation+", apply: allowNewerGenerations})
		}
	}
	for _, w := range []struct{ kind, key, value, change string }{
		{KindAllowArm64, corev1.LabelArchStable, apis.ArchitectureArm64, "also arm64 (" + corev1.LabelArchStable + " In += arm64)"},
		{KindAllowSpot, apis.LabelCapacityType, apis.CapacityTypeSpot, "also spot (" + apis.LabelCapacityType + " In += spot)"},
	} {
		if r, ok := reqs.Lookup(w.key); ok && !r.Has(w.value) {
			edits = append(edits, Edit{Kind: w.kind, NodePool: pool, Change: w.change, slot: pool + "/" + w.key + "+=" + w.value, apply: widen(w.key, w.value)})
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
		slot: pool + "/weight", apply: func(np *apis.NodePool) { np.Spec.Weight = &weight }}, true
}

// restrict returns an edit that adds a requirement, or tightens the pool's
// requirement of the same key and operator: NotIn gains the value, Lt
// takes the smaller bound, Gt the larger.
func restrict(key string, op corev1.NodeSelectorOperator, value string) func(*apis.NodePool) {
	return func(np *apis.NodePool) {
		reqs := np.Spec.Template.Spec.Requirements
		for i := range reqs {
			r := &reqs[i]
			if r.Key != key || r.Operator != op {
				continue
			}
			switch op {
			case corev1.NodeSelectorOpNotIn:
				if !slices.Contains(r.Values, value) {
					r.Values = append(r.Values, value)
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

// widen returns an edit that adds the value to the pool's In requirements
// on key and takes it out of its NotIn ones.
func widen(key, value string) func(*apis.NodePool) {
	return func(np *apis.NodePool) {
		reqs := np.Spec.Template.Spec.Requirements
		for i := range reqs {
			r := &reqs[i]
			if r.Key != key {
				continue
			}
			switch r.Operator {
			case corev1.NodeSelectorOpIn:
				if !slices.Contains(r.Values, value) {
					r.Values = append(r.Values, value)
				}
			case corev1.NodeSelectorOpNotIn:
				r.Values = slices.DeleteFunc(r.Values, func(v string) bool { return v == value })
			}
		}
		// A NotIn left without values is not valid: it excluded nothing
		// but the value, so it goes.
		np.Spec.Template.Spec.Requirements = slices.DeleteFunc(reqs, func(r apis.NodeSelectorRequirementWithMinValues) bool {
			return r.Key == key && r.Operator == corev1.NodeSelectorOpNotIn && len(r.Values) == 0
		})
	}
}

// allowNewerGenerations drops the pool's In lists and upper bounds on the
// instance generation, keeping its lower bounds.
func allowNewerGenerations(np *apis.NodePool) {
	np.Spec.Template.Spec.Requirements = slices.DeleteFunc(np.Spec.Template.Spec.Requirements, func(r apis.NodeSelectorRequirementWithMinValues) bool {
		return r.Key == apis.LabelInstanceGeneration && (r.Operator == corev1.NodeSelectorOpIn || r.Operator == corev1.NodeSelectorOpLt || r.Operator == apis.NodeSelectorOpLte)
	})
}

// outside is a value of a label the pool keeps out, and whether the
// cheapest type that has it is arm64 (which pods must be able to run on).
type outside struct {
	value   string
	perCPU  float64
	arm64   bool
	visited bool
}

// cheapestOutside returns up to n values of key, sorted, that the pool's
// requirements keep out but that some type of the catalog has and the
// pool's other requirements allow: those whose cheapest offering costs
// least per vCPU.
func cheapestOutside(catalog instancetypes.Catalog, reqs requirements.Requirements, key string, n int) []outside {
	others := reqs.Without(key)
	best := map[string]outside{}
	for _, it := range catalog {
		labels := it.Labels()
		v, ok := labels[key]
		if !ok || reqs.Get(key).Has(v) || !it.Requirements.IntersectsFast(others) {
			continue
		}
		o, ok := it.CheapestOffering(others)
		cpu, okCPU := intLabel(it, apis.LabelInstanceCPU)
		if !ok || !okCPU || cpu == 0 {
			continue
		}
		perCPU := o.Price / float64(cpu)
		if old := best[v]; !old.visited || perCPU < old.perCPU {
			best[v] = outside{value: v, perCPU: perCPU, arm64: labels[apis.LabelArch] == apis.ArchitectureArm64, visited: true}
		}
	}
	values := make([]outside, 0, len(best))
	for _, o := range best {
		values = append(values, o)
	}
	slices.SortFunc(values, func(a, b outside) int {
		return cmp.Or(cmp.Compare(a.perCPU, b.perCPU), strings.Compare(a.value, b.value))
	})
	values = values[:min(n, len(values))]
	slices.SortFunc(values, func(a, b outside) int { return strings.Compare(a.value, b.value) })
	return values
}

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

func intLabel(it *instancetypes.InstanceType, key string) (int, bool) {
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
