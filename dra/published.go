package dra

import (
	"cmp"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// Devices published in the cluster (ResourceSlices), as Karpenter v1.15's
// provisioner gathers them before each scheduling loop and its allocator
// uses them:
//
//   - A slice owned by a Node (an ownerReference of kind Node) counts only
//     while that node is in the cluster state, initialized and not being
//     deleted; slices without a Node owner always count. An uninitialized
//     node offers its instance type's devices instead (no double count).
//   - Slices of one driver and pool form a pool; only the slices of its
//     highest generation count, a pool with fewer slices than its
//     resourceSliceCount is incomplete and a pool with a device name twice
//     is invalid: neither gives devices.
//   - A slice pinned to a node (spec.nodeName) gives that node its devices:
//     an initialized node offers exactly the devices of its slices, not its
//     type's. A slice with spec.allNodes gives devices every node reaches,
//     one with spec.nodeSelector devices the nodes it selects reach;
//     allocating one of those narrows the node to the selector (a zone,
//     say). Karpenter never allocates from perDeviceNodeSelection slices.
//   - A device named by a ResourceClaim's status.allocation is taken,
//     unless every pod reserving it (status.reservedFor, over all claims
//     holding it) is migrating off its node: then it is free again, and so
//     is a claim reserved only by such pods, which is allocated anew.
//
// When no ResourceSlice is given at all, nodes offer their instance type's
// devices whether initialized or not: the objects read are then taken to
// omit the slices, not to say that no driver published any.

// deviceID names a published device: driver, pool and device name, as a
// claim's allocation result names it.
type deviceID struct{ driver, pool, name string }

func (id deviceID) String() string { return id.driver + "/" + id.pool + "/" + id.name }

// published is one device of a ResourceSlice.
type published struct {
	id  deviceID
	dev Device
	// node is the node a node-local device is on, "" otherwise; topology
	// is what reaching a device of a nodeSelector slice requires of the
	// node (nil for allNodes slices).
	node     string
	topology *corev1.NodeSelector
}

// State is what the cluster's state tells of its devices beyond the DRA
// objects; see UseState.
type State struct {
	// Nodes are the nodes of the cluster state that stay, by name, each
	// true when it is initialized. Nodes being deleted are not in it.
	Nodes map[string]bool
	// Pods are the pods of the cluster, bound and pending.
	Pods []*corev1.Pod
	// Moving are the pods (namespace/name) migrating off their nodes: the
	// pods of nodes being deleted, which Karpenter reschedules.
	Moving map[string]bool
}

// checkSlices reports what karpsim cannot read of the ResourceSlices, by
// field: what the API server refuses, and what Karpenter's allocator reads
// and karpsim does not model.
func checkSlices(given []*resourcev1.ResourceSlice) []Problem {
	var problems []Problem
	for _, s := range given {
		bad := func(path, format string, args ...any) {
			problems = append(problems, Problem{s, "ResourceSlice/" + s.Name, path, fmt.Sprintf(format, args...)})
		}
		spec := &s.Spec
		if spec.Driver == "" {
			bad("spec.driver", "required")
		}
		if spec.Pool.Name == "" {
			bad("spec.pool.name", "required")
		}
		if spec.Pool.ResourceSliceCount <= 0 {
			bad("spec.pool.resourceSliceCount", "must be positive, got %d", spec.Pool.ResourceSliceCount)
		}
		if spec.Pool.Generation < 0 {
			bad("spec.pool.generation", "must not be negative, got %d", spec.Pool.Generation)
		}
		access := 0
		for _, set := range []bool{spec.NodeName != nil && *spec.NodeName != "", spec.NodeSelector != nil,
			spec.AllNodes != nil && *spec.AllNodes, spec.PerDeviceNodeSelection != nil && *spec.PerDeviceNodeSelection} {
			if set {
				access++
			}
		}
		if access != 1 {
			bad("spec", "exactly one of nodeName, nodeSelector, allNodes and perDeviceNodeSelection is required, got %d", access)
		}
		if spec.NodeSelector != nil {
			if len(spec.NodeSelector.NodeSelectorTerms) == 0 {
				bad("spec.nodeSelector.nodeSelectorTerms", "required")
			}
			for i, term := range spec.NodeSelector.NodeSelectorTerms {
				path := fmt.Sprintf("spec.nodeSelector.nodeSelectorTerms[%d]", i)
				if len(term.MatchFields) > 0 {
					bad(path+".matchFields", "not modelled by karpsim (Karpenter reads matchExpressions only)")
				}
				if _, err := requirements.FromNodeSelectorRequirements(term.MatchExpressions...); err != nil {
					bad(path+".matchExpressions", "%v", err)
				}
			}
		}
		if len(spec.SharedCounters) > 0 {
			bad("spec.sharedCounters", "not modelled by karpsim for published devices (partitionable devices)")
		}
		seen := map[string]bool{}
		for i, d := range spec.Devices {
			path := fmt.Sprintf("spec.devices[%d]", i)
			switch {
			case d.Name == "":
				bad(path+".name", "required")
			case seen[d.Name]:
				bad(path+".name", "device %q is named twice in the slice", d.Name)
			}
			seen[d.Name] = true
			if len(d.ConsumesCounters) > 0 {
				bad(path+".consumesCounters", "not modelled by karpsim for published devices (partitionable devices)")
			}
			for _, name := range slices.Sorted(mapKeys(d.Attributes)) {
				if _, err := attributeValue(d.Attributes[name]); err != nil {
					bad(fmt.Sprintf("%s.attributes[%s]", path, name), "%v", err)
				}
			}
		}
	}
	return problems
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// attributeValue is an attribute's value as selectors compare it.
func attributeValue(a resourcev1.DeviceAttribute) (any, error) {
	var v any
	n := 0
	if a.IntValue != nil {
		v, n = *a.IntValue, n+1
	}
	if a.BoolValue != nil {
		v, n = *a.BoolValue, n+1
	}
	if a.StringValue != nil {
		v, n = *a.StringValue, n+1
	}
	if a.VersionValue != nil {
		v, n = *a.VersionValue, n+1
	}
	if n != 1 {
		return nil, fmt.Errorf("exactly one of int, bool, string and version is required, got %d", n)
	}
	return v, nil
}

// deviceOf is a slice's device as selectors see it: attributes and
// capacities of the driver's own domain by their bare name, others by
// their qualified one.
func deviceOf(driver string, d resourcev1.Device) Device {
	out := Device{Driver: driver, Name: d.Name, Attributes: map[string]any{}, Capacity: map[string]resource.Quantity{}}
	for name, a := range d.Attributes {
		if v, err := attributeValue(a); err == nil {
			out.Attributes[bareName(driver, string(name))] = v
		}
	}
	for name, c := range d.Capacity {
		out.Capacity[bareName(driver, string(name))] = c.Value
		if c.RequestPolicy != nil {
			if out.Policies == nil {
				out.Policies = map[string]*resourcev1.CapacityRequestPolicy{}
			}
			out.Policies[bareName(driver, string(name))] = c.RequestPolicy
		}
	}
	out.AllowMultipleAllocations = d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations
	return out
}

func bareName(driver, name string) string {
	if len(name) > len(driver) && name[:len(driver)] == driver && name[len(driver)] == '/' {
		return name[len(driver)+1:]
	}
	return name
}

// nodeOwner is the name of the Node owning a slice, if one does.
func nodeOwner(s *resourcev1.ResourceSlice) (string, bool) {
	for _, ref := range s.OwnerReferences {
		if ref.Kind == "Node" {
			return ref.Name, true
		}
	}
	return "", false
}

// UseState gives the translator the cluster's state: which published
// devices count and which are taken (see the comment above State). Call it
// once, before NodeDevices, Reserve and Pod.
func (t *Translator) UseState(s State) {
	t.state = s
	if t.state.Moving == nil {
		t.state.Moving = map[string]bool{}
	}
	t.published = len(t.slices) > 0
	t.nodeLocal = map[string][]published{}
	t.shared = nil
	t.taken = map[deviceID]bool{}
	t.reserved = map[string][]reservation{}
	t.reservedDevices = map[deviceID]bool{}
	t.consumers = map[deviceID][]string{}
	t.nodeExtra = map[string]resources.Vector{}
	t.podNode = map[string]string{}
	for _, p := range s.Pods {
		if p.Spec.NodeName != "" {
			t.podNode[apis.PodKey(p)] = p.Spec.NodeName
		}
	}
	t.multiAllocatable = map[deviceID]bool{}
	t.nodeTypes = map[string]*typeDevices{}
	// New nodes reach the published devices too: their devices are
	// indexed again, as Allocate asks for them.
	t.typeDevices = map[string]*typeDevices{}
	t.gatherPools()
	t.takeAllocated()
	t.consumeAllocated()
	t.unaccounted = map[deviceID]bool{}
	referenced := t.referencedClaims()
	for _, c := range t.sortedClaims() {
		if c.Status.Allocation == nil || referenced[key(c.Namespace, c.Name)] {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			if id := (deviceID{r.Driver, r.Pool, r.Device}); t.taken[id] {
				t.unaccounted[id] = true
			}
		}
	}
}

// gatherPools sorts the devices of the slices that count into node-local
// ones and the others, pool by pool.
func (t *Translator) gatherPools() {
	type pool struct {
		generation, count int64
		slices            []*resourcev1.ResourceSlice
	}
	pools := map[[2]string]*pool{}
	var keys [][2]string
	for _, s := range t.slices {
		if owner, owned := nodeOwner(s); owned && !t.state.Nodes[owner] {
			continue
		}
		key := [2]string{s.Spec.Driver, s.Spec.Pool.Name}
		p := pools[key]
		switch {
		case p == nil:
			p = &pool{generation: s.Spec.Pool.Generation, count: s.Spec.Pool.ResourceSliceCount}
			pools[key] = p
			keys = append(keys, key)
		case s.Spec.Pool.Generation < p.generation:
			continue
		case s.Spec.Pool.Generation > p.generation:
			*p = pool{generation: s.Spec.Pool.Generation, count: s.Spec.Pool.ResourceSliceCount}
		}
		p.slices = append(p.slices, s)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for _, key := range keys {
		p := pools[key]
		if int64(len(p.slices)) != p.count {
			continue // incomplete
		}
		var devices []published
		names := map[string]bool{}
		valid := true
		for _, s := range p.slices {
			for _, d := range s.Spec.Devices {
				valid = valid && !names[d.Name]
				names[d.Name] = true
				pd := published{id: deviceID{key[0], key[1], d.Name}, dev: deviceOf(key[0], d)}
				switch {
				case s.Spec.NodeName != nil && *s.Spec.NodeName != "":
					pd.node = *s.Spec.NodeName
				case s.Spec.AllNodes != nil && *s.Spec.AllNodes:
				case s.Spec.NodeSelector != nil:
					pd.topology = mergedTerms(s.Spec.NodeSelector)
				default:
					continue // perDeviceNodeSelection: never allocated
				}
				devices = append(devices, pd)
			}
		}
		if !valid {
			continue
		}
		for _, d := range devices {
			if d.dev.AllowMultipleAllocations {
				t.multiAllocatable[d.id] = true
			}
			if d.node != "" {
				t.nodeLocal[d.node] = append(t.nodeLocal[d.node], d)
			} else {
				t.shared = append(t.shared, d)
			}
		}
	}
}

// mergedTerms is what allocating a device of a nodeSelector slice requires
// of the node: every term's expressions together, as Karpenter adds them.
func mergedTerms(sel *corev1.NodeSelector) *corev1.NodeSelector {
	var exprs []corev1.NodeSelectorRequirement
	for _, term := range sel.NodeSelectorTerms {
		exprs = append(exprs, term.MatchExpressions...)
	}
	return &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}}
}

// takeAllocated marks the devices the claims' allocations hold, less those
// whose every reserving pod is moving.
func (t *Translator) takeAllocated() {
	consumers := t.consumers
	var held []deviceID
	for _, c := range t.sortedClaims() {
		a := c.Status.Allocation
		if a == nil {
			continue
		}
		pods := podConsumers(c)
		for _, r := range a.Devices.Results {
			id := deviceID{r.Driver, r.Pool, r.Device}
			if t.multiAllocatable[id] {
				continue // shared by capacity (consumeAllocated)
			}
			if _, ok := consumers[id]; !ok {
				held = append(held, id)
			}
			consumers[id] = append(consumers[id], pods...)
		}
	}
	for _, id := range held {
		pods := consumers[id]
		if len(pods) > 0 && !slices.ContainsFunc(pods, func(p string) bool { return !t.state.Moving[p] }) {
			continue // reclaimed: every consumer is moving
		}
		t.taken[id] = true
	}
}

func (t *Translator) sortedClaims() []*resourcev1.ResourceClaim {
	out := make([]*resourcev1.ResourceClaim, 0, len(t.claims))
	for _, c := range t.claims {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b *resourcev1.ResourceClaim) int {
		return cmp.Compare(key(a.Namespace, a.Name), key(b.Namespace, b.Name))
	})
	return out
}

