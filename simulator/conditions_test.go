package simulator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/repair"
)

// A nodeCondition step is checked when the scenario is parsed: the error
// names the file, line, step and field.
func TestNodeConditionStepsAreChecked(t *testing.T) {
	const head = "name: x\nduration: 1h\nsteps:\n"
	for _, c := range []struct{ step, want string }{
		{`{at: 1m, nodeCondition: {type: Ready, status: "False"}}`,
			`my.yaml:4: invalid scenario: steps[0] (nodeCondition): nodeCondition needs exactly one of node and nodePool`},
		{`{at: 1m, nodeCondition: {node: a, nodePool: default, type: Ready, status: "False"}}`,
			`my.yaml:4: invalid scenario: steps[0] (nodeCondition a): nodeCondition needs exactly one of node and nodePool`},
		{`{at: 1m, nodeCondition: {node: a, count: 2, type: Ready, status: "False"}}`,
			`my.yaml:4: invalid scenario: steps[0] (nodeCondition a): nodeCondition count 2 goes with nodePool, not node`},
		{`{at: 1m, nodeCondition: {nodePool: default, count: -1, type: Ready, status: "False"}}`,
			`my.yaml:4: invalid scenario: steps[0] (nodeCondition default): nodeCondition count -1 is negative`},
		{`{at: 1m, nodeCondition: {nodePool: default, status: "False"}}`,
			`my.yaml:4: invalid scenario: steps[0] (nodeCondition default): nodeCondition needs a type`},
		{`{at: 1m, nodeCondition: {nodePool: default, type: Ready, status: 3}}`,
			`my.yaml:4: invalid scenario: steps[0] (nodeCondition default): nodeCondition status "3" is not True, False or Unknown`},
		{`{at: 1m, nodeCondition: {nodePool: default, type: Ready, status: Broken}}`,
			`my.yaml:4: invalid scenario: steps[0] (nodeCondition default): nodeCondition status "Broken" is not True, False or Unknown`},
		{`{at: 1m, nodeCondition: {nodePool: default, type: Ready, staus: "False"}}`,
			`my.yaml:4: invalid scenario: steps[0] (nodeCondition default): nodeCondition: unknown field "staus" (did you mean status?)`},
	} {
		_, err := ParseScenarioFile("my.yaml", []byte(head+"- "+c.step+"\n"))
		require.ErrorIs(t, err, ErrInvalidScenario, c.step)
		assert.EqualError(t, err, c.want, c.step)
	}
}

// repairScenario is testdata's node-repair scenario with the step setting
// the condition replaced by steps (YAML list items, one a line).
func repairScenario(t *testing.T, steps string) Scenario {
	t.Helper()
	sc, err := LoadScenario("../testdata/scenarios/node-repair.yaml")
	require.NoError(t, err)
	override, err := ParseScenario([]byte("duration: 1h\nsteps:\n- " + strings.ReplaceAll(steps, "\n", "\n- ") + "\n"))
	require.NoError(t, err)
	sc.Steps = append(sc.Steps[:1], override.Steps...)
	return sc
}

// awsRepair is the AWS provider's repair policies, as simulate
// --feature-gates NodeRepair=true sets them (with reboot, as its
// RebootForRepair gate sets them).
func awsRepair(t *testing.T, reboot bool) Config {
	t.Helper()
	m, err := repair.Compile((&provider.AWS{RebootForRepair: reboot}).RepairPolicies())
	require.NoError(t, err)
	return Config{Consolidation: consolidation.Options{NodeRepair: m}}
}

// repairTimeline is the run's decisions other than binds, one a line.
func repairTimeline(res *Result) string {
	var b strings.Builder
	for _, d := range res.Timeline {
		if d.Kind != KindBind {
			fmt.Fprintf(&b, "%s %s %s %s\n", d.At.Duration, d.Kind, d.Method, strings.Join(d.Nodes, ","))
		}
	}
	return b.String()
}

