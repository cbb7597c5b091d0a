package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// A template's prices under an offering filter are read from the priced
// list a launch made under the same filter (pricesOf): under every filter,
// priced first under all of them, for a pool and narrowings of it, and in
// a view of a prefix of the options (SolveBelow), they are the prices
// worked out afresh.
func TestPricesFromThePricedListAreExact(t *testing.T) {
	def := newPool("default")
	filters := []requirements.Requirements{
		requirements.NewRequirements(),
		requirements.NewRequirements(requirements.In(apis.LabelCapacityType, apis.CapacityTypeSpot)),
		requirements.NewRequirements(requirements.In(apis.LabelCapacityType, apis.CapacityTypeOnDemand)),
		requirements.NewRequirements(requirements.In(apis.LabelTopologyZone, "test-zone-2")),
		requirements.NewRequirements(requirements.In(apis.LabelTopologyZone, "test-zone-1"), requirements.In(apis.LabelCapacityType, apis.CapacityTypeSpot)),
	}
	c := NewCompiler(nil, Options{})
	narrowed := newPool("default", withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpLt, "5"))
	preps := []*Prepared{
		Prepare([]Pool{pool(def)}, nil, Options{}),
		Prepare([]Pool{{NodePool: def, InstanceTypes: instancetypes.Default()}}, nil, Options{}),
		c.PrepareNarrowing([]Pool{pool(narrowed)}, map[*apis.NodePool]*apis.NodePool{narrowed: def}),
	}
	derived := 0
	for i, p := range preps {
		base := p.templates[0]
		for _, n := range []int{len(base.options), len(base.options) / 2} {
			memo := &solveMemo{}
			view := *base
			view.options = base.options[:n]
			view.memo = memo.view(base, n)
			view.priced, view.prices = view.memo.priced, view.memo.prices
			var scratch scratchSpace
			reqs := make([]requirements.Requirements, len(filters))
			for k, f := range filters {
				reqs[k] = base.requirements.Add(f.Items()...)
				view.priceClaim(view.options, reqs[k], n, &scratch)
			}
			for k := range filters {
				key := string(appendOfferingSignature(nil, reqs[k]))
				if _, ok := view.priced[key]; ok {
					derived++
				}
				got, _ := view.pricesUnder(reqs[k], &scratch)
				want := view.optionPrices(key, reqs[k])
				assert.Equal(t, want, got, "prepared %d, %d options, filter %d", i, n, k)
			}
		}
	}
	require.NotZero(t, derived, "no prices were read from a priced list: the test checks nothing")
}
