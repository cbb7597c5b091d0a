package consolidation

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// A cache shared across evaluations decides exactly what evaluations
// without one decide: over clusters that change between evaluations while
// their NodePools stay (the cache is used), NodePools that are replaced (it
// is not), and nodes whose labels change in place.
func TestCacheDecidesAsNoCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	cache := &Cache{}
	var nodePools []scheduling.Pool
	marshal := func(d Decision) string {
		b, err := json.Marshal(d)
		require.NoError(t, err)
		return string(b)
	}
	for i := range 400 {
		c := randomCluster(rng)
		if i%40 == 0 {
			nodePools = c.NodePools
		}
		c.NodePools = nodePools
		opts := Options{SpotToSpotConsolidation: i%3 == 0}
		want := marshal(Evaluate(c, now, opts))
		opts.Cache = cache
		require.Equal(t, want, marshal(Evaluate(c, now, opts)), "cluster %d", i)

		// The same nodes, moved to another zone in place.
		for _, n := range c.Nodes {
			if n.Node.Labels[apis.LabelTopologyZone] == "test-zone-1" {
				n.Node.Labels[apis.LabelTopologyZone] = "test-zone-2"
			} else {
				n.Node.Labels[apis.LabelTopologyZone] = "test-zone-1"
			}
		}
		opts.Cache = nil
		want = marshal(Evaluate(c, now, opts))
		opts.Cache = cache
		require.Equal(t, want, marshal(Evaluate(c, now, opts)), "cluster %d, zones swapped", i)
	}
}
