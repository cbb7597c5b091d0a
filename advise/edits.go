package advise

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/scheduling"
)

// The kinds of edit Advise tries, the family it searches. Each narrows or
// widens one requirement of one NodePool, or changes its weight. The
// narrowing and reweighting kinds are package optimize's, whose planner
// weighs the same edits (optimize.NarrowingEdits).
const (
	// KindCapCPU adds instance-cpu Lt N+1: no type of more than N vCPUs.
	KindCapCPU = optimize.KindCapCPU
	// KindFloorCPU adds instance-cpu Gt N: no type of N vCPUs or fewer.
	KindFloorCPU = optimize.KindFloorCPU
	// KindDropSize adds a size to instance-size NotIn (metal, 24xlarge…).
	KindDropSize = optimize.KindDropSize
	// KindDropFamily adds a family to instance-family NotIn.
	KindDropFamily = optimize.KindDropFamily
	// KindDropGeneration adds a generation to instance-generation NotIn.
	KindDropGeneration = optimize.KindDropGeneration
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
	KindPreferPool = optimize.KindPreferPool
)

// CommittedKey marks a NodePool as committed capacity: a label or an
// annotation karpsim.dev/committed: "true". Advise never edits such a
// NodePool, and never advises edits under which Karpenter would launch
// less on it than it does today (optimize.CommittedKey).
const CommittedKey = optimize.CommittedKey

// Edit is one change to one NodePool.
type Edit = optimize.Edit

// widenCandidates is how many categories or families of the catalog an
// add edit is tried with, the cheapest per vCPU first.
const widenCandidates = 3

// wideningEdits are the widening edits worth a solve, at most limit,
// NodePool by NodePool (by name, committed ones left out): what the
// pools' requirements keep out, from the catalog.
func wideningEdits(in scheduling.Input, limit int) []Edit {
	var out []Edit
	for _, np := range optimize.EditPools(in) {
		reqs, err := requirements.FromNodePool(np.NodePool.Spec.Template)
		if err != nil {
			continue // Solve reports a pool it cannot read; nothing to edit.
		}
		for _, e := range widenEdits(np.NodePool.Name, reqs, np.InstanceTypes) {
			if len(out) == limit {
				return out
			}
			if optimize.ChangesLaunches(np, e) {
				out = append(out, e)
			}
		}
	}
	return out
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
				Slot: pool + "/" + w.key + "+=" + v, Op: optimize.EditOp{Action: optimize.ActionWiden, Key: w.key, Value: v}})
		}
	}
	if r, ok := reqs.Lookup(apis.LabelInstanceGeneration); ok {
		if _, _, _, hasLte := r.Bounds(); hasLte || r.Operator() == corev1.NodeSelectorOpIn {
			edits = append(edits, Edit{Kind: KindAllowNewerGenerations, NodePool: pool, Change: "newer generations (no upper bound or In list on " + apis.LabelInstanceGeneration + ")",
				Slot: pool + "/generation+", Op: optimize.EditOp{Action: optimize.ActionDropUpperBounds, Key: apis.LabelInstanceGeneration}})
		}
	}
	for _, w := range []struct{ kind, key, value, change string }{
		{KindAllowArm64, corev1.LabelArchStable, apis.ArchitectureArm64, "also arm64 (" + corev1.LabelArchStable + " In += arm64)"},
		{KindAllowSpot, apis.LabelCapacityType, apis.CapacityTypeSpot, "also spot (" + apis.LabelCapacityType + " In += spot)"},
	} {
		if r, ok := reqs.Lookup(w.key); ok && !r.Has(w.value) {
			edits = append(edits, Edit{Kind: w.kind, NodePool: pool, Change: w.change, Slot: pool + "/" + w.key + "+=" + w.value, Op: optimize.EditOp{Action: optimize.ActionWiden, Key: w.key, Value: w.value}})
		}
	}
	return edits
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
		cpu, okCPU := optimize.IntLabel(it, apis.LabelInstanceCPU)
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
