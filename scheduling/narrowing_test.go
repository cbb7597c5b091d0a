package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// A NodePool compiled as the narrowing of another (from that one's
// options) has the options and gives the plans it has compiled from the
// whole catalog, with and without DaemonSets, reweighted or not.
func TestPrepareNarrowingEqualsFreshCompile(t *testing.T) {
	def := newPool("default")
	big := newPool("big", withWeight(5), withLimit(corev1.ResourceCPU, "30"))
	narrowings := []*apis.NodePool{
		newPool("default", withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpLt, "5")),
		newPool("default", withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpGt, "3")),
		newPool("default", withWeight(50), withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpLt, "9")),
		newPool("default", withRequirement(instancetypes.FakeLabelSize, corev1.NodeSelectorOpNotIn, "large")),
		newPool("default", withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpGt, "1000")),
		// Two keys (a pair of edits), and a key no type constrains.
		newPool("default", withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpLt, "9"), withRequirement(instancetypes.FakeLabelSize, corev1.NodeSelectorOpNotIn, "large")),
		newPool("default", withRequirement("example.com/team", corev1.NodeSelectorOpIn, "web"), withRequirement(instancetypes.FakeLabelInteger, corev1.NodeSelectorOpGt, "3")),
	}
	in := Input{Pods: append(pods(40, "web", "700m", "1Gi"), pods(7, "db", "2", "6Gi")...), Nodes: []*Node{makeNode("node-a", "default", true, "4", "8Gi")}}
	for _, daemons := range [][]*corev1.Pod{nil, {daemonSet("logging", "100m", "64Mi")}} {
		for _, opts := range []Options{{}, {Packing: PackCheapest}} {
			c := NewCompiler(daemons, opts)
			for i, np := range narrowings {
				pools := []Pool{pool(np), pool(big)}
				got := c.PrepareNarrowing(pools, map[*apis.NodePool]*apis.NodePool{np: def})
				fresh := Prepare(pools, daemons, opts)
				require.Len(t, got.templates, len(fresh.templates))
				if i < 4 {
					for _, tm := range fresh.templates {
						if tm.name == "default" {
							require.NotEmpty(t, tm.options, "narrowing %d leaves the pool types", i)
							require.Less(t, len(tm.options), len(fake), "narrowing %d narrows", i)
						}
					}
				}
				for k := range fresh.templates {
					assert.Equal(t, optionList(fresh.templates[k]), optionList(got.templates[k]), "narrowing %d, template %d", i, k)
					assert.Equal(t, fresh.templates[k].refused, got.templates[k].refused, "narrowing %d, template %d", i, k)
				}
				want := Solve(Input{Pods: in.Pods, Nodes: in.Nodes, NodePools: pools, DaemonSets: daemons, Options: opts})
				assert.Equal(t, want, got.Solve(in), "narrowing %d, %+v", i, opts)
			}
		}
	}
}

// optionList is a template's options as names, prices, rooms and indexes.
func optionList(t *template) []string {
	var out []string
	for _, o := range t.options {
		out = append(out, fmt.Sprintf("%s %s %s %g %d", o.it.Name, o.room, o.daemons, o.price, o.index))
	}
	return out
}
