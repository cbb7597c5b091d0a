package simulator

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/consolidation"
)

func TestTrafficReplicasListRepeatsAndSkipsTicksThatChangeNothing(t *testing.T) {
	res := run(t, Scenario{Seed: 1, Duration: dur(50 * time.Minute), Steps: []Step{
		{At: dur(0), Traffic: &TrafficStep{Deployment: "inflate", Every: dur(10 * time.Minute), Replicas: []int32{2, 4, 4, 1}}},
		scaleAt(15*time.Minute, 9),
	}})
	var got []string
	for _, d := range kinds(res, KindScale) {
		got = append(got, d.At.Duration.String()+"="+strings.Fields(d.Reason)[4])
	}
	// 20m repeats 4 but finds the scale step's 9, so it applies; with
	// no scale step it would be skipped (see below). 40m and 50m start the
	// list again.
	assert.Equal(t, []string{"0s=2:", "10m0s=4:", "15m0s=9:", "20m0s=4:", "30m0s=1:", "40m0s=2:", "50m0s=4:"}, got, timeline(res))
	assert.Equal(t, 4, res.Final.Pods)

	res = run(t, Scenario{Seed: 1, Duration: dur(30 * time.Minute), Steps: []Step{
		{At: dur(0), Traffic: &TrafficStep{Deployment: "inflate", Every: dur(10 * time.Minute), Replicas: []int32{2, 4, 4, 1}}},
	}})
	got = nil
	for _, d := range kinds(res, KindScale) {
		got = append(got, d.At.Duration.String())
	}
	assert.Equal(t, []string{"0s", "10m0s", "30m0s"}, got, "20m finds 4 replicas already")
}

func TestTrafficCosinePeaksAtPeakAt(t *testing.T) {
	st, err := (&TrafficStep{Deployment: "web", Min: 4, Max: 40, PeakAt: dur(14 * time.Hour)}).compile()
	require.NoError(t, err)
	assert.Equal(t, int32(40), st.replicasAt(14))
	assert.Equal(t, int32(4), st.replicasAt(2))
	assert.Equal(t, int32(22), st.replicasAt(8))
	assert.Equal(t, int32(22), st.replicasAt(20))
	assert.Equal(t, int32(40), st.replicasAt(38), "the curve repeats daily")
	def, err := (&TrafficStep{Deployment: "web", Max: 10}).compile()
	require.NoError(t, err)
	assert.Equal(t, int32(10), def.replicasAt(12), "peaks at half the period by default")
	assert.Equal(t, int32(0), def.replicasAt(0))
}

func TestTrafficOverADayFollowsTheCurve(t *testing.T) {
	res := run(t, Scenario{Seed: 3, Duration: dur(24 * time.Hour), SampleEvery: dur(time.Hour), Steps: []Step{
		{At: dur(0), Traffic: &TrafficStep{Deployment: "inflate", Min: 2, Max: 60, PeakAt: dur(12 * time.Hour)}},
	}})
	// Samples are taken on the hour, right after that hour's scaling.
	byHour := map[time.Duration]Sample{}
	for _, s := range res.Samples {
		byHour[s.At.Duration] = s
	}
	night, noon := byHour[0], byHour[12*time.Hour+0]
	assert.Equal(t, 2, night.Pods)
	assert.Equal(t, 60, noon.Pods)
	at1pm := byHour[13*time.Hour]
	at3am := byHour[3*time.Hour]
	assert.Greater(t, at1pm.Nodes, at3am.Nodes, "more nodes in the afternoon than at night:\n%+v", res.Samples)
	m := res.DisruptionsByMethod
	assert.Positive(t, m[consolidation.MethodEmptiness]+m[consolidation.MethodMultiNode]+m[consolidation.MethodSingleNode],
		"scale-downs are consolidated: %v", m)
}

func arrivalsScenario(seed uint64, interrupt bool) Scenario {
	sc := Scenario{Seed: seed, Duration: dur(2 * time.Hour), Steps: []Step{
		{At: dur(0), Arrivals: &ArrivalsStep{Deployment: "inflate", PerHour: 60, MeanLifetime: dur(10 * time.Minute), Until: dur(90 * time.Minute)}},
	}}
	if interrupt {
		sc.Steps = append(sc.Steps, Step{At: dur(time.Hour), Interrupt: &InterruptStep{Count: 1}})
	}
	return sc
}

func TestArrivalsArePoissonAndLeave(t *testing.T) {
	res := run(t, arrivalsScenario(5, false))
	arrived, left := kinds(res, KindArrive), kinds(res, KindDepart)
	// 90 expected over 90 minutes; 4 standard deviations is ±38.
	assert.InDelta(t, 90, len(arrived), 38)
	for _, d := range arrived {
		assert.LessOrEqual(t, d.At.Duration, 90*time.Minute)
	}
	// Lifetimes average 10 minutes: nearly every pod has left half an
	// hour after the last arrival.
	assert.Greater(t, len(left), len(arrived)-10)
	assert.Equal(t, len(arrived)-len(left), res.Final.Pods)
	if res.Final.Pods == 0 {
		assert.Zero(t, res.Final.Nodes, "idle nodes were consolidated:\n%s", timeline(res))
	}
	assert.Positive(t, res.PendingTime.Count)

	again := run(t, arrivalsScenario(5, false))
	assert.Equal(t, marshal(t, res), marshal(t, again), "same seed, same run")
	other := run(t, arrivalsScenario(6, false))
	assert.NotEqual(t, len(kinds(other, KindArrive)), 0)
	assert.NotEqual(t, timeline(res), timeline(other), "another seed, other arrivals")
}

