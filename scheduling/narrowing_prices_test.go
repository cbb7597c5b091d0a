package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
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
