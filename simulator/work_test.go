package simulator

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/snapshot"
)

func TestEstimateWorkCountsWhatStepsImply(t *testing.T) {
	steps := []step{
		{at: time.Hour, arrivals: &arrivalsStep{deployment: "default/batch", perHour: 30, meanLifetime: 20 * time.Minute, until: 9 * time.Hour}},
		{at: 0, traffic: &trafficStep{deployment: "default/web", every: time.Hour, period: 24 * time.Hour, replicas: []int32{2, 5, 3}}},
		{at: 2 * time.Hour, scale: &scaleStep{deployment: "default/web", replicas: 7}},
		{at: 48 * time.Hour, scale: &scaleStep{deployment: "default/late", replicas: 1000}}, // after the end: never fires
	}
	w := estimateWork(24*time.Hour, steps)
	// arrivals: 30/h over 8 h = 240, 10 alive (30/h × 20 min); traffic:
	// 25 firings in 9 cycles of 2, 5, 3: 2 at first, then a rise of 3
	// (2 → 5) a cycle; scale: 7.
	assert.InDelta(t, 240+2+3*9+7, w.created, 1e-9)
	assert.InDelta(t, 10+7, w.live, 1e-9, "web's most replicas, once, and the arrivals alive")
	assert.InDelta(t, 480+25+1, w.events, 1e-9)
}

func TestCheckWorkNamesTheStepAndTheFlag(t *testing.T) {
	sc := Scenario{Seed: 1}
	sc.Duration.Duration = 1000 * time.Hour
	sc.Steps = []Step{{Scale: &ScaleStep{Deployment: "web", Replicas: 3}},
		{Arrivals: &ArrivalsStep{Deployment: "batch", PerHour: 3600}}}
	sc.Steps[1].Arrivals.MeanLifetime.Duration = 2000 * time.Hour
	err := CheckWork(sc, Config{})
	require.ErrorIs(t, err, ErrInvalidScenario)
	assert.ErrorContains(t, err, "steps[1]: arrivals of 3600 an hour over 1000h0m0s with a mean lifetime of 2000h0m0s: about 3,600,000 pods alive at once")
	assert.ErrorContains(t, err, "--max-pods")

	sc.Steps[1].Arrivals.MeanLifetime.Duration = time.Minute
	sc.Steps[1].Arrivals.PerHour = 10
	require.NoError(t, CheckWork(sc, Config{}), "10,003 pods over 1,000 h")
	err = CheckWork(sc, Config{Snapshot: snapshot.Options{MaxPods: 5000}})
	assert.ErrorContains(t, err, "about 10,000 pods created; the run would create about 10,003, more than 5,000")
}
