package scheduling

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// New claims that share their options share efficientOption's answer
// only under the same prices, for pods with the same requests: asked in
// turn for pods of several sizes under several offering filters, twice
// over, efficientOption answers as its scan does.
func TestEfficientOptionSharedOnlyAlike(t *testing.T) {
	sizes := [][2]string{{"250m", "512Mi"}, {"1", "3Gi"}, {"3500m", "512Mi"}, {"250m", "6Gi"}, {"7", "1Gi"}, {"250m", "512Mi"}}
	var in Input
	for i, size := range sizes {
		in.Pods = append(in.Pods, newPod(fmt.Sprint("p", i), size[0], size[1]))
	}
	in.NodePools = []Pool{{NodePool: newPool("default"), InstanceTypes: instancetypes.Default()}}
	in.Options = Options{Packing: PackEfficient}
	s := newSolver(in)
	require.Len(t, s.pods, len(sizes))
	tmpl := s.templates[0]
	filters := []requirements.Requirements{
		requirements.NewRequirements(),
		requirements.NewRequirements(requirements.In(apis.LabelCapacityType, apis.CapacityTypeSpot)),
		requirements.NewRequirements(requirements.In(apis.LabelCapacityType, apis.CapacityTypeOnDemand)),
		requirements.NewRequirements(requirements.In(apis.LabelTopologyZone, "us-east-1a"), requirements.In(apis.LabelCapacityType, apis.CapacityTypeSpot)),
	}
	byFilter := map[int]map[string]bool{}
	byPod := map[int]map[string]bool{}
	for round := range 2 {
		for k, f := range filters {
			for i, p := range s.pods {
				reqs := tmpl.requirements.Add(f.Items()...)
				c := &claim{tmpl: tmpl, options: tmpl.options, shared: true, requirements: reqs, cheapest: -1}
				prices, _ := tmpl.pricesUnder(reqs, &s.scratch)
				want := c.efficientScan(p, prices)
				require.NotNil(t, want)
				require.Same(t, want, c.efficientOption(p, &s.scratch), "round %d, filter %d, pod %d", round, k, i)
				if byFilter[i] == nil {
					byFilter[i] = map[string]bool{}
				}
				if byPod[k] == nil {
					byPod[k] = map[string]bool{}
				}
				byFilter[i][want.it.Name], byPod[k][want.it.Name] = true, true
			}
		}
	}
	// The test tells keys apart only if the answers differ by pod and
	// by prices.
	require.Greater(t, len(byPod[0]), 1, "every pod size finds the same type")
	differ := false
	for _, names := range byFilter {
		differ = differ || len(names) > 1
	}
	require.True(t, differ, "every offering filter finds the same type for each pod")
}
