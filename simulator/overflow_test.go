package simulator

import (
	"context"
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// dearest prices every offering at the most karpsim reads.
type dearest struct{}

func (dearest) OnDemandPrice(string) (float64, bool)     { return apis.MaxPricePerHour, true }
func (dearest) SpotPrice(string, string) (float64, bool) { return apis.MaxPricePerHour, true }

// The run's cost sums price × hours over nodes in float64: at the dearest
// price karpsim reads (apis.MaxPricePerHour) it is exact and finite, and
// the result still writes as JSON.
func TestCostAtTheLargestPriceStaysFinite(t *testing.T) {
	cfg := Config{CheckInvariants: true}
	cfg.Snapshot.Catalog = func(nc *apis.EC2NodeClass) (instancetypes.Catalog, error) {
		return instancetypes.NewAWS(instancetypes.EmbeddedFacts(), instancetypes.AWSOptions{NodeClass: nc, Prices: dearest{}})
	}
	res, err := Run(context.Background(), Scenario{Seed: 1, Duration: dur(2 * time.Hour), Inline: inflate, Steps: []Step{scaleAt(0, 3)}}, cfg)
	require.NoError(t, err)
	noViolations(t, res)
	nodes := res.Final.Nodes
	require.Positive(t, nodes, timeline(res))
	// Each node runs from its launch (within the first minute) to the end.
	if hi, lo := 1e6*2*float64(nodes), 1e6*(2-1.0/60)*float64(nodes); math.IsInf(res.TotalCost, 0) || res.TotalCost > hi || res.TotalCost < lo {
		t.Errorf("total cost %v for %d nodes at $1e6 an hour over 2 h; want %v to %v", res.TotalCost, nodes, lo, hi)
	}
	_, err = json.Marshal(res)
	assert.NoError(t, err)
}
