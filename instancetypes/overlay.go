package instancetypes

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// NodeOverlays (karpenter.sh/v1alpha1, Karpenter v1.7.0 on, behind the
// NodeOverlay feature gate) change what the scheduling simulation believes
// of the instance types they select: the price of their offerings, and the
// extended resources they offer. Karpenter applies them to each NodePool's
// instance types before it schedules or consolidates, so launch choices,
// NodePool limits and consolidation's price comparisons all see the
// overlaid values. ApplyOverlays is that step.

// OverlayPool is a NodePool's catalog as overlays see it: an overlay may
// select on karpenter.sh/nodepool and on the labels of the NodePool's
// template, besides the instance types' own labels.
type OverlayPool struct {
	Name   string
	Labels map[string]string
	Types  Catalog
}

// OverlayNote records what overlays changed on an instance type.
type OverlayNote struct {
	// Capacity holds the extended resources overlays set, at the values
	// they set (new resources, or replacements of the type's own).
	Capacity resources.Vector
	// CapacityFrom names the overlays that set them, sorted.
	CapacityFrom []string
}

// OverlayConflict is an overlay Karpenter leaves out: on some offering or
// instance type it sets the same field as an overlay of equal weight that
// comes first, so which should win is ambiguous. Karpenter marks such an
// overlay not Ready and applies none of it (it fails open).
type OverlayConflict struct {
	Overlay string
	// With names the overlay it conflicts with; Field is "price" or
	// "capacity"; NodePool and InstanceType say where.
	With, Field, NodePool, InstanceType string
}

func (c OverlayConflict) String() string {
	return fmt.Sprintf("NodeOverlay %q is not applied: its %s conflicts with NodeOverlay %q of equal weight on instance type %s of NodePool %q (give one of them a higher weight)",
		c.Overlay, c.Field, c.With, c.InstanceType, c.NodePool)
}

// ApplyOverlays returns each pool's catalog, in pool order, with the
// overlays applied as Karpenter applies them:
//
//   - overlays are taken by weight, highest first, then by name, later in
//     the alphabet first (apis.CompareOverlays);
//   - an overlay applies to an instance type when its requirements are
//     compatible with the type's labels plus the pool's name and template
//     labels, and to those of the type's offerings whose zone and capacity
//     type its requirements allow; with no such offering it does not apply
//     to the type at all;
//   - per offering, the first overlay that sets a price wins (price
//     replaces, priceAdjustment adjusts the provider's price); per
//     instance type and resource, the first overlay that sets the resource
//     wins;
//   - an overlay that sets a field an overlay of equal weight already set
//     on the same offering (price) or type (a shared resource) is left out
//     everywhere, and reported as a conflict.
//
// Instance types no overlay touches are shared with the input; the others
// are new values carrying Overlay notes and Offering.BasePrice. Neither
// the pools nor the overlays are changed.
func ApplyOverlays(pools []OverlayPool, overlays []*apis.NodeOverlay) ([]Catalog, []OverlayConflict) {
	out := make([]Catalog, len(pools))
	for i, p := range pools {
		out[i] = p.Types
	}
	if len(overlays) == 0 {
		return out, nil
	}
	ordered := slices.Clone(overlays)
	slices.SortStableFunc(ordered, apis.CompareOverlays)
	st := newOverlayState(pools)
	var conflicts []OverlayConflict
	for _, o := range ordered {
		reqs, err := requirements.FromNodeSelectorRequirements(o.Spec.Requirements...)
		if err != nil {
			// Validate refuses such overlays; one built otherwise selects nothing.
			continue
		}
		matches := st.matches(reqs)
		if c, found := st.conflict(o, matches); found {
			conflicts = append(conflicts, c)
			continue
		}
		st.record(o, matches)
	}
	for i, p := range pools {
		out[i] = st.apply(i, p.Types)
	}
	return out, conflicts
}

// overlayMatch is one instance type of one pool an overlay applies to, and
// which of its offerings (by index).
type overlayMatch struct {
	pool, typ int
	offerings []int
}

// priceSetting is the price an offering gets, and the weight of the last
// overlay that set a price on it, as Karpenter tracks it for conflicts.
type priceSetting struct {
	overlay, change string
	lastWeight      int32
	lastOverlay     string
}

// capacitySetting is what overlays set on a type's resources, and the
// weight and resources of the last capacity overlay applied to it.
type capacitySetting struct {
	values      corev1.ResourceList
	from        map[string]bool
	lastWeight  int32
	lastOverlay string
	last        corev1.ResourceList
}

type typeKey struct{ pool, typ int }

type offeringKey struct{ pool, typ, offering int }

// overlayState is what the overlays applied so far set.
type overlayState struct {
	pools []OverlayPool
	// labels are each pool's own requirements: its name and template labels.
	labels   []requirements.Requirements
	prices   map[offeringKey]*priceSetting
	capacity map[typeKey]*capacitySetting
}

