package scheduling

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

// A claim's cheapest option is looked for from where the last one was only
// while its prices rise in the pool's order: under a pod's on-demand
// selector the pool's order (by each type's cheapest offering, spot) is
// not the order of the claim's prices, and the cheapest type that holds
// the grown claim comes before the last one. Here on-demand prices put
// "c-mid" (4 cpus) before "a-small" and "b-large", while spot prices put
// "b-large" (8 cpus) before "c-mid": once a claim of c-mid outgrows it,
// b-large is its cheapest, and PackCheapest's plans with the memos are the
// plans without.
func TestCheapestLooksBackOutsidePoolOrder(t *testing.T) {
	typ := func(name string, cpus int64, spot, onDemand float64) *instancetypes.InstanceType {
		it, err := instancetypes.NewInstanceType(instancetypes.Spec{
			Name:     name,
			Labels:   map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux"},
			Capacity: resources.New(cpus*1000, cpus*4<<30, 110),
			Offerings: []instancetypes.Offering{
				{Zone: "test-zone-1", CapacityType: apis.CapacityTypeSpot, Price: spot, Available: true},
				{Zone: "test-zone-1", CapacityType: apis.CapacityTypeOnDemand, Price: onDemand, Available: true},
			},
		})
		require.NoError(t, err)
		return it
	}
	catalog := catalogOf(t, typ("a-small", 2, 0.01, 0.10), typ("b-large", 8, 0.02, 0.12), typ("c-mid", 4, 0.05, 0.08))
	pools := []Pool{{NodePool: newPool("default"), InstanceTypes: catalog}}
	for n := 1; n <= 7; n++ {
		in := Input{Pods: pods(n, "web", "1", "1Gi", withNodeSelector(apis.LabelCapacityType, apis.CapacityTypeOnDemand)), NodePools: pools}
		for _, packing := range []Packing{PackCheapest, PackEfficient, PackBalanced} {
			opts := Options{Packing: packing}
			shareWork = false
			want, _ := Prepare(pools, nil, opts).SolveBelow(in, 0)
			shareWork = true
			got, _ := Prepare(pools, nil, opts).SolveBelow(in, 0)
			require.Empty(t, got.Unschedulable, "%d pods, packing %v", n, packing)
			assert.Equal(t, plan(t, want), plan(t, got), "%d pods, packing %v", n, packing)
		}
	}
}