// podConsumers are the pods (namespace/name) reserving a claim.
func podConsumers(c *resourcev1.ResourceClaim) []string {
	var out []string
	for _, r := range c.Status.ReservedFor {
		if r.Resource == "pods" && r.APIGroup == "" {
			out = append(out, key(c.Namespace, r.Name))
		}
	}
	return out
}

// reallocated reports whether a claim is allocated in the cluster but
// reserved only by moving pods: Karpenter allocates it anew.
func (t *Translator) reallocated(c *resourcev1.ResourceClaim) bool {
	if c.Status.Allocation == nil || len(c.Status.ReservedFor) == 0 {
		return false
	}
	for _, r := range c.Status.ReservedFor {
		if r.Resource != "pods" || r.APIGroup != "" || !t.state.Moving[key(c.Namespace, r.Name)] {
			return false
		}
	}
	return true
}

// NodeDevices are the devices an existing node offers: with ResourceSlices
// given, an initialized node's published devices less those claims hold
// that no pod of the cluster refers to (a pod that does accounts for its
// claim's devices itself), and an uninitialized node's instance-type
// devices with any published to it by unowned slices; without, its
// instance type's devices (none when the type is unknown).
func (t *Translator) NodeDevices(name string, initialized bool, typeDevices []Device) []Device {
	var out []Device
	if !t.published || !initialized {
		out = slices.Clone(typeDevices)
		if !t.published {
			return out
		}
	}
	for _, d := range t.nodeLocal[name] {
		if !t.unaccounted[d.id] {
			out = append(out, d.dev)
		}
	}
	return out
}