func newOverlayState(pools []OverlayPool) *overlayState {
	st := &overlayState{pools: pools, prices: map[offeringKey]*priceSetting{}, capacity: map[typeKey]*capacitySetting{}}
	for _, p := range pools {
		labels := maps.Clone(p.Labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[apis.LabelNodePool] = p.Name
		st.labels = append(st.labels, requirements.FromLabels(labels))
	}
	return st
}

// matches finds the types and offerings the overlay applies to.
func (st *overlayState) matches(reqs requirements.Requirements) []overlayMatch {
	var out []overlayMatch
	for pi, p := range st.pools {
		for ti, it := range p.Types {
			if !st.labels[pi].Intersect(it.Requirements).CompatibleFast(reqs, requirements.DenyUndefined) {
				continue
			}
			m := overlayMatch{pool: pi, typ: ti}
			for oi, of := range it.Offerings {
				if of.CompatibleUnder(it.LabelRules(), reqs) {
					m.offerings = append(m.offerings, oi)
				}
			}
			if len(m.offerings) > 0 {
				out = append(out, m)
			}
		}
	}
	return out
}

// conflict reports the first place where o sets a field an overlay of its
// weight already set.
func (st *overlayState) conflict(o *apis.NodeOverlay, matches []overlayMatch) (OverlayConflict, bool) {
	w := o.OverlayWeight()
	for _, m := range matches {
		where := func(field, with string) OverlayConflict {
			return OverlayConflict{Overlay: o.Name, With: with, Field: field, NodePool: st.poolName(m.pool), InstanceType: st.typeName(m)}
		}
		if o.HasPrice() {
			for _, oi := range m.offerings {
				if p := st.prices[offeringKey{m.pool, m.typ, oi}]; p != nil && p.lastWeight == w {
					return where("price", p.lastOverlay), true
				}
			}
		}
		if c := st.capacity[typeKey{m.pool, m.typ}]; c != nil && len(o.Spec.Capacity) > 0 && c.lastWeight == w {
			for name := range o.Spec.Capacity {
				if _, shared := c.last[name]; shared {
					return where("capacity", c.lastOverlay), true
				}
			}
		}
	}
	return OverlayConflict{}, false
}

// record applies o where it matches: fields already set by a heavier (or
// earlier) overlay stay.
func (st *overlayState) record(o *apis.NodeOverlay, matches []overlayMatch) {
	w := o.OverlayWeight()
	for _, m := range matches {
		if o.HasPrice() {
			for _, oi := range m.offerings {
				key := offeringKey{m.pool, m.typ, oi}
				p := st.prices[key]
				if p == nil {
					p = &priceSetting{overlay: o.Name, change: o.PriceChange()}
					st.prices[key] = p
				}
				p.lastWeight, p.lastOverlay = w, o.Name
			}
		}
		if len(o.Spec.Capacity) == 0 {
			continue
		}
		key := typeKey{m.pool, m.typ}
		c := st.capacity[key]
		if c == nil {
			c = &capacitySetting{values: corev1.ResourceList{}, from: map[string]bool{}}
			st.capacity[key] = c
		}
		for name, q := range o.Spec.Capacity {
			if _, set := c.values[name]; !set {
				c.values[name] = q.DeepCopy()
				c.from[o.Name] = true
			}
		}
		c.lastWeight, c.lastOverlay, c.last = w, o.Name, o.Spec.Capacity
	}
}

func (st *overlayState) poolName(i int) string { return st.pools[i].Name }

func (st *overlayState) typeName(m overlayMatch) string { return st.pools[m.pool].Types[m.typ].Name }

// apply builds pool i's catalog with what was recorded.
func (st *overlayState) apply(pool int, types Catalog) Catalog {
	var out Catalog
	for ti, it := range types {
		c := st.capacity[typeKey{pool, ti}]
		var priced []int
		for oi := range it.Offerings {
			if st.prices[offeringKey{pool, ti, oi}] != nil {
				priced = append(priced, oi)
			}
		}
		if c == nil && len(priced) == 0 {
			continue
		}
		if out == nil {
			out = slices.Clone(types)
		}
		cp := *it
		if len(priced) > 0 {
			cp.Offerings = slices.Clone(it.Offerings)
			for _, oi := range priced {
				p := st.prices[offeringKey{pool, ti, oi}]
				of := &cp.Offerings[oi]
				of.BasePrice, of.PriceOverlay = of.Price, p.overlay
				of.Price = apis.AdjustPrice(of.Price, p.change)
			}
		}
		if c != nil {
			added := resources.FromList(c.values)
			for _, name := range added.Names() {
				cp.Capacity = cp.Capacity.With(name, added.Get(name))
			}
			cp.allocatable = allocatable(cp.Capacity, cp.Overhead)
			cp.Overlay = &OverlayNote{Capacity: added, CapacityFrom: slices.Sorted(maps.Keys(c.from))}
		}
		out[ti] = &cp
	}
	if out == nil {
		return types
	}
	return out
}