// A node NotReady is replaced when the AWS policy's 30 minutes have passed
// since the condition's transition, not before; without NodeRepair it
// stays; Ready=True is healthy and nothing happens.
func TestNodeConditionDrivesRepair(t *testing.T) {
	for _, c := range []struct {
		name, step string
		repair     bool
		reboot     bool
		want       []string
		absent     []string
	}{
		{name: "NotReady, repaired after 30m", repair: true,
			step: `{at: 10m, nodeCondition: {node: default-00002, type: Ready, status: "False"}}`,
			want: []string{"10m0s node-condition  default-00002\n", "40m0s launch  default-00004\n", "40m57s replace repair default-00002\n"}},
		// The unrelated condition at 14m puts the controller's 5-minute
		// rechecks off the toleration's end: it wakes for the end itself.
		{name: "repaired at the first poll after the toleration", repair: true,
			step: "{at: 12m33s, nodeCondition: {node: default-00002, type: Ready, status: \"False\"}}\n" +
				"{at: 14m, nodeCondition: {node: default-00001, type: Custom, status: \"True\"}}",
			want: []string{"42m40s launch  default-00004\n"}},
		{name: "Unknown is repaired too", repair: true,
			step: `{at: 5m, nodeCondition: {nodePool: default, type: Ready, status: unknown}}`,
			want: []string{"5m0s node-condition  default-00001\n", "35m0s launch  default-00004\n", "replace repair default-00001\n"}},
		{name: "without the gate nothing is repaired",
			step:   `{at: 10m, nodeCondition: {node: default-00002, type: Ready, status: False}}`,
			want:   []string{"10m0s node-condition  default-00002\n"},
			absent: []string{"repair"}},
		{name: "a healthy condition is left alone", repair: true,
			step:   `{at: 10m, nodeCondition: {nodePool: default, count: 3, type: Ready, status: "True"}}`,
			want:   []string{"10m0s node-condition  default-00001,default-00002,default-00003\n"},
			absent: []string{"repair"}},
		{name: "two of three unhealthy trips the breaker", repair: true,
			step:   `{at: 10m, nodeCondition: {nodePool: default, count: 2, type: Ready, status: "False"}}`,
			want:   []string{"10m0s node-condition  default-00001,default-00002\n"},
			absent: []string{"repair"}},
		{name: "a reboot is not modelled, and said so", repair: true, reboot: true,
			step:   `{at: 10m, nodeCondition: {node: default-00002, type: AcceleratedHardwareReady, status: "False", reason: XID48}}`,
			want:   []string{"20m0s disruption-aborted repair default-00002\n"},
			absent: []string{"launch  default-00004"}},
		{name: "an unknown node fails the step", repair: true,
			step: `{at: 10m, nodeCondition: {node: nope, type: Ready, status: "False"}}`,
			want: []string{"10m0s step-failed  \n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var cfg Config
			if c.repair {
				cfg = awsRepair(t, c.reboot)
			}
			res, err := Run(context.Background(), repairScenario(t, c.step), cfg)
			require.NoError(t, err)
			got := repairTimeline(res)
			for _, w := range c.want {
				assert.Contains(t, got, w)
			}
			for _, a := range c.absent {
				assert.NotContains(t, got, a)
			}
		})
	}
}

// A condition set again with the same status keeps its transition time, so
// repair's toleration still counts from the first change.
func TestWithConditionKeepsTheTransitionOfAnUnchangedStatus(t *testing.T) {
	t0 := time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)
	h := registeredHealth(t0)
	c := h.Conditions[0]
	c.Status = "False"
	later := withCondition(h, c, t0.Add(time.Minute))
	again := withCondition(later, c, t0.Add(time.Hour))
	assert.Equal(t, t0.Add(time.Minute), again.Conditions[0].LastTransitionTime.UTC())
	assert.Equal(t, "True", string(h.Conditions[0].Status), "the node's former Health is not changed")
	assert.Len(t, again.Conditions, 1)
}

// The nodes a run starts with carry their Node objects' conditions,
// creation times and annotations: disrupt's node-repair input, run from its instant, has
// its NotReady node replaced at the first poll (eligible since 11:45), its
// do-not-repair node kept, and its GPU node with a fatal XID replaced once
// its 10 minutes are over, at 12:05.
func TestManifestNodesCarryTheirConditions(t *testing.T) {
	sc, err := ParseScenario([]byte("duration: 15m\nstart: 2026-03-03T12:00:00Z\nmanifests: [../testdata/disrupt/node-repair/input.yaml]\n"))
	require.NoError(t, err)
	res, err := Run(context.Background(), sc, awsRepair(t, false))
	require.NoError(t, err)
	var repaired []string
	var gpuAt time.Duration
	for _, d := range res.Timeline {
		if d.Kind == KindReplace && d.Method == consolidation.MethodRepair {
			repaired = append(repaired, d.Nodes...)
		}
		if d.Kind == KindLaunch && strings.Contains(d.Reason, "replaces ip-10-0-7-17") {
			gpuAt = d.At.Duration
		}
	}
	assert.Equal(t, []string{"ip-10-0-1-11.ec2.internal", "ip-10-0-7-17.ec2.internal"}, repaired, repairTimeline(res))
	assert.GreaterOrEqual(t, gpuAt, 5*time.Minute)
	assert.Less(t, gpuAt, 5*time.Minute+DisruptionInterval+time.Second)
}