// referencedClaims are the claims (namespace/name) some pod of the state
// refers to.
func (t *Translator) referencedClaims() map[string]bool {
	out := map[string]bool{}
	for _, p := range t.state.Pods {
		for _, pc := range p.Spec.ResourceClaims {
			if pc.ResourceClaimName != nil {
				out[key(p.Namespace, *pc.ResourceClaimName)] = true
			} else if name, known := generatedClaim(p, pc.Name); known && name != "" {
				out[key(p.Namespace, name)] = true
			}
		}
	}
	return out
}

// reservation is what a claim's request is given of the published devices
// every node reaches (or a selector's nodes do).
type reservation struct {
	request int
	devices []published
}

// Reserve allocates the published devices that are not node-local to the
// claims of the pods to place, before scheduling, in the order Karpenter's
// queue takes the pods (largest CPU, then memory, request first): each
// request takes free matching devices first, as Karpenter's allocator
// tries published devices before a node's own, up to its count, each
// device only where the pod's node requirements and the devices already
// given reach it. The rest of a request is asked of the node, as before.
// Call it after UseState; Pod then translates the pods with what they
// were given.
func (t *Translator) Reserve(pods []*corev1.Pod) {
	if len(t.shared) == 0 || t.alloc {
		// The allocator takes published devices as it places pods
		// (allocpub.go).
		return
	}
	ordered := slices.DeleteFunc(slices.Clone(pods), func(p *corev1.Pod) bool { return len(p.Spec.ResourceClaims) == 0 })
	type weight struct{ cpu, mem int64 }
	w := map[*corev1.Pod]weight{}
	for _, p := range ordered {
		if r, err := podRequests(p); err == nil {
			w[p] = weight{r.CPU(), r.Memory()}
		}
	}
	slices.SortStableFunc(ordered, func(a, b *corev1.Pod) int {
		return cmp.Or(cmp.Compare(w[b].cpu, w[a].cpu), cmp.Compare(w[b].mem, w[a].mem),
			a.CreationTimestamp.Time.Compare(b.CreationTimestamp.Time), cmp.Compare(a.UID, b.UID), cmp.Compare(apis.PodKey(a), apis.PodKey(b)))
	})
	for _, p := range ordered {
		if len(p.Spec.ResourceClaims) == 0 {
			continue
		}
		reqs, err := requirements.FromPod(p, requirements.StrictOnly)
		if err != nil {
			continue
		}
		for _, pc := range p.Spec.ResourceClaims {
			claimKey, spec, ok := t.claimToAllocate(p, pc)
			if !ok || t.reserved[claimKey] != nil {
				continue
			}
			rs, narrowed := t.reserveClaim(spec, reqs)
			if len(rs) > 0 {
				t.reserved[claimKey] = rs
				reqs = narrowed
			}
		}
	}
}

