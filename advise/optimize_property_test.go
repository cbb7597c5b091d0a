package advise_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/internal/scenariogen"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Advice that only narrows or reweights NodePools gives a plan of the
// NodePools as they are, so the optimizing planner, which weighs the
// same edits, is never dearer than the cheapest such advice: on the
// built-in example (where a cap at 8 vCPUs saves 17%) and on random
// clusters from internal/scenariogen (seeded), with advise's default
// options.
func TestOptimizeNeverBeatenByNarrowingAdvice(t *testing.T) {
	inputs := map[string]scheduling.Input{"example": {Pods: pods(10, "inflate", "1", "1Gi"), NodePools: defaultPools()}}
	seeds := 24
	if testing.Short() {
		seeds = 6
	}
	for seed := range uint64(seeds) {
		sc := scenariogen.Generate(seed+101, false).Scenario()
		set, err := manifests.Decode("generated", []byte(sc.Inline))
		require.NoError(t, err, "seed %d", seed+101)
		snap, err := snapshot.FromSet(set, snapshot.Options{})
		require.NoError(t, err, "seed %d", seed+101)
		inputs["seed "+itoa(seed+101)] = snap.Input(scheduling.Options{})
	}
	narrowed := 0
	for name, in := range inputs {
		r, err := advise.Advise(in, advise.Options{Top: 1 << 20})
		require.NoError(t, err, name)
		o, err := optimize.Search(in, optimize.SolveOptions{})
		require.NoError(t, err, name)
		for _, a := range r.Advice {
			narrows := true
			for _, e := range a.Edits {
				narrows = narrows && e.Narrows()
			}
			if !narrows {
				continue
			}
			narrowed++
			require.LessOrEqual(t, o.PerHour, a.PerHour*(1+1e-9), "%s: optimize's plan ($%.6f, %s) is dearer than the advice %v ($%.6f)", name, o.PerHour, o.Strategy, a.Edits, a.PerHour)
			require.GreaterOrEqual(t, o.Result.Summary.ScheduledPods, r.ScheduledPods, name)
		}
		if name == "example" {
			require.InDelta(t, 0.1331, o.PerHour, 1e-4, "the example: a cap at 8 vCPUs")
		}
	}
	t.Logf("%d narrowing or reweighting pieces of advice over %d inputs", narrowed, len(inputs))
	require.Positive(t, narrowed, "some advice narrows: the property is tested")
}

func itoa(n uint64) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
