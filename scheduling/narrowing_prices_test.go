package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// A narrowing that keeps the offering requirements takes its options'
// prices, order and exoticness from the pool it narrows; one that
// changes them (a capacity type, a zone) prices them again. Either way
// the template is the one compiled from the whole catalog.
func TestPrepareNarrowingKeepsEveryOptionField(t *testing.T) {
	def := newPool("default")
	narrowings := []*apis.NodePool{
		newPool("default", withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpLt, "5")),
		newPool("default", withRequirement(instancetypes.FakeLabelSize, corev1.NodeSelectorOpNotIn, "large")),
		newPool("default", withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand)),
		newPool("default", withRequirement(apis.LabelTopologyZone, corev1.NodeSelectorOpIn, "test-zone-1")),
		newPool("default", withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpGt, "1000")),
	}
	for _, daemons := range [][]*corev1.Pod{nil, {daemonSet("logging", "100m", "64Mi")}} {
		c := NewCompiler(daemons, Options{})
		for i, np := range narrowings {
			pools := []Pool{pool(np)}
			got := c.PrepareNarrowing(pools, map[*apis.NodePool]*apis.NodePool{np: def}).templates[0]
			want := Prepare(pools, daemons, Options{}).templates[0]
			assert.Equal(t, templateFields(want), templateFields(got), "narrowing %d, %d DaemonSets", i, len(daemons))
		}
	}
}

// templateFields are what compiling a template works out, as text.
func templateFields(t *template) []string {
	out := []string{fmt.Sprintf("refused=%q largest=%s variants=%t daemonPorts=%t volumeLimited=%t", t.refused, t.largest, t.variants, t.daemonPorts, t.volumeLimited)}
	for _, o := range t.options {
		out = append(out, fmt.Sprintf("%s room=%s daemons=%s price=%g index=%d exotic=%t ports=%v", o.it.Name, o.room, o.daemons, o.price, o.index, o.exotic, o.daemonPorts))
	}
	return out
}

// Pools narrowing one pool share its options' prices: each narrowing's
// prices and price-ordered options, under every offering filter, are
// those a pool compiled from the whole catalog works out, whichever
// narrowing asked first.
func TestNarrowingsSharePricesExactly(t *testing.T) {
	def := newPool("default")
	narrowings := []*apis.NodePool{
		newPool("default", withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpLt, "5")),
		newPool("default", withRequirement(instancetypes.FakeLabelSize, corev1.NodeSelectorOpNotIn, "large")),
		newPool("default", withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpGt, "3")),
	}
	filters := []requirements.Requirements{
		requirements.NewRequirements(),
		requirements.NewRequirements(requirements.In(apis.LabelCapacityType, apis.CapacityTypeSpot)),
		requirements.NewRequirements(requirements.In(apis.LabelCapacityType, apis.CapacityTypeOnDemand)),
		requirements.NewRequirements(requirements.In(apis.LabelTopologyZone, "test-zone-2")),
	}
	c := NewCompiler(nil, Options{})
	shared := 0
	for round := range 2 {
		for i, np := range narrowings {
			pools := []Pool{pool(np)}
			got := c.PrepareNarrowing(pools, map[*apis.NodePool]*apis.NodePool{np: def}).templates[0]
			want := Prepare(pools, nil, Options{}).templates[0]
			if got.narrowed != nil {
				shared++
			}
			for k, f := range filters {
				reqs := got.requirements.Add(f.Items()...)
				var scratch scratchSpace
				gotPrices, gotRising := got.pricesUnder(reqs, &scratch)
				wantPrices, wantRising := want.pricesUnder(reqs, &scratch)
				assert.Equal(t, wantPrices, gotPrices, "round %d, narrowing %d, filter %d", round, i, k)
				assert.Equal(t, wantRising, gotRising, "round %d, narrowing %d, filter %d", round, i, k)
				assert.Equal(t, pricedText(want.priceClaim(want.options, reqs, len(want.options), &scratch)), pricedText(got.priceClaim(got.options, reqs, len(got.options), &scratch)), "round %d, narrowing %d, filter %d", round, i, k)
			}
		}
	}
	if shared == 0 {
		t.Error("no narrowing shared its pool's prices: the test checks nothing")
	}
}

func pricedText(priced []*pricedOption) []string {
	out := make([]string, len(priced))
	for i, p := range priced {
		out[i] = fmt.Sprintf("%s %g %v %d", p.option.it.Name, p.cheapest, p.best, p.pos)
	}
	return out
}