// claimToAllocate is the claim a pod's reference names and its spec, when
// it is still to be allocated: a claim not allocated (or reallocated), or
// a template's claim not yet generated (one per pod).
func (t *Translator) claimToAllocate(p *corev1.Pod, pc corev1.PodResourceClaim) (string, resourcev1.ResourceClaimSpec, bool) {
	generated, known := generatedClaim(p, pc.Name)
	var claim *resourcev1.ResourceClaim
	switch {
	case pc.ResourceClaimTemplateName != nil && known && generated == "":
		return "", resourcev1.ResourceClaimSpec{}, false
	case pc.ResourceClaimTemplateName != nil && known && t.claims[key(p.Namespace, generated)] != nil:
		claim = t.claims[key(p.Namespace, generated)]
	case pc.ResourceClaimTemplateName != nil:
		tmpl := t.templates[key(p.Namespace, *pc.ResourceClaimTemplateName)]
		if tmpl == nil {
			return "", resourcev1.ResourceClaimSpec{}, false
		}
		return templateClaimKey(p, pc.Name), tmpl.Spec.Spec, true
	case pc.ResourceClaimName != nil:
		claim = t.claims[key(p.Namespace, *pc.ResourceClaimName)]
	}
	if claim == nil || (claim.Status.Allocation != nil && !t.reallocated(claim)) {
		return "", resourcev1.ResourceClaimSpec{}, false
	}
	return key(claim.Namespace, claim.Name), claim.Spec, true
}

