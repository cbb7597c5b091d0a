package plantest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/simulator"
)

// SimulateWith is Simulate with a simulator.Config: an optimizing
// Planner (optimize.Solve), the Cluster Autoscaler, a catalog, manifests
// read by the caller. Invariant checks are always on.
func SimulateWith(t TB, sc simulator.Scenario, cfg simulator.Config) *simulator.Result {
	t.Helper()
	cfg.CheckInvariants = true
	res, err := simulator.Run(context.Background(), sc, cfg)
	if err != nil {
		t.Fatalf("plantest: simulating %s: %v", scenarioName(sc.Name), err)
		return nil
	}
	return res
}

// PlanCostIncreaseWithin checks that the plan after costs at most
// fraction more an hour than the plan before (0.05 is 5%): the same pending
// pods, two configurations. The failure message gives both plans' cost by
// NodePool, capacity type and instance type.
func PlanCostIncreaseWithin(t TB, before, after scheduling.Result, fraction float64) bool {
	t.Helper()
	limit := before.Summary.PricePerHour * (1 + fraction)
	if after.Summary.PricePerHour <= limit+1e-9 {
		return true
	}
	change := 0.0
	if before.Summary.PricePerHour > 0 {
		change = 100 * (after.Summary.PricePerHour - before.Summary.PricePerHour) / before.Summary.PricePerHour
	}
	t.Errorf("plantest: the plan's cost rose from $%.4f/hour to $%.4f/hour, +%.1f%%, over the allowed +%.1f%% ($%.4f/hour)\n  before: %s\n  after:  %s",
		before.Summary.PricePerHour, after.Summary.PricePerHour, change, 100*fraction, limit, planBreakdown(before), planBreakdown(after))
	return false
}

// breakdown sums $/hour and counts nodes by a key, and prints them dearest
// first ("default $0.3190 (2 nodes), spot-pool $0.0442 (1 node)").
type breakdown map[string]struct {
	perHour float64
	nodes   int
}

func (b breakdown) add(key string, perHour float64) {
	e := b[key]
	e.perHour += perHour
	e.nodes++
	b[key] = e
}

func (b breakdown) String() string {
	keys := make([]string, 0, len(b))
	for k := range b {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(x, y string) int {
		if b[x].perHour != b[y].perHour {
			if b[x].perHour > b[y].perHour {
				return -1
			}
			return 1
		}
		return strings.Compare(x, y)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		noun := "nodes"
		if b[k].nodes == 1 {
			noun = "node"
		}
		parts[i] = fmt.Sprintf("%s $%.4f (%d %s)", k, b[k].perHour, b[k].nodes, noun)
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// planBreakdown is a plan's new NodeClaims' $/hour by NodePool, capacity
// type and instance type.
func planBreakdown(r scheduling.Result) string {
	pools, capacity, types := breakdown{}, breakdown{}, breakdown{}
	for _, c := range r.NodeClaims {
		pools.add(c.NodePool, c.PricePerHour)
		capacity.add(c.CapacityType, c.PricePerHour)
		types.add(c.InstanceType, c.PricePerHour)
	}
	return fmt.Sprintf("by NodePool: %s; by capacity type: %s; by instance type: %s", pools, capacity, types)
}

// launchBreakdown is what a run launched, in $/hour at launch, by
// NodePool (the node name less its "-NNNNN" counter), capacity type and
// instance type.
func launchBreakdown(r *simulator.Result) string {
	pools, capacity, types := breakdown{}, breakdown{}, breakdown{}
	for _, d := range r.Timeline {
		if d.Kind != simulator.KindLaunch {
			continue
		}
		for _, node := range d.Nodes {
			pool := node
			if i := strings.LastIndexByte(node, '-'); i > 0 {
				pool = node[:i]
			}
			pools.add(pool, d.PricePerHour)
			capacity.add(d.CapacityType, d.PricePerHour)
			types.add(d.InstanceType, d.PricePerHour)
		}
	}
	return fmt.Sprintf("launched, $/hour by NodePool: %s; by capacity type: %s; by instance type: %s", pools, capacity, types)
}

// variantName names a scenario with the files a Variant added.
func variantName(name string, files []string) string {
	if len(files) == 0 {
		return name
	}
	base := make([]string, len(files))
	for i, f := range files {
		base[i] = filepath.Base(f)
	}
	if name == "" {
		name = "the scenario"
	}
	return name + " + " + strings.Join(base, " + ")
}
