package dra

import (
	"fmt"
	"slices"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// The allocator: what the translation into extended resources cannot
// carry. A device request becomes a fixed count of units only when every
// device a selection picks on a node is alike and taken whole; a share of
// a multi-allocatable device's capacity, a partition drawing on counters
// it shares with others, every device of a selection (allocationMode All)
// and prioritized alternatives (firstAvailable) take what depends on the
// node and on what is taken there already. When a cluster uses any of
// them (or instance types declare their devices as templates), the
// translator allocates instead, as Karpenter v1.15's allocator does: each
// pod's claims on one node of one instance type at a time, by a
// depth-first search over the node's devices in order, taking a device's
// capacity share, its counters, and the first alternative that fits.
// Package scheduling asks it through scheduling.DeviceAllocator; pods
// then carry no device resources.

// Template is one ResourceSlice a node's driver will publish, as a cloud
// provider declares it for an instance type: devices of one pool, or the
// counter sets the pool's devices draw on (a template with counters has
// no devices).
type Template struct {
	Driver   string
	Pool     string
	Devices  []Device
	Counters []resourcev1.CounterSet
}

// allocRequest is one request of a claim: an Exactly request, or the
// alternatives of a firstAvailable one in order of preference.
type allocRequest struct {
	name string
	alts []allocAlt
}

// allocAlt is one way to satisfy a request.
type allocAlt struct {
	name     string
	sel      *selection
	all      bool
	count    int64
	capacity map[string]resource.Quantity
}

// allocClaim is one claim a pod allocates: its requests and the
// attributes its constraints require to match.
type allocClaim struct {
	requests []allocRequest
	matches  []allocMatch
	// pinned are the published devices the claim is allocated in the
	// cluster, with what it consumes of each multi-allocatable one.
	pinned []pin
}

// pin is one device of an allocated claim.
type pin struct {
	id       deviceID
	capacity map[string]int64
}

// allocMatch is a MatchAttribute constraint: the devices of the named
// requests (all when none) share the attribute's value.
type allocMatch struct {
	requests  []string
	attribute string // without the domain
	domain    string
}

// typeDevices are the devices of one instance type, indexed for the
// allocator: every device with its pool, and the pools' counter budgets.
type typeDevices struct {
	devices []Device
	// pools are the devices' pool keys (driver/pool) by index.
	pools []string
	// ids name the devices published in the cluster (ResourceSlices), by
	// index; published marks them. Template devices have no id: they are
	// the node's own, never held by another.
	ids       []deviceID
	published []bool
	index     map[deviceID]int
	// topology is, by index, what taking a device of a nodeSelector
	// slice requires of the node (nil: nothing).
	topology []*requirements.Requirements
	// invalid pools have a device drawing on a counter its pool does not
	// define: none of their devices can be allocated.
	invalid map[string]bool
	// budget is each pool's counters: pool → set → counter → value.
	budget map[string]map[string]map[string]int64
}

// nodeDevices is what pods hold of one node's devices. It is never
// changed once made: allocating returns a new one.
type nodeDevices struct {
	of *typeDevices
	// taken are the devices allocated whole.
	taken []bool
	// used is, per multi-allocatable device, its capacity consumed.
	used []map[string]int64
	// counters are what devices drew from their pools' counters.
	counters map[string]int64 // pool/set/counter
}

func (n *nodeDevices) clone() *nodeDevices {
	c := &nodeDevices{of: n.of, taken: slices.Clone(n.taken), used: make([]map[string]int64, len(n.used)), counters: make(map[string]int64, len(n.counters))}
	for i, u := range n.used {
		if u != nil {
			c.used[i] = make(map[string]int64, len(u))
			for k, v := range u {
				c.used[i][k] = v
			}
		}
	}
	for k, v := range n.counters {
		c.counters[k] = v
	}
	return c
}

// maxAllocSteps bounds the devices one allocation tries, so that claims
// over many alike devices cannot make the search explode: an allocation
// not found within it fails, as Karpenter's search gives up too.
const maxAllocSteps = 100_000

// devicesOf indexes published devices a node reaches, then its templates'
// devices and counters: Karpenter's allocator tries the devices published
// in the cluster before a node's own.
func devicesOf(pub []published, templates []Template) *typeDevices {
	td := &typeDevices{invalid: map[string]bool{}, budget: map[string]map[string]map[string]int64{}, index: map[deviceID]int{}}
	for _, d := range pub {
		var top *requirements.Requirements
		if d.topology != nil {
			r, err := requirements.FromNodeSelectorRequirements(d.topology.NodeSelectorTerms[0].MatchExpressions...)
			if err != nil {
				// checkSlices refused the slice already.
				continue
			}
			top = &r
		}
		td.index[d.id] = len(td.devices)
		td.topology = append(td.topology, top)
		td.devices = append(td.devices, d.dev)
		td.pools = append(td.pools, "published:"+d.id.driver+"/"+d.id.pool)
		td.ids = append(td.ids, d.id)
		td.published = append(td.published, true)
	}
	for _, tmpl := range templates {
		pool := tmpl.Driver + "/" + tmpl.Pool
		for _, cs := range tmpl.Counters {
			if td.budget[pool] == nil {
				td.budget[pool] = map[string]map[string]int64{}
			}
			set := map[string]int64{}
			for name, c := range cs.Counters {
				set[name] = c.Value.Value()
			}
			td.budget[pool][cs.Name] = set
		}
	}
	for _, tmpl := range templates {
		if len(tmpl.Counters) > 0 {
			// A slice of counters carries no devices.
			continue
		}
		pool := tmpl.Driver + "/" + tmpl.Pool
		for _, d := range tmpl.Devices {
			d.Driver = tmpl.Driver
			td.devices = append(td.devices, d)
			td.pools = append(td.pools, pool)
			td.ids = append(td.ids, deviceID{})
			td.published = append(td.published, false)
			td.topology = append(td.topology, nil)
			for _, cc := range d.ConsumesCounters {
				set, ok := td.budget[pool][cc.CounterSet]
				if !ok {
					td.invalid[pool] = true
					continue
				}
				for name := range cc.Counters {
					if _, ok := set[name]; !ok {
						td.invalid[pool] = true
					}
				}
			}
		}
	}
	return td
}

// search is one allocation under way.
type search struct {
	node *nodeDevices
	// ext is what others hold of the published devices, worked out by
	// others the first time a published device is tried.
	ext    *external
	others func() *external
	// reqs are the node's requirements, narrowed by the devices of
	// nodeSelector slices taken so far; added is what those devices
	// require.
	reqs, added requirements.Requirements
	claims      []allocClaim
	steps       int
	// picked are the devices taken so far, by claim and request name.
	picked []pick
}

type pick struct {
	claim   int
	request string
	device  int
}

// allocate places the claims on the node, or says it cannot.
func (n *nodeDevices) allocate(claims []allocClaim, others func() *external, reqs requirements.Requirements) (*nodeDevices, requirements.Requirements, bool) {
	s := &search{node: n.clone(), claims: claims, others: others, reqs: reqs}
	if !s.claim(0) {
		return nil, requirements.Requirements{}, false
	}
	return s.node, s.added, true
}

func (s *search) claim(ci int) bool {
	if ci == len(s.claims) {
		return true
	}
	if undo, ok := s.pinned(ci); ok {
		if s.claim(ci + 1) {
			return true
		}
		undo()
	}
	return s.request(ci, 0)
}

// pinned takes the devices an allocated claim holds, when the node
// reaches them all and they are free to it: the claim then stays as it is
// allocated. Otherwise (its pod moved where they are not) it is allocated
// anew, as Karpenter allocates a claim whose pods all migrate.
func (s *search) pinned(ci int) (func(), bool) {
	pins := s.claims[ci].pinned
	if len(pins) == 0 {
		return nil, false
	}
	var undos []func()
	undo := func() {
		for j := len(undos) - 1; j >= 0; j-- {
			undos[j]()
		}
	}
	for _, pin := range pins {
		i, ok := s.node.of.index[pin.id]
		if !ok {
			undo()
			return nil, false
		}
		var consumed map[string]int64
		if s.node.of.devices[i].AllowMultipleAllocations {
			consumed = pin.capacity
		}
		u, ok := s.hold(i, consumed)
		if !ok {
			undo()
			return nil, false
		}
		undos = append(undos, u)
	}
	return undo, true
}

func (s *search) request(ci, ri int) bool {
	c := &s.claims[ci]
	if ri == len(c.requests) {
		return s.constraintsMet(ci) && s.claim(ci+1)
	}
	r := &c.requests[ri]
	for _, alt := range r.alts {
		if s.alternative(ci, ri, alt) {
			return true
		}
	}
	return false
}

// alternative allocates one way of a request, then the rest.
func (s *search) alternative(ci, ri int, alt allocAlt) bool {
	name := s.claims[ci].requests[ri].name
	if alt.all {
		var matching []int
		for i, d := range s.node.of.devices {
			if alt.sel.matches(d) {
				matching = append(matching, i)
			}
		}
		if len(matching) == 0 {
			return false
		}
		return s.every(ci, ri, name, alt, matching)
	}
	return s.slot(ci, ri, name, alt, alt.count)
}

// every takes each of the devices in turn, then the rest of the claims.
func (s *search) every(ci, ri int, name string, alt allocAlt, devices []int) bool {
	if len(devices) == 0 {
		return s.request(ci, ri+1)
	}
	if s.full(ci) {
		return false
	}
	undo, ok := s.take(devices[0], alt)
	if !ok {
		return false
	}
	s.picked = append(s.picked, pick{ci, name, devices[0]})
	if s.every(ci, ri, name, alt, devices[1:]) {
		return true
	}
	s.picked = s.picked[:len(s.picked)-1]
	undo()
	return false
}

// slot fills the request's remaining devices one at a time, trying the
// node's devices in order.
func (s *search) slot(ci, ri int, name string, alt allocAlt, left int64) bool {
	if left == 0 {
		return s.request(ci, ri+1)
	}
	if s.full(ci) {
		return false
	}
	for i, d := range s.node.of.devices {
		if s.steps++; s.steps > maxAllocSteps {
			return false
		}
		if !alt.sel.matches(d) {
			continue
		}
		undo, ok := s.take(i, alt)
		if !ok {
			continue
		}
		s.picked = append(s.picked, pick{ci, name, i})
		if s.slot(ci, ri, name, alt, left-1) {
			return true
		}
		s.picked = s.picked[:len(s.picked)-1]
		undo()
	}
	return false
}

// full reports whether the claim has the most devices an allocation
// result may list.
func (s *search) full(ci int) bool {
	n := 0
	for _, p := range s.picked {
		if p.claim == ci {
			n++
		}
	}
	return n >= resourcev1.AllocationResultsMaxSize
}

// take allocates device i for the alternative: whole, or its capacity
// share when it is multi-allocatable, and its counters. It returns how to
// give it back.
func (s *search) take(i int, alt allocAlt) (func(), bool) {
	var consumed map[string]int64
	if d := s.node.of.devices[i]; d.AllowMultipleAllocations {
		var ok bool
		if consumed, ok = consumedCapacity(d, alt.capacity); !ok {
			return nil, false
		}
	}
	return s.hold(i, consumed)
}

// hold takes device i: whole, or consumed of its capacities when it is
// multi-allocatable, and its counters. It returns how to give it back.
func (s *search) hold(i int, consumed map[string]int64) (func(), bool) {
	td := s.node.of
	if td.invalid[td.pools[i]] {
		return nil, false
	}
	var others map[string]int64
	if td.published[i] {
		if s.ext == nil {
			s.ext = s.others()
		}
		if s.ext.taken[td.ids[i]] {
			return nil, false
		}
		others = s.ext.used[td.ids[i]]
	}
	if top := td.topology[i]; top != nil {
		// A device of a nodeSelector slice: only where the node may
		// meet the selector, which it must then.
		if s.reqs.Intersects(*top) != nil {
			return nil, false
		}
		reqs, added := s.reqs, s.added
		s.reqs, s.added = s.reqs.Intersect(*top), s.added.Intersect(*top)
		undo, ok := s.holdDevice(i, consumed, others)
		if !ok {
			s.reqs, s.added = reqs, added
			return nil, false
		}
		return func() { undo(); s.reqs, s.added = reqs, added }, true
	}
	return s.holdDevice(i, consumed, others)
}

// holdDevice is hold's taking of the device and its counters.
func (s *search) holdDevice(i int, consumed, others map[string]int64) (func(), bool) {
	n, td := s.node, s.node.of
	d := td.devices[i]
	pool := td.pools[i]
	if d.AllowMultipleAllocations {
		for name, q := range consumed {
			total := d.Capacity[name]
			if addCapped(addCapped(n.used[i][name], others[name]), q) > total.Value() {
				return nil, false
			}
		}
	} else if n.taken[i] {
		return nil, false
	}
	for _, cc := range d.ConsumesCounters {
		for name, c := range cc.Counters {
			k := pool + "/" + cc.CounterSet + "/" + name
			if n.counters[k]+c.Value.Value() > td.budget[pool][cc.CounterSet][name] {
				return nil, false
			}
		}
	}
	for _, cc := range d.ConsumesCounters {
		for name, c := range cc.Counters {
			n.counters[pool+"/"+cc.CounterSet+"/"+name] += c.Value.Value()
		}
	}
	if d.AllowMultipleAllocations {
		if n.used[i] == nil {
			n.used[i] = map[string]int64{}
		}
		for name, q := range consumed {
			n.used[i][name] += q
		}
	} else {
		n.taken[i] = true
	}
	return func() {
		for _, cc := range d.ConsumesCounters {
			for name, c := range cc.Counters {
				n.counters[pool+"/"+cc.CounterSet+"/"+name] -= c.Value.Value()
			}
		}
		if d.AllowMultipleAllocations {
			for name, q := range consumed {
				n.used[i][name] -= q
			}
		} else {
			n.taken[i] = false
		}
	}, true
}

// consumedCapacity is what a request takes of a multi-allocatable
// device's capacities: for each, the amount it asks rounded up by the
// capacity's request policy, or the policy's default (the whole capacity
// without one) when it asks none. A request naming a capacity the device
// lacks, or an amount its policy does not allow, cannot take it.
func consumedCapacity(d Device, requests map[string]resource.Quantity) (map[string]int64, bool) {
	for name := range requests {
		if _, ok := d.Capacity[name]; !ok {
			return nil, false
		}
	}
	out := make(map[string]int64, len(d.Capacity))
	for name, value := range d.Capacity {
		policy := d.Policies[name]
		var q resource.Quantity
		if r, ok := requests[name]; ok {
			q = roundUp(r, policy)
		} else if policy != nil && policy.Default != nil {
			q = policy.Default.DeepCopy()
		} else {
			q = value.DeepCopy()
		}
		if violates(q, policy) {
			return nil, false
		}
		out[name] = q.Value()
	}
	return out, true
}

// roundUp is the amount a request takes under the policy: at least its
// range's minimum, up to the next step, or the least valid value not
// below it.
func roundUp(r resource.Quantity, p *resourcev1.CapacityRequestPolicy) resource.Quantity {
	switch {
	case p == nil:
		return r.DeepCopy()
	case p.ValidRange != nil && p.ValidRange.Min != nil:
		min := *p.ValidRange.Min
		if r.Cmp(min) < 0 {
			return min.DeepCopy()
		}
		if p.ValidRange.Step == nil {
			return r.DeepCopy()
		}
		step, base := p.ValidRange.Step.Value(), min.Value()
		n := (r.Value() - base + step - 1) / step
		return *resource.NewQuantity(base+n*step, resource.BinarySI)
	case p.ValidValues != nil:
		for _, v := range p.ValidValues {
			if r.Cmp(v) <= 0 {
				return v.DeepCopy()
			}
		}
	}
	return r.DeepCopy()
}

// violates reports whether an amount is outside what the policy allows
// (its default always is allowed).
func violates(q resource.Quantity, p *resourcev1.CapacityRequestPolicy) bool {
	switch {
	case p == nil || p.Default != nil && q.Cmp(*p.Default) == 0:
		return false
	case p.ValidRange != nil:
		if p.ValidRange.Max != nil && q.Cmp(*p.ValidRange.Max) > 0 {
			return true
		}
		if p.ValidRange.Step != nil && p.ValidRange.Min != nil {
			return (q.Value()-p.ValidRange.Min.Value())%p.ValidRange.Step.Value() != 0
		}
	case len(p.ValidValues) > 0:
		return !slices.ContainsFunc(p.ValidValues, func(v resource.Quantity) bool { return q.Cmp(v) == 0 })
	}
	return false
}

// constraintsMet checks the claim's MatchAttribute constraints on the
// devices it was given.
func (s *search) constraintsMet(ci int) bool {
	for _, m := range s.claims[ci].matches {
		var first any
		seen := false
		for _, p := range s.picked {
			if p.claim != ci || len(m.requests) > 0 && !slices.Contains(m.requests, p.request) {
				continue
			}
			d := s.node.of.devices[p.device]
			// Attributes are named without their driver's domain, or in
			// full when another domain's.
			v, ok := d.Attributes[m.domain+"/"+m.attribute]
			if !ok && (m.domain == "" || m.domain == d.Driver) {
				v, ok = d.Attributes[m.attribute]
			}
			if !ok {
				return false
			}
			if seen && v != first {
				return false
			}
			first, seen = v, true
		}
	}
	return true
}

// matches reports whether the device is one of the selection's.
func (sel *selection) matches(d Device) bool {
	for _, m := range sel.match {
		if !m(d) {
			return false
		}
	}
	return true
}

// DevicesOf are the templates of an instance type's devices: the ones
// declared for it (Objects.Templates), else InstanceTypeDevices as one
// pool.
func (t *Translator) DevicesOf(it *instancetypes.InstanceType) []Template {
	if tmpls, ok := t.declared[it.Name]; ok {
		return tmpls
	}
	devices := InstanceTypeDevices(it)
	if len(devices) == 0 {
		return nil
	}
	return []Template{{Driver: devices[0].Driver, Pool: it.Name, Devices: devices}}
}

// Claims reports whether the allocator places the claims of the pod
// (namespace/name): package scheduling then asks Allocate before it
// places the pod.
func (t *Translator) Claims(pod string) bool {
	_, ok := t.demand[pod]
	return ok
}

// Allocate allocates the pod's (namespace/name) claims on a node of the
// instance type that holds state already (nil: a new node's, nothing
// allocated), returning the new state; the state given is not changed. A
// type the translator does not know has no devices of its own. held are
// the states the solve's nodes keep by holder (see
// scheduling.DeviceHoldings): the published devices holders other than
// holder keep, with those the cluster's claims hold, are not free.
func (t *Translator) Allocate(state any, instanceType, pod, holder string, held map[string][]any, reqs requirements.Requirements) (any, requirements.Requirements, bool) {
	claims := t.demand[pod]
	n, _ := state.(*nodeDevices)
	if n == nil {
		td := t.typeDevices[instanceType]
		if td == nil {
			td = t.newNodeDevices(instanceType)
			t.typeDevices[instanceType] = td
		}
		n = emptyNode(td)
	}
	if len(claims) == 0 {
		return n, requirements.Requirements{}, true
	}
	out, added, ok := n.allocate(claims, func() *external { return t.external(holder, held) }, reqs)
	if !ok {
		return state, requirements.Requirements{}, false
	}
	return out, added, true
}

func emptyNode(td *typeDevices) *nodeDevices {
	return &nodeDevices{of: td, taken: make([]bool, len(td.devices)), used: make([]map[string]int64, len(td.devices)), counters: map[string]int64{}}
}

// indexTypes remembers the devices of every instance type of the catalog,
// for Allocate.
func (t *Translator) indexTypes(cat instancetypes.Catalog) {
	for _, it := range cat {
		if _, ok := t.typeDevices[it.Name]; !ok {
			t.typeDevices[it.Name] = devicesOf(t.reachable("", nil), t.DevicesOf(it))
			t.typeNames[it.Name] = it
		}
	}
}

// newNodeDevices are the devices of a new node of a type the catalog did
// not hold: the published devices it reaches only.
func (t *Translator) newNodeDevices(instanceType string) *typeDevices {
	if it := t.typeNames[instanceType]; it != nil {
		return devicesOf(t.reachable("", nil), t.DevicesOf(it))
	}
	return devicesOf(t.reachable("", nil), nil)
}

// allocClaims reads a claim's requests and constraints for the allocator.
func (t *Translator) allocClaim(spec resourcev1.ResourceClaimSpec) (allocClaim, *fieldError) {
	var c allocClaim
	for i, r := range spec.Devices.Requests {
		path := fmt.Sprintf("spec.devices.requests[%d]", i)
		req := allocRequest{name: r.Name}
		if r.Exactly != nil {
			alt, err := t.alternative(r.Exactly)
			if err != nil {
				return c, &fieldError{path + ".exactly.selectors", err.Error(), false}
			}
			alt.name = r.Name
			req.alts = []allocAlt{alt}
		}
		for j, sub := range r.FirstAvailable {
			alt, err := t.alternative(&resourcev1.ExactDeviceRequest{DeviceClassName: sub.DeviceClassName, Selectors: sub.Selectors,
				AllocationMode: sub.AllocationMode, Count: sub.Count, Capacity: sub.Capacity})
			if err != nil {
				return c, &fieldError{fmt.Sprintf("%s.firstAvailable[%d].selectors", path, j), err.Error(), false}
			}
			alt.name = r.Name + "/" + sub.Name
			req.alts = append(req.alts, alt)
		}
		c.requests = append(c.requests, req)
	}
	for _, con := range spec.Devices.Constraints {
		if con.MatchAttribute == nil {
			continue
		}
		domain, attr := splitQualified(string(*con.MatchAttribute))
		c.matches = append(c.matches, allocMatch{requests: con.Requests, attribute: attr, domain: domain})
	}
	return c, nil
}

func (t *Translator) alternative(ex *resourcev1.ExactDeviceRequest) (allocAlt, error) {
	sel, err := t.selection(ex)
	if err != nil {
		return allocAlt{}, err
	}
	alt := allocAlt{sel: sel, all: ex.AllocationMode == resourcev1.DeviceAllocationModeAll, count: max(ex.Count, 1)}
	if ex.Capacity != nil && len(ex.Capacity.Requests) > 0 {
		alt.capacity = map[string]resource.Quantity{}
		for name, q := range ex.Capacity.Requests {
			alt.capacity[string(name)] = q
		}
	}
	return alt, nil
}

// splitQualified splits a qualified name into its domain and name.
func splitQualified(s string) (domain, name string) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '/' {
			return s[:i], s[i+1:]
		}
	}
	return "", s
}

// Allocating reports whether the translator allocates claims (the
// cluster uses what extended resources cannot carry): give it to
// scheduling as Input.Devices then.
func (t *Translator) Allocating() bool { return t.alloc }