// templateClaimKey names the claim a template will be generated into for
// one pod's reference.
func templateClaimKey(p *corev1.Pod, ref string) string {
	return "template:" + apis.PodKey(p) + "/" + ref
}

// reserveClaim gives a claim's requests free published devices that reach
// nodes meeting reqs, and returns reqs narrowed by their topology.
func (t *Translator) reserveClaim(spec resourcev1.ResourceClaimSpec, reqs requirements.Requirements) ([]reservation, requirements.Requirements) {
	requests, ferr := t.requests(spec)
	if ferr != nil {
		return nil, reqs
	}
	var out []reservation
	for i, r := range requests {
		var got []published
		for _, d := range t.shared {
			if int64(len(got)) == r.count {
				break
			}
			if t.taken[d.id] || t.reservedDevices[d.id] || !r.sel.matches(d.dev) {
				continue
			}
			if d.topology != nil {
				dr, err := requirements.FromNodeSelectorRequirements(d.topology.NodeSelectorTerms[0].MatchExpressions...)
				if err != nil || reqs.Intersects(dr) != nil {
					continue
				}
				reqs = reqs.Intersect(dr)
			}
			got = append(got, d)
			t.reservedDevices[d.id] = true
		}
		if len(got) > 0 {
			out = append(out, reservation{request: i, devices: got})
		}
	}
	return out, reqs
}

// Allocated are the published devices Reserve gave each claim, by claim
// (namespace/name, or template:<pod>/<reference> for a claim a template
// will be generated into), each "driver/pool/device", sorted.
func (t *Translator) Allocated() map[string][]string {
	out := map[string][]string{}
	for claim, rs := range t.reserved {
		for _, r := range rs {
			for _, d := range r.devices {
				out[claim] = append(out[claim], d.id.String())
			}
		}
		slices.Sort(out[claim])
	}
	return out
}

// publishedReservations returns what a claim was given and the node
// selector its devices require (nil when none does).
func (t *Translator) publishedReservations(claimKey string) (map[int]int64, *corev1.NodeSelector) {
	rs := t.reserved[claimKey]
	if len(rs) == 0 {
		return nil, nil
	}
	counts := map[int]int64{}
	var exprs []corev1.NodeSelectorRequirement
	for _, r := range rs {
		counts[r.request] += int64(len(r.devices))
		for _, d := range r.devices {
			if d.topology != nil {
				exprs = append(exprs, d.topology.NodeSelectorTerms[0].MatchExpressions...)
			}
		}
	}
	if len(exprs) == 0 {
		return counts, nil
	}
	return counts, &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: exprs}}}
}

