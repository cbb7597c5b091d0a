package simulator

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// levelsAt are the values a step function given by its changes takes at t:
// the one in force just before t and every one set at t, since a sample
// taken at t may come before or after the other events of that instant.
func levelsAt[T comparable](t time.Duration, changes []time.Duration, values []T, zero T) []T {
	before := zero
	var at []T
	for i, c := range changes {
		switch {
		case c < t:
			before = values[i]
		case c == t:
			at = append(at, values[i])
		}
	}
	return append([]T{before}, at...)
}

// The node lives and pending levels are the cluster of every sample: the
// nodes launched, registered and ready, their cost per hour and the pods
// pending, at each sample's instant; and the lives add up to the run's
// total cost. Checked on every golden scenario under both autoscalers.
func TestNodeLivesAndPendingAgreeWithSamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "scenarios", "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		for _, which := range Autoscalers() {
			t.Run(filepath.Base(file)+"/"+string(which), func(t *testing.T) {
				sc, err := LoadScenario(file)
				require.NoError(t, err)
				r, err := Run(context.Background(), sc, Config{Autoscaler: which})
				require.NoError(t, err)
				checkLives(t, r)
			})
		}
	}
}

func checkLives(t *testing.T, r *Result) {
	t.Helper()
	end := r.Duration.Duration
	// Every change of a count, as +1 or -1 at an instant.
	type change struct {
		at    time.Duration
		delta int
		price float64
	}
	var launched, registered, ready []change
	total := 0.0
	names := map[string]bool{}
	for _, n := range r.Nodes {
		assert.False(t, names[n.Name], "node %s appears once", n.Name)
		names[n.Name] = true
		gone := end
		if n.Deleted != nil {
			gone = n.Deleted.Duration
			assert.GreaterOrEqual(t, gone, n.Launched.Duration, n.Name)
		}
		// A stage the node reached counts from then until its deletion.
		stage := func(cs []change, from *metav1.Duration, price float64) []change {
			if from == nil {
				return cs
			}
			cs = append(cs, change{at: from.Duration, delta: 1, price: price})
			if n.Deleted != nil {
				cs = append(cs, change{at: gone, delta: -1, price: -price})
			}
			return cs
		}
		launched = stage(launched, &n.Launched, n.PricePerHour)
		registered = stage(registered, n.Registered, 0)
		ready = stage(ready, n.Ready, 0)
		if n.Ready != nil {
			assert.LessOrEqual(t, n.PeakRequestedMilliCPU, n.AllocatableMilliCPU, n.Name)
			assert.LessOrEqual(t, n.MeanRequestedMilliCPU, float64(n.PeakRequestedMilliCPU)+1e-6, n.Name)
		}
		total += n.PricePerHour * (gone - n.Launched.Duration).Hours()
	}
	assert.InDelta(t, r.TotalCost, total, 1e-3, "the lives add up to the total cost")
	// count returns the possible values at t of a count made of changes.
	count := func(cs []change, t time.Duration) (lo, hi int, costs []float64) {
		before, cost := 0, 0.0
		for _, c := range cs {
			if c.at < t {
				before += c.delta
				cost += c.price
			}
		}
		lo, hi = before, before
		costs = []float64{cost}
		for _, c := range cs {
			if c.at == t {
				before += c.delta
				cost += c.price
				lo, hi = min(lo, before), max(hi, before)
				costs = append(costs, cost)
			}
		}
		return lo, hi, costs
	}
	var pendingAt []time.Duration
	var pendingPods []int
	for i, p := range r.Pending {
		if i > 0 {
			assert.Greater(t, p.At.Duration, r.Pending[i-1].At.Duration, "levels are in time order, one per instant")
			assert.NotEqual(t, p.Pods, r.Pending[i-1].Pods, "a level is a change")
		}
		pendingAt, pendingPods = append(pendingAt, p.At.Duration), append(pendingPods, p.Pods)
	}
	for _, s := range append(r.Samples, r.Final) {
		at := s.At.Duration
		for _, c := range []struct {
			name string
			cs   []change
			want int
		}{{"nodes", launched, s.Nodes}, {"registered", registered, s.Registered}, {"ready", ready, s.Ready}} {
			lo, hi, _ := count(c.cs, at)
			assert.True(t, lo <= c.want && c.want <= hi, "%s at %v: sample %d, lives %d..%d", c.name, at, c.want, lo, hi)
		}
		_, _, costs := count(launched, at)
		found := false
		for _, c := range costs {
			found = found || math.Abs(c-s.CostPerHour) < 1e-3
		}
		assert.True(t, found, "cost at %v: sample %v, lives %v", at, s.CostPerHour, costs)
		assert.Contains(t, levelsAt(at, pendingAt, pendingPods, 0), s.PendingPods, "pending pods at %v", at)
	}
}