func TestArrivalsDoNotMoveWhenOtherStepsDrawRandomNumbers(t *testing.T) {
	plain := kinds(run(t, arrivalsScenario(9, false)), KindArrive)
	withInterrupt := kinds(run(t, arrivalsScenario(9, true)), KindArrive)
	require.Equal(t, len(plain), len(withInterrupt))
	for i := range plain {
		assert.Equal(t, plain[i].At, withInterrupt[i].At)
	}
}

func TestRepeatingStepsRefuseBadInput(t *testing.T) {
	for name, doc := range map[string]string{
		"traffic no deployment":  "duration: 1m\nsteps: [{at: 0s, traffic: {max: 3}}]\n",
		"traffic both curves":    "duration: 1m\nsteps: [{at: 0s, traffic: {deployment: x, replicas: [1], max: 3}}]\n",
		"traffic min above max":  "duration: 1m\nsteps: [{at: 0s, traffic: {deployment: x, min: 5, max: 3}}]\n",
		"traffic no curve":       "duration: 1m\nsteps: [{at: 0s, traffic: {deployment: x}}]\n",
		"traffic negative value": "duration: 1m\nsteps: [{at: 0s, traffic: {deployment: x, replicas: [1, -2]}}]\n",
		"arrivals no rate":       "duration: 1m\nsteps: [{at: 0s, arrivals: {deployment: x, meanLifetime: 1m}}]\n",
		"arrivals no lifetime":   "duration: 1m\nsteps: [{at: 0s, arrivals: {deployment: x, perHour: 3}}]\n",
		"arrivals until early":   "duration: 1h\nsteps: [{at: 10m, arrivals: {deployment: x, perHour: 3, meanLifetime: 1m, until: 5m}}]\n",
		"interrupt negative":     "duration: 1h\nsteps: [{at: 0s, interrupt: {perHour: -1}}]\n",
		"interrupt too fast":     "duration: 1h\nsteps: [{at: 0s, interrupt: {perHour: 1e9}}]\n",
		"arrivals too fast":      "duration: 1h\nsteps: [{at: 0s, arrivals: {deployment: x, perHour: 1e9, meanLifetime: 1m}}]\n",
		"traffic too often":      "duration: 1h\nsteps: [{at: 0s, traffic: {deployment: x, every: 1ms, max: 3}}]\n",
		"interrupt until alone":  "duration: 1h\nsteps: [{at: 0s, interrupt: {until: 30m}}]\n",
		"interrupt until early":  "duration: 1h\nsteps: [{at: 40m, interrupt: {perHour: 2, until: 30m}}]\n",
	} {
		_, err := ParseScenario([]byte(doc))
		if !errors.Is(err, ErrInvalidScenario) || !strings.Contains(err.Error(), "steps[0]") {
			t.Errorf("%s: error %v, want ErrInvalidScenario naming steps[0]", name, err)
		}
	}
	res := run(t, Scenario{Seed: 1, Duration: dur(time.Hour), Steps: []Step{
		{Traffic: &TrafficStep{Deployment: "nope", Max: 3}},
		{Arrivals: &ArrivalsStep{Deployment: "nope", PerHour: 3, MeanLifetime: dur(time.Minute)}},
	}})
	assert.Len(t, kinds(res, KindStepFailed), 2, timeline(res))
}

func randomInterruptions(extra ...Step) Scenario {
	return Scenario{Seed: 11, Duration: dur(3 * time.Hour), Steps: append([]Step{
		scaleAt(0, 20),
		{At: dur(10 * time.Minute), Interrupt: &InterruptStep{PerHour: 6, Until: dur(2*time.Hour + 10*time.Minute)}},
	}, extra...)}
}

func TestRandomInterruptionsArePoissonAndReplaced(t *testing.T) {
	res := run(t, randomInterruptions())
	notices := kinds(res, KindInterruption)
	// 12 expected over 2 hours; 4 standard deviations is ±14.
	assert.GreaterOrEqual(t, len(notices), 2, timeline(res))
	assert.LessOrEqual(t, len(notices), 26)
	for _, d := range notices {
		assert.GreaterOrEqual(t, d.At.Duration, 10*time.Minute)
		assert.LessOrEqual(t, d.At.Duration, 130*time.Minute)
		assert.Equal(t, "spot", d.CapacityType)
	}
	assert.Equal(t, len(notices), res.DisruptionsByMethod[MethodInterruption])
	assert.Zero(t, res.Final.PendingPods, "interrupted pods are provisioned for again")
	assert.Equal(t, 20, res.Final.Pods)

	// A step drawing from the shared source does not move them.
	moved := kinds(run(t, randomInterruptions(Step{At: dur(5 * time.Minute), Interrupt: &InterruptStep{Count: 1}})), KindInterruption)
	require.NotEmpty(t, moved)
	var later []time.Duration
	for _, d := range moved {
		if d.At.Duration > 5*time.Minute {
			later = append(later, d.At.Duration)
		}
	}
	var want []time.Duration
	for _, d := range notices {
		want = append(want, d.At.Duration)
	}
	assert.Equal(t, want, later)
}
