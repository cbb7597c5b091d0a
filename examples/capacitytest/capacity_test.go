package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/karpsim/karpsim/plantest"
	"github.com/karpsim/karpsim/simulator"
)

func mustScenario(t *testing.T, pool string) simulator.Scenario {
	t.Helper()
	sc, err := scenario(pool)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// The platform team's rule for NodePool changes: the day's cost may rise by
// 5% at most, the peak must be served within two minutes, and the cluster
// stays within 12 nodes.
func TestProposedNodePoolKeepsTheDayWithinBudget(t *testing.T) {
	before := plantest.Simulate(t, mustScenario(t, current))
	after := plantest.Simulate(t, mustScenario(t, proposed))
	plantest.CostIncreaseWithin(t, before, after, 0.05)
	plantest.MaxPendingP99(t, after, 2*time.Minute)
	plantest.MaxNodes(t, after, 12)
}

func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "proposed NodePool: $") {
		t.Errorf("unexpected output:\n%s", out.String())
	}
}
