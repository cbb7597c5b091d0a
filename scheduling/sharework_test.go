package scheduling

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
)

// Claims alike and pods alike share work (shareWork): ranks kept between
// pods, a new claim's options, its cheapest type, its launch. Over random
// workloads of replicated pods, every packing must give, solve after solve
// of one Prepared, the plan it gives with nothing shared.
func TestSharedWorkChangesNoPlan(t *testing.T) {
	small, err := instancetypes.NewCatalog(append(append([]*instancetypes.InstanceType{}, fake...), reservedCatalog(t)...)...)
	require.NoError(t, err)
	// The embedded catalog's hundreds of types and uneven prices tell
	// apart claims that a few evenly sized types would not.
	catalogs := []instancetypes.Catalog{small, instancetypes.Default()}
	rng := rand.New(rand.NewPCG(29, 5))
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	for round := range 20 {
		catalog, zones := catalogs[round%2], testZones
		if round%2 == 1 {
			zones = []string{"us-east-1a", "us-east-1b"}
		}
		pools := []Pool{{NodePool: newPool("default"), InstanceTypes: catalog}}
		if rng.IntN(2) == 0 {
			pools = append(pools, Pool{NodePool: newPool("spot", withWeight(3), withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeSpot),
				withLimit(corev1.ResourceCPU, fmt.Sprint(20+rng.IntN(60)))), InstanceTypes: catalog})
		}
		var daemons []*corev1.Pod
		if rng.IntN(2) == 0 {
			daemons = append(daemons, daemonSet("logging", "100m", "64Mi"))
		}
		opts := Options{Packing: []Packing{PackFewestPods, PackCheapest, PackEfficient, PackBalanced}[rng.IntN(4)], ReservedFallback: rng.IntN(2) == 0}
		on, off := Prepare(pools, daemons, opts), Prepare(pools, daemons, opts)
		for solve := range 6 {
			var in Input
			for app := range 1 + rng.IntN(4) {
				cpu := fmt.Sprintf("%dm", []int{250, 1000, 3500}[rng.IntN(3)])
				memory := fmt.Sprintf("%dMi", []int{512, 3072}[rng.IntN(2)])
				var o []podOption
				switch rng.IntN(6) {
				case 0, 4:
					o = append(o, withNodeSelector(apis.LabelTopologyZone, pick(zones)))
				case 1:
					o = append(o, withNodeSelector(apis.LabelCapacityType, pick([]string{apis.CapacityTypeSpot, apis.CapacityTypeOnDemand, apis.CapacityTypeReserved})))
				case 2:
					o = append(o, withLabels("app", fmt.Sprint(app)), withSpread(apis.LabelTopologyZone, 1, corev1.DoNotSchedule))
				case 3:
					o = append(o, withHostPort(8080))
				}
				for i := range 1 + rng.IntN(30) {
					in.Pods = append(in.Pods, newPod(fmt.Sprintf("r%d-s%d-a%d-%d", round, solve, app, i), cpu, memory, o...))
				}
			}
			if rng.IntN(3) == 0 {
				in.Nodes = []*Node{makeNode(fmt.Sprintf("node-%d", round), "default", true, "4", "8Gi")}
			}
			limit := []float64{0, 0, 1.3, 4}[rng.IntN(4)]
			shareWork = false
			want, _ := off.SolveBelow(in, limit)
			shareWork = true
			got, _ := on.SolveBelow(in, limit)
			require.Equal(t, plan(t, want), plan(t, got), "round %d, solve %d, options %+v, below %v", round, solve, opts, limit)
		}
	}
}

// plan is the result as JSON, with the launch options plans leave out.
func plan(t *testing.T, r Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	require.NoError(t, err)
	launches := make([][]string, len(r.NodeClaims))
	for i, c := range r.NodeClaims {
		launches[i] = c.LaunchOptions
	}
	l, err := json.Marshal(launches)
	require.NoError(t, err)
	return string(b) + string(l)
}

// Claims that share their options and prices share extraPriceScan's answer
// only at equal requests: a claim with more pods may need a larger type.
func TestClaimsShareScansOnlyAtEqualRequests(t *testing.T) {
	in := Input{
		Pods:      []*corev1.Pod{newPod("a", "300m", "128Mi", withHostPort(80)), newPod("b", "1500m", "128Mi", withHostPort(80))},
		NodePools: []Pool{pool(newPool("default"))},
		Options:   Options{Packing: PackCheapest},
	}
	s := newSolver(in)
	s.run()
	var one *claim
	var b *podInfo
	for _, c := range s.claims {
		switch c.pods[0].key {
		case "default/a":
			one = c
		case "default/b":
			b = c.pods[0]
		}
	}
	require.NotNil(t, one)
	require.NotNil(t, b)
	two := *one
	two.requests = one.requests.Add(*one.pods[0].requests)
	one.priceCheapest(&s.scratch)
	two.priceCheapest(&s.scratch)
	require.True(t, one.shared)
	require.Equal(t, one.cheapest, two.cheapest, "one type holds both")
	want1, want2 := one.extraPriceScan(b), two.extraPriceScan(b)
	require.NotEqual(t, want1, want2, "the pod needs a larger type beside two")
	r := claimRanks{valid: true, requests: *b.requests}
	require.Equal(t, want1, r.extraPrice(one, b, s))
	require.Equal(t, want2, r.extraPrice(&two, b, s))
	require.Equal(t, want1, r.extraPrice(one, b, s))
}

// findCheapest starts from the option it found last only under the same
// prices: a claim whose requirements move it to other offerings (spot to
// on-demand here) looks again.
func TestCheapestOptionFollowsThePrices(t *testing.T) {
	in := Input{
		Pods:      []*corev1.Pod{newPod("a", "1", "1Gi")},
		NodePools: []Pool{{NodePool: newPool("default"), InstanceTypes: instancetypes.Default()}},
		Options:   Options{Packing: PackCheapest},
	}
	s := newSolver(in)
	s.run()
	require.Len(t, s.claims, 1)
	c := s.claims[0]
	c.settle()
	c.priceCheapest(&s.scratch)
	spot := c.options[c.cheapest]
	c.requirements = c.requirements.Add(requirements.In(apis.LabelCapacityType, apis.CapacityTypeOnDemand))
	c.cheapest = -1
	c.priceCheapest(&s.scratch)
	fresh := *c
	fresh.lowest, fresh.cheapest = nil, -1
	fresh.priceCheapest(&s.scratch)
	require.NotSame(t, spot, fresh.options[fresh.cheapest], "on-demand's cheapest type is another")
	require.Same(t, fresh.options[fresh.cheapest], c.options[c.cheapest])
}
