package scheduling

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// shareWork turns on the memos that let claims alike and pods alike share
// work (claimRanks, freshOptions, cheapestAnswer, finalMemo). Only tests
// turn it off, to hold the plans with them to the plans without.
var shareWork = true

// finalMemo keeps, for one solve's finalize, what claims that ended alike
// share. Packings that open many small claims (PackCheapest above all)
// end with hundreds holding the same pods' requests on the same shared
// options: each is settled, priced and launched once.
type finalMemo struct {
	settled map[requestsKey][]settledOptions
	claims  map[requestsKey][]finalClaim
}

// optionsKey is a shared slice of options by its first element's address
// and its length.
type optionsKey struct {
	at **typeOption
	n  int
}

// requestsKey is a shared slice of options and requests by their slots.
type requestsKey struct {
	options  optionsKey
	requests resources.Slots
}

func keyOf(options []*typeOption) (optionsKey, bool) {
	if len(options) == 0 {
		return optionsKey{}, false
	}
	return optionsKey{&options[0], len(options)}, true
}

// settledOptions are the options a shared slice keeps for the requests.
type settledOptions struct {
	requests resources.Vector
	options  []*typeOption
}

// finalClaim is what finalize made of a claim, less its name and pods.
type finalClaim struct {
	requests resources.Vector
	reqs     requirements.Requirements
	claim    NodeClaim
}

// settle is claim.settle for finalize: a claim sharing its options with
// another that was settled with the same requests keeps what that one
// kept, and the options kept are shared from then on.
func (m *finalMemo) settle(c *claim) {
	options, ok := keyOf(c.options)
	if !c.stale || !c.shared || !ok || !shareWork {
		c.settle()
		return
	}
	key := requestsKey{options, c.requests.Slots()}
	for _, e := range m.settled[key] {
		if e.requests.Equal(c.requests) {
			c.options, c.stale, c.cheapest = e.options, false, -1
			c.version++
			return
		}
	}
	c.settle()
	c.shared = true
	if m.settled == nil {
		m.settled = map[requestsKey][]settledOptions{}
	}
	m.settled[key] = append(m.settled[key], settledOptions{requests: c.requests, options: c.options})
}

// key is what finalize reads of a settled claim, for a claim whose
// template launches no reservations and has no minValues: its shared
// options, its requests and its requirements other than the hostname.
func (m *finalMemo) key(c *claim) (requestsKey, bool) {
	options, ok := keyOf(c.options)
	if !ok || !c.shared || c.tmpl.reserved || c.tmpl.minValues || !shareWork {
		return requestsKey{}, false
	}
	return requestsKey{options, c.requests.Slots()}, true
}

// lookup returns a copy of the claim finalize made of a claim like c.
func (m *finalMemo) lookup(key requestsKey, c *claim) (NodeClaim, bool) {
	for _, e := range m.claims[key] {
		if e.requests.Equal(c.requests) && e.reqs.EqualWithout(c.requirements, apis.LabelHostname) {
			return e.claim.copy(), true
		}
	}
	return NodeClaim{}, false
}

// remember keeps what finalize made of c for the claims alike after it.
// It keeps nc as it is, sharing its slices and maps: nothing changes them
// before the solve's result is made, and lookup hands out copies.
func (m *finalMemo) remember(key requestsKey, c *claim, nc NodeClaim) {
	if m.claims == nil {
		m.claims = map[requestsKey][]finalClaim{}
	}
	nc.Name, nc.Pods, nc.BufferPods = "", nil, 0
	m.claims[key] = append(m.claims[key], finalClaim{requests: c.requests, reqs: c.requirements, claim: nc})
}

// copy returns the claim with slices and maps of its own, but for the
// lists of names, which claims share (see NodeClaim), clipped so that an
// append makes a copy.
func (nc NodeClaim) copy() NodeClaim {
	out := nc
	out.Requirements = make([]corev1.NodeSelectorRequirement, len(nc.Requirements))
	for i, r := range nc.Requirements {
		r.Values = slices.Clip(r.Values)
		out.Requirements[i] = r
	}
	out.InstanceTypeOptions = slices.Clip(nc.InstanceTypeOptions)
	out.LaunchOptions = slices.Clip(nc.LaunchOptions)
	out.Requests = maps.Clone(nc.Requests)
	out.MinValuesRelaxed = maps.Clone(nc.MinValuesRelaxed)
	out.Pods = slices.Clone(nc.Pods)
	return out
}
