package scheduling

import (
	"fmt"
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// offeringRequirementKeys are the requirement keys an offeringFilter
// reads besides the offerings' own labels.
var offeringRequirementKeys = [...]string{apis.LabelTopologyZone, apis.LabelCapacityType, apis.LabelCapacityReservationID, apis.LabelCapacityReservationType}

// sameOfferingRequirements reports whether reqs state exactly what from's
// requirements state on every key an offering filter reads: the zone,
// capacity type and reservation keys and the keys of its options'
// offering labels. The offerings reqs allow of each option are then those
// from's allow, at the same prices.
func sameOfferingRequirements(reqs requirements.Requirements, from *template) bool {
	same := func(key string) bool {
		a, aok := reqs.Lookup(key)
		b, bok := from.requirements.Lookup(key)
		return aok == bok && (!aok || string(a.AppendKey(nil)) == string(b.AppendKey(nil)))
	}
	for _, key := range offeringRequirementKeys {
		if !same(key) {
			return false
		}
	}
	for _, key := range from.offeringLabelKeys() {
		if !same(key) {
			return false
		}
	}
	return true
}

// offeringLabelKeys are the distinct keys of the options' offering labels,
// sorted, read once.
func (t *template) offeringLabelKeys() []string {
	if t.labelKeys.read {
		return t.labelKeys.keys
	}
	var keys []string
	for _, o := range t.options {
		for i := range o.it.Offerings {
			if k := o.it.Offerings[i].Label.Key; k != "" && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	t.labelKeys.read, t.labelKeys.keys = true, keys
	return keys
}

// narrowOptions gives t, a pool narrowing from with the same offering
// requirements (sameOfferingRequirements), the options of from whose type
// meets filter, the requirements t changed: each keeps its available
// offerings, price, price order and exoticness, and only its DaemonSet
// overhead is worked out again, t's DaemonSets being those its own
// requirements admit. The options come out as compileTemplate makes them
// from the whole catalog.
func (t *template) narrowOptions(from *template, filter requirements.Requirements, daemons []*podInfo, catalogSize int) {
	slab := make([]typeOption, 0, len(from.options))
	for _, fo := range from.options {
		it := fo.it
		if !it.Requirements.IntersectsFast(filter) {
			continue
		}
		var overhead resources.Vector
		var ports []hostPort
		for _, d := range daemons {
			if t.daemonRuns(d, it) {
				overhead = overhead.Add(*d.requests)
				ports = append(ports, d.hostPorts...)
			}
		}
		t.daemonPorts = t.daemonPorts || len(ports) > 0
		t.volumeLimited = t.volumeLimited || len(it.VolumeAttachmentLimits) > 0
		room := fo.room
		if !overhead.Equal(fo.daemons) {
			room = it.Allocatable().Sub(overhead)
		}
		slab = append(slab, typeOption{it: it, daemons: overhead, room: room, daemonPorts: ports, exotic: fo.exotic, price: fo.price, index: len(slab)})
		t.options = append(t.options, &slab[len(slab)-1])
		t.largest.Raise(&it.Capacity)
	}
	if len(t.options) == 0 {
		t.refused = fmt.Sprintf("no instance type of %d matches the NodePool's requirements (%s) with an available offering", catalogSize, t.requirements)
	}
}
