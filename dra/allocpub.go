package dra

import (
	"cmp"
	"math"
	"slices"

	resourcev1 "k8s.io/api/resource/v1"

	"github.com/karpsim/karpsim/requirements"
)

// The allocator over published devices, as Karpenter v1.15's allocator
// takes the ResourceSlices its provisioner gathers (published.go says
// which count): a node reaches the devices of the slices pinned to it
// (spec.nodeName), of allNodes slices, and of nodeSelector slices whose
// selector its labels meet; it tries them before its instance type's
// template devices, pool by pool. An initialized node has no template
// devices, an uninitialized one has its type's. A new NodeClaim reaches the
// allNodes slices' devices, the nodeSelector slices' its requirements may
// meet (taking one narrows them), and its types' templates. A published
// device is not free while a claim of the cluster no pod refers to holds
// it (less what pods migrating off their nodes hold: a multi-allocatable
// device gives back their share), while another node of the solve holds
// it, whatever instance type that node's NodeClaim ends up as; a claim a
// pod refers to holds its devices where that pod runs (pins).

// external is what a search must leave of the published devices: the
// exclusive devices others hold, and the capacity others consume of the
// multi-allocatable ones.
type external struct {
	taken map[deviceID]bool
	used  map[deviceID]map[string]int64
}

// reachable are the published devices a node reaches: an existing node's
// (named, with its labels) or, for "", a new NodeClaim's, ordered by pool.
func (t *Translator) reachable(node string, labels map[string]string) []published {
	var out []published
	if node != "" {
		out = append(out, t.nodeLocal[node]...)
	}
	var have requirements.Requirements
	if labels != nil {
		have = requirements.FromLabels(labels)
	}
	for _, d := range t.shared {
		if d.topology != nil && node != "" {
			// An existing node reaches a nodeSelector slice's devices
			// when its labels meet the selector; a new NodeClaim may
			// (the search narrows its requirements).
			dr, err := requirements.FromNodeSelectorRequirements(d.topology.NodeSelectorTerms[0].MatchExpressions...)
			if err != nil || have.Intersects(dr) != nil {
				continue
			}
		}
		out = append(out, d)
	}
	slices.SortStableFunc(out, func(a, b published) int {
		return cmp.Or(cmp.Compare(a.id.driver, b.id.driver), cmp.Compare(a.id.pool, b.id.pool))
	})
	return out
}

// Node is the state of an existing node before its pods are placed: with
// ResourceSlices given, the published devices it reaches and, unless it is
// initialized, its instance type's templates; without, nil (its type's
// devices).
func (t *Translator) Node(name, instanceType string, labels map[string]string) any {
	if !t.published {
		return nil
	}
	td := t.nodeTypes[name]
	if td == nil {
		var templates []Template
		if initialized, known := t.state.Nodes[name]; !known || !initialized {
			if it := t.typeNames[instanceType]; it != nil {
				templates = t.DevicesOf(it)
			}
		}
		td = devicesOf(t.reachable(name, labels), templates)
		t.nodeTypes[name] = td
	}
	return emptyNode(td)
}

// external sums what the cluster's claims and the holders other than
// holder keep of the published devices: for each other holder, the most
// any of its states consumes.
func (t *Translator) external(holder string, held map[string][]any) *external {
	// The devices of claims a pod refers to are held by that pod's
	// demand (pins) on its node: only the others are taken outright.
	ext := &external{taken: t.unaccounted, used: t.consumed}
	if len(t.nodeLocal) == 0 && len(t.shared) == 0 {
		return ext
	}
	copied := false
	own := func() {
		if copied {
			return
		}
		copied = true
		taken := make(map[deviceID]bool, len(ext.taken))
		for id, v := range ext.taken {
			taken[id] = v
		}
		used := make(map[deviceID]map[string]int64, len(ext.used))
		for id, u := range ext.used {
			used[id] = cloneUsage(u)
		}
		ext.taken, ext.used = taken, used
	}
	for h, states := range held {
		if h == holder {
			continue
		}
		most := map[deviceID]map[string]int64{}
		for _, st := range states {
			n, _ := st.(*nodeDevices)
			if n == nil {
				continue
			}
			for i, pub := range n.of.published {
				if !pub {
					continue
				}
				id := n.of.ids[i]
				if n.taken[i] {
					own()
					ext.taken[id] = true
				}
				for name, v := range n.used[i] {
					if most[id] == nil {
						most[id] = map[string]int64{}
					}
					most[id][name] = max(most[id][name], v)
				}
			}
		}
		for _, id := range slices.SortedFunc(mapKeys(most), func(a, b deviceID) int { return cmp.Compare(a.String(), b.String()) }) {
			own()
			if ext.used[id] == nil {
				ext.used[id] = map[string]int64{}
			}
			for name, v := range most[id] {
				ext.used[id][name] = addCapped(ext.used[id][name], v)
			}
		}
	}
	return ext
}

