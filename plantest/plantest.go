// Package plantest is capacity planning for Go tests: load a cluster's
// manifests, plan what Karpenter would launch for its pending pods or
// simulate a scenario over virtual time, and assert that cost, node count
// and pending time stay within bounds — or that a NodePool change does not
// make a workload dearer — with failure messages that say by how much and
// where to look.
//
// The helpers take a TB (testing.T and testing.B satisfy it), so that a
// platform team's test reads as its policy:
//
//	before := plantest.Simulate(t, plantest.Variant(day, "nodepool-before.yaml"))
//	after := plantest.Simulate(t, plantest.Variant(day, "nodepool-after.yaml"))
//	plantest.CostIncreaseWithin(t, before, after, 0.05)
//
// A scenario that defines its own NodePool is varied with Replace (the
// NodePools and EC2NodeClasses of a file take the place of the scenario's
// of the same name) or PatchNodePools and PatchEC2NodeClasses (JSON merge
// patches, by the sweep's rules, package manifests/patch); SimulateWith
// takes a simulator.Config (the optimizing planner, the Cluster
// Autoscaler); PlanCostIncreaseWithin compares two plans. Failure messages
// name each variant and give the cost by NodePool, capacity type and
// instance type.
//
// Loading and running helpers stop the test (Fatalf) on an error, since
// nothing after them can run; assertions report (Errorf) and return whether
// they held, so that one test can report every bound it breaks.
package plantest

import (
	"context"
	"slices"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/simulator"
	"github.com/karpsim/karpsim/snapshot"
)

// TB is the part of testing.TB the helpers use; a fake one lets the
// assertions themselves be tested.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Load reads manifests (files or folders) into a cluster snapshot, with
// the embedded default NodePool when they hold none. It stops the test on
// a manifest karpsim refuses.
func Load(t TB, paths ...string) *snapshot.Snapshot {
	t.Helper()
	set, err := manifests.Load(paths...)
	if err != nil {
		t.Fatalf("plantest: loading %v: %v", paths, err)
		return nil
	}
	snap, err := snapshot.FromSet(set, snapshot.Options{})
	if err != nil {
		t.Fatalf("plantest: reading %v as a cluster: %v", paths, err)
		return nil
	}
	return snap
}

// Plan reads manifests and returns what Karpenter would launch for their
// pending pods (scheduling.Solve with default options).
func Plan(t TB, paths ...string) scheduling.Result {
	t.Helper()
	snap := Load(t, paths...)
	if snap == nil {
		return scheduling.Result{}
	}
	return scheduling.Solve(snap.Input(scheduling.Options{}))
}

// LoadScenario reads a scenario file (see simulator.Scenario); it stops
// the test on a file karpsim refuses.
func LoadScenario(t TB, path string) simulator.Scenario {
	t.Helper()
	sc, err := simulator.LoadScenario(path)
	if err != nil {
		t.Fatalf("plantest: %v", err)
	}
	return sc
}

// Variant returns a copy of the scenario with more manifests (files or
// folders, relative to the test's working directory): the same workload on
// another NodePool, say. Its name gains the files' names ("shop-day +
// nodepool-gen7.yaml"), so that failure messages tell variants apart. The
// scenario itself is not changed.
func Variant(sc simulator.Scenario, manifests ...string) simulator.Scenario {
	sc.Name = variantName(sc.Name, manifests)
	sc.Manifests = append(slices.Clone(sc.Manifests), manifests...)
	sc.Steps = slices.Clone(sc.Steps)
	return sc
}

// Simulate runs the scenario with the in-memory cloud and returns the
// result; it stops the test when the scenario cannot run or one of its
// decisions breaks an invariant (package invariants).
func Simulate(t TB, sc simulator.Scenario) *simulator.Result {
	t.Helper()
	res, err := simulator.Run(context.Background(), sc, simulator.Config{CheckInvariants: true})
	if err != nil {
		t.Fatalf("plantest: simulating %s: %v", scenarioName(sc.Name), err)
		return nil
	}
	return res
}

func scenarioName(name string) string {
	if name == "" {
		return "the scenario"
	}
	return "scenario " + name
}

// AverageCostPerHour is the run's total cost spread over its duration.
func AverageCostPerHour(r *simulator.Result) float64 {
	if r == nil || r.Duration.Duration <= 0 {
		return 0
	}
	return r.TotalCost / r.Duration.Hours()
}

// peakSample is the sample with the most nodes (the costliest on a tie,
// then the earliest), the final state included.
func peakSample(r *simulator.Result, better func(a, b simulator.Sample) bool) simulator.Sample {
	peak := r.Final
	for _, s := range r.Samples {
		if better(s, peak) {
			peak = s
		}
	}
	return peak
}

func moreNodes(a, b simulator.Sample) bool {
	return a.Nodes > b.Nodes || a.Nodes == b.Nodes && a.CostPerHour > b.CostPerHour
}

func dearer(a, b simulator.Sample) bool { return a.CostPerHour > b.CostPerHour }

// runName names a result in failure messages.
func runName(r *simulator.Result) string {
	return scenarioName(r.Scenario) + " (seed " + itoa(r.Seed) + ", " + r.Duration.Duration.String() + ")"
}

func itoa(n uint64) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
