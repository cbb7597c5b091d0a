package scheduling

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// A Prepared keeps what its solves work out from the NodePools alone
// (priced options, reservations) from one solve to the next, per price
// cap: a long run of solves of varied pods, nodes and caps must each
// answer as a fresh preparation answers it.
func TestPreparedSolvesAlikeAfterManySolves(t *testing.T) {
	catalog, err := instancetypes.NewCatalog(append(append([]*instancetypes.InstanceType{}, fake...), reservedCatalog(t)...)...)
	require.NoError(t, err)
	pools := []Pool{
		{NodePool: newPool("default"), InstanceTypes: catalog},
		{NodePool: newPool("spot", withWeight(3), withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot),
			withLimit(corev1.ResourceCPU, "40")), InstanceTypes: catalog},
	}
	daemons := []*corev1.Pod{daemonSet("logging", "100m", "64Mi")}
	for _, opts := range []Options{{}, {Packing: PackCheapest}, {ReservedFallback: true}} {
		shared := Prepare(pools, daemons, opts)
		shared.RememberNodes()
		rng := rand.New(rand.NewPCG(3, 0))
		nodes := []*Node{makeNode("node-a", "default", true, "4", "8Gi"), makeNode("node-b", "spot", true, "8", "16Gi")}
		for i := range 150 {
			var ps []*corev1.Pod
			for j := range 1 + rng.IntN(8) {
				var o []podOption
				switch rng.IntN(5) {
				case 0:
					o = append(o, withNodeSelector(apis.LabelTopologyZone, fmt.Sprintf("test-zone-%d", 1+rng.IntN(3))))
				case 1:
					o = append(o, withNodeSelector(apis.LabelCapacityType, []string{apis.CapacityTypeSpot, apis.CapacityTypeOnDemand, apis.CapacityTypeReserved}[rng.IntN(3)]))
				}
				ps = append(ps, newPod(fmt.Sprintf("p-%d-%d", i, j), fmt.Sprintf("%dm", 100+rng.IntN(6000)), fmt.Sprintf("%dMi", 128+rng.IntN(8192)), o...))
			}
			in := Input{Pods: ps, Nodes: nodes[:rng.IntN(3)]}
			limit := []float64{0, 0.5, 1.3, 2.2, 0.2}[rng.IntN(5)]
			want, wantNarrowed := Prepare(pools, daemons, opts).SolveBelow(in, limit)
			got, narrowed := shared.SolveBelow(in, limit)
			require.Equal(t, wantNarrowed, narrowed, "solve %d", i)
			require.Equal(t, want, got, "solve %d, below %v, options %+v", i, limit, opts)
		}
	}
}
