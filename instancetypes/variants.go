package instancetypes

import "github.com/karpsim/karpsim/resources"

// Variants returns the ways the type can come, when some of its offerings
// override its capacity or overhead (Offering.Override): first the
// type as it is, with only the offerings that override nothing, then one
// copy per distinct override in offering order, with that override's
// capacity and allocatable and only the offerings that carry it. Every
// variant keeps the type's name and requirements. A type none of whose
// offerings override anything is its only variant; the type is not
// changed.
//
// Karpenter weighs a pod against each such group: an instance type fits
// when one group's allocatable holds the requests and that group has an
// available offering the requirements allow. Scheduling makes each
// variant an option of its own, which is the same test.
func (it *InstanceType) Variants() []*InstanceType {
	first := -1
	for i, o := range it.Offerings {
		if o.overrides() {
			first = i
			break
		}
	}
	if first < 0 {
		return []*InstanceType{it}
	}
	base := *it
	base.Offerings = nil
	out := []*InstanceType{&base}
	byKey := map[string]*InstanceType{"": &base}
	for _, o := range it.Offerings {
		key := o.overrideKey()
		v, ok := byKey[key]
		if !ok {
			v = it.overridden(o)
			byKey[key] = v
			out = append(out, v)
		}
		v.Offerings = append(v.Offerings, o)
	}
	return out
}

// overridden is a copy of the type with the offering's overrides applied
// and no offerings yet.
func (it *InstanceType) overridden(o Offering) *InstanceType {
	v := *it
	v.Offerings = nil
	v.Capacity = replaceNamed(it.Capacity, o.Override.Capacity)
	overhead := it.Overhead
	if o.Override.Overhead != nil {
		// The override replaces the total overhead of each resource it
		// names, whichever of the three reservations it was in.
		overhead = Overhead{KubeReserved: replaceNamed(it.Overhead.Total(), o.Override.Overhead.Total())}
	}
	v.allocatable = allocatable(v.Capacity, overhead)
	v.built = true
	return &v
}

// replaceNamed is base with each resource over names set to over's amount.
func replaceNamed(base, over resources.Vector) resources.Vector {
	out := base
	for _, name := range over.Names() {
		out = out.With(name, over.Get(name))
	}
	return out
}