func cloneUsage(u map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(u))
	for k, v := range u {
		out[k] = v
	}
	return out
}

// addCapped adds two non-negative shares, saturating rather than
// wrapping: a sum past what an int64 holds exceeds every capacity anyway.
func addCapped(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// consumeAllocated counts what the claims of the cluster consume of the
// multi-allocatable published devices, as Karpenter's provisioner seeds
// its allocator: a device whose every consumer is migrating off its node
// is free; otherwise each claim whose reserving pods all migrate gives its
// share back, and a capacity nobody consumes any more is free.
func (t *Translator) consumeAllocated() {
	t.consumed = map[deviceID]map[string]int64{}
	type share struct {
		pods     []string
		capacity map[string]int64
		// held is set when a pod refers to the claim: that pod holds
		// the share (pins), it counts only in whether every consumer
		// of the device migrates.
		held bool
	}
	shares := map[deviceID][]share{}
	var ids []deviceID
	referenced := t.referencedClaims()
	for _, c := range t.sortedClaims() {
		a := c.Status.Allocation
		if a == nil {
			continue
		}
		pods := podConsumers(c)
		mine := referenced[key(c.Namespace, c.Name)] && !t.reallocated(c)
		for _, r := range a.Devices.Results {
			id := deviceID{r.Driver, r.Pool, r.Device}
			if !t.multiAllocatable[id] {
				continue
			}

			if _, ok := shares[id]; !ok {
				ids = append(ids, id)
			}
			capacity := map[string]int64{}
			for name, q := range r.ConsumedCapacity {
				capacity[bareName(r.Driver, string(name))] = min(q.Value(), maxShare)
			}
			shares[id] = append(shares[id], share{pods, capacity, mine})
		}
	}
	moving := func(pods []string) bool {
		return len(pods) > 0 && !slices.ContainsFunc(pods, func(p string) bool { return !t.state.Moving[p] })
	}
	for _, id := range ids {
		var all []string
		for _, s := range shares[id] {
			all = append(all, s.pods...)
		}
		if moving(all) {
			continue
		}
		used := map[string]int64{}
		for _, s := range shares[id] {
			if s.held {
				continue
			}
			for name, v := range s.capacity {
				used[name] = addCapped(used[name], v)
			}
		}
		for _, s := range shares[id] {
			if s.held || !moving(s.pods) {
				continue
			}
			for name, v := range s.capacity {
				if _, ok := used[name]; !ok {
					continue
				}
				if used[name] -= v; used[name] <= 0 {
					delete(used, name)
				}
			}
		}
		if len(used) > 0 {
			t.consumed[id] = used
		}
	}
}

// pins gives an allocated claim its devices to hold, in the demand of one
// pod only (the first bound one, else the first given): it reports
// whether pod is that one.
func (t *Translator) pins(c *resourcev1.ResourceClaim, pod string, ac *allocClaim) bool {
	k := key(c.Namespace, c.Name)
	owner, ok := t.owners[k]
	if !ok {
		owner = pod
		t.owners[k] = owner
	}
	if owner != pod {
		return false
	}
	ac.pinned = nil
	for _, r := range c.Status.Allocation.Devices.Results {
		p := pin{id: deviceID{r.Driver, r.Pool, r.Device}}
		if len(r.ConsumedCapacity) > 0 {
			p.capacity = map[string]int64{}
			for name, q := range r.ConsumedCapacity {
				p.capacity[bareName(r.Driver, string(name))] = min(q.Value(), maxShare)
			}
		}
		ac.pinned = append(ac.pinned, p)
	}
	return true
}

// heldInCluster reports whether an allocated claim keeps its devices where
// they are: with ResourceSlices and the allocator, Karpenter allocates it
// no more, unless every pod reserving it migrates. The pod that holds it
// takes its devices on its node (pins), so that a move elsewhere
// allocates it anew.
func (t *Translator) heldInCluster(c *resourcev1.ResourceClaim) bool {
	return t.alloc && t.published && c != nil && c.Status.Allocation != nil && !t.reallocated(c)
}

// clusterOnly reports whether every request of an allocated claim holds
// published devices no node owns: its pods then need no common node.
func (t *Translator) clusterOnly(c *resourcev1.ResourceClaim) bool {
	shared := t.sharedAllocation(c)
	if len(shared) == 0 {
		return false
	}
	for _, v := range shared {
		if !v {
			return false
		}
	}
	return true
}
