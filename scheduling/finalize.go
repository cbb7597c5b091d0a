package scheduling

import (
	"cmp"
	"math"
	"slices"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// result turns the solver's state into the Result.
func (s *solver) result() Result {
	r := Result{Bindings: []Binding{}, Unschedulable: []Unschedulable{}, NodeClaims: make([]NodeClaim, 0, len(s.claims))}
	for _, e := range s.existing {
		for _, p := range e.placed {
			r.Bindings = append(r.Bindings, Binding{Pod: p.key, Node: e.node.Name})
		}
	}
	slices.SortFunc(r.Bindings, func(a, b Binding) int { return cmp.Compare(a.Pod, b.Pod) })
	// Claims are reported in creation order, which sorting by pod count
	// during the solve shuffled.
	claims := slices.Clone(s.claims)
	slices.SortFunc(claims, func(a, b *claim) int {
		if c := cmp.Compare(a.tmpl.name, b.tmpl.name); c != 0 {
			return c
		}
		return cmp.Compare(claimNumber(a), claimNumber(b))
	})
	for _, c := range claims {
		r.NodeClaims = append(r.NodeClaims, s.finalize(c))
	}
	for p, err := range s.failed {
		r.Unschedulable = append(r.Unschedulable, Unschedulable{Pod: p.key, Reason: err.Error()})
	}
	slices.SortFunc(r.Unschedulable, func(a, b Unschedulable) int { return cmp.Compare(a.Pod, b.Pod) })
	r.Summary = Summary{
		Pods:              len(s.pods),
		UnschedulablePods: len(r.Unschedulable),
		ScheduledPods:     len(s.pods) - len(r.Unschedulable),
		NodeClaims:        len(r.NodeClaims),
	}
	for _, c := range r.NodeClaims {
		r.Summary.PricePerHour += c.PricePerHour
	}
	r.Summary.PricePerHour = math.Round(r.Summary.PricePerHour*1e6) / 1e6
	r.Warnings = slices.Clone(s.warnings)
	return r
}

// claimNumber is the n of a claim named "<pool>-<n>".
func claimNumber(c *claim) int {
	n := 0
	for _, ch := range c.name[len(c.tmpl.name)+1:] {
		n = n*10 + int(ch-'0')
	}
	return n
}

// finalize orders a claim's instance types by price, truncates them, and
// picks the launch offering.
func (s *solver) finalize(c *claim) NodeClaim {
	reqs := c.requirements.Without(apis.LabelHostname)
	options := orderByPrice(c.options, reqs)
	if max := s.opts.maxInstanceTypes(); len(options) > max {
		options = options[:max]
	}
	out := NodeClaim{
		Name:         c.name,
		NodePool:     c.tmpl.name,
		Requirements: reqs.NodeSelectorRequirements(),
		Requests:     c.requests.Add(minDaemons(options)).Strings(),
		Pods:         make([]string, len(c.pods)),
	}
	for i, p := range c.pods {
		out.Pods[i] = p.key
	}
	for _, o := range options {
		out.InstanceTypeOptions = append(out.InstanceTypeOptions, o.it.Name)
	}
	if it, offering, ok := launchChoice(options, reqs); ok {
		out.InstanceType, out.Zone, out.CapacityType, out.PricePerHour = it.Name, offering.Zone, offering.CapacityType, offering.Price
	}
	return out
}

// orderByPrice sorts options by their cheapest available offering the
// requirements allow, then by name.
func orderByPrice(options []*typeOption, reqs requirements.Requirements) []*typeOption {
	type priced struct {
		o     *typeOption
		price float64
	}
	ps := make([]priced, len(options))
	for i, o := range options {
		ps[i] = priced{o, cheapestPrice(o.it, reqs, "")}
	}
	slices.SortFunc(ps, func(a, b priced) int {
		if c := cmp.Compare(a.price, b.price); c != 0 {
			return c
		}
		return cmp.Compare(a.o.it.Name, b.o.it.Name)
	})
	out := make([]*typeOption, len(ps))
	for i := range ps {
		out[i] = ps[i].o
	}
	return out
}

// cheapestPrice is the lowest price of the type's available offerings the
// requirements allow, of one capacity type or of any ("").
func cheapestPrice(it *instancetypes.InstanceType, reqs requirements.Requirements, capacityType string) float64 {
	best := math.Inf(1)
	for i := range it.Offerings {
		o := &it.Offerings[i]
		if o.Available && (capacityType == "" || o.CapacityType == capacityType) && offeringAllowed(o, reqs) {
			best = min(best, o.Price)
		}
	}
	return best
}

// launchChoice is the offering the cloud provider would launch: reserved
// capacity first when allowed and offered, then spot when allowed and
// offered, else on-demand; the cheapest offering of that capacity type
// across the options, ties going to the earlier option and zone.
func launchChoice(options []*typeOption, reqs requirements.Requirements) (*instancetypes.InstanceType, instancetypes.Offering, bool) {
	for _, capacityType := range []string{apis.CapacityTypeReserved, apis.CapacityTypeSpot, apis.CapacityTypeOnDemand} {
		var bestIT *instancetypes.InstanceType
		var best instancetypes.Offering
		for _, o := range options {
			for _, offering := range o.it.Offerings {
				if !offering.Available || offering.CapacityType != capacityType || !offeringAllowed(&offering, reqs) {
					continue
				}
				if bestIT == nil || offering.Price < best.Price {
					bestIT, best = o.it, offering
				}
			}
		}
		if bestIT != nil {
			return bestIT, best, true
		}
	}
	return nil, instancetypes.Offering{}, false
}