// sharedAllocation reports, for an allocated claim, which of its requests
// hold only published devices no node owns (their devices are the
// cluster's, not a node's: the pod asks nothing of its node for them).
func (t *Translator) sharedAllocation(c *resourcev1.ResourceClaim) map[string]bool {
	if !t.published || c.Status.Allocation == nil {
		return nil
	}
	shared := map[deviceID]bool{}
	for _, d := range t.shared {
		shared[d.id] = true
	}
	out := map[string]bool{}
	for _, r := range c.Status.Allocation.Devices.Results {
		id := deviceID{r.Driver, r.Pool, r.Device}
		if v, seen := out[r.Request]; seen {
			out[r.Request] = v && shared[id]
		} else {
			out[r.Request] = shared[id]
		}
	}
	return out
}

// publishedPart takes from a pod's claim's requests what published devices
// that no node owns hold (an allocated claim's) or were given (Reserve's):
// the pod asks those of no node. cluster is true when nothing is left to
// ask of a node (the claim is then not held to one node), topology what
// the given devices require of the node. A pod staying on its node whose
// claim holds a device that pods elsewhere hold too asks its node for the
// device anew, as Karpenter reallocates the claim when the pod moves, and
// its node is given that much more (NodeExtra) so that staying costs
// nothing.
func (t *Translator) publishedPart(p *corev1.Pod, pc corev1.PodResourceClaim, claim *resourcev1.ResourceClaim, reqs []request) (rest []request, cluster bool, topology *corev1.NodeSelector) {
	if len(reqs) == 0 || t.taken == nil {
		return reqs, false, nil
	}
	podKey := apis.PodKey(p)
	if claim != nil && claim.Status.Allocation != nil && !t.reallocated(claim) {
		shared := t.sharedAllocation(claim)
		node := t.podNode[podKey]
		staying := node != "" && !t.state.Moving[podKey]
		for i, r := range reqs {
			if !shared[claim.Spec.Devices.Requests[i].Name] {
				rest = append(rest, r)
				continue
			}
			if staying && t.heldElsewhere(claim, node) {
				rest = append(rest, r)
				t.nodeExtra[node] = t.nodeExtra[node].Add(resources.Vector{}.With(r.sel.resource, r.count)).
					Add(resources.Vector{}.With(ResourceDevices, r.count))
			}
		}
		return rest, len(rest) == 0, nil
	}
	claimKey := templateClaimKey(p, pc.Name)
	if claim != nil {
		claimKey = key(claim.Namespace, claim.Name)
	}
	counts, topology := t.publishedReservations(claimKey)
	if counts == nil {
		return reqs, false, nil
	}
	for i, r := range reqs {
		if r.count -= counts[i]; r.count > 0 {
			rest = append(rest, r)
		}
	}
	return rest, len(rest) == 0, topology
}

// heldElsewhere reports whether a device the claim holds is also held by a
// pod that is not on node.
func (t *Translator) heldElsewhere(c *resourcev1.ResourceClaim, node string) bool {
	for _, r := range c.Status.Allocation.Devices.Results {
		for _, pod := range t.consumers[deviceID{r.Driver, r.Pool, r.Device}] {
			if t.podNode[pod] != node {
				return true
			}
		}
	}
	return false
}

// NodeExtra is what a node offers beyond its devices for the claims of its
// pods that ask it for devices they hold elsewhere (publishedPart); call
// it after translating the node's pods.
func (t *Translator) NodeExtra(name string, capacity, allocatable corev1.ResourceList) (corev1.ResourceList, corev1.ResourceList) {
	extra := t.nodeExtra[name]
	names := extra.Names()
	if len(names) == 0 {
		return capacity, allocatable
	}
	capacity, allocatable = capacity.DeepCopy(), allocatable.DeepCopy()
	if capacity == nil {
		capacity = corev1.ResourceList{}
	}
	if allocatable == nil {
		allocatable = corev1.ResourceList{}
	}
	for _, name := range names {
		for _, l := range []corev1.ResourceList{capacity, allocatable} {
			q := l[name]
			q.Add(*resource.NewQuantity(extra.Get(name), resource.DecimalSI))
			l[name] = q
		}
	}
	return capacity, allocatable
}

// podRequests is the pod's requests, for the queue order.
func podRequests(p *corev1.Pod) (resources.Vector, error) { return resources.PodRequests(p) }
