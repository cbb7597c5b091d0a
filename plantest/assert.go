package plantest

import (
	"time"

	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/simulator"
)

// MaxCost checks that the run cost at most perHour USD per hour on
// average (its total cost over its duration).
func MaxCost(t TB, r *simulator.Result, perHour float64) bool {
	t.Helper()
	if r == nil {
		t.Errorf("plantest: MaxCost: no result")
		return false
	}
	avg := AverageCostPerHour(r)
	if avg <= perHour {
		return true
	}
	peak := peakSample(r, dearer)
	t.Errorf("plantest: %s cost $%.4f/hour on average ($%.4f in all), over the bound of $%.4f/hour by %.1f%%; the dearest sample is at %s: %d nodes at $%.4f/hour",
		runName(r), avg, r.TotalCost, perHour, 100*(avg-perHour)/perHour, peak.At.Duration.String(), peak.Nodes, peak.CostPerHour)
	return false
}

// MaxNodes checks that the cluster never had more than n nodes (in flight
// or not) at any sample or at the end.
func MaxNodes(t TB, r *simulator.Result, n int) bool {
	t.Helper()
	if r == nil {
		t.Errorf("plantest: MaxNodes: no result")
		return false
	}
	peak := peakSample(r, moreNodes)
	if peak.Nodes <= n {
		return true
	}
	t.Errorf("plantest: %s reached %d nodes at %s ($%.4f/hour, %d pods, %d pending), over the bound of %d",
		runName(r), peak.Nodes, peak.At.Duration.String(), peak.CostPerHour, peak.Pods, peak.PendingPods, n)
	return false
}

// MaxPendingP99 checks that 99% of the pods' waits for a node were at most
// d, and that no pod is still pending at the end of the run.
func MaxPendingP99(t TB, r *simulator.Result, d time.Duration) bool {
	t.Helper()
	if r == nil {
		t.Errorf("plantest: MaxPendingP99: no result")
		return false
	}
	p := r.PendingTime
	ok := true
	if p.P99.Duration > d {
		t.Errorf("plantest: %s: pods waited %v at p99 (p50 %v, max %v, %d waits), over the bound of %v",
			runName(r), p.P99.Duration, p.P50.Duration, p.Max.Duration, p.Count, d)
		ok = false
	}
	if p.StillPending > 0 {
		t.Errorf("plantest: %s: %d pods were still pending at the end; see the unschedulable decisions of the timeline", runName(r), p.StillPending)
		ok = false
	}
	return ok
}

// CostIncreaseWithin checks that after cost at most fraction more than
// before (0.05 is 5%): the same workload, two configurations.
func CostIncreaseWithin(t TB, before, after *simulator.Result, fraction float64) bool {
	t.Helper()
	if before == nil || after == nil {
		t.Errorf("plantest: CostIncreaseWithin: missing result")
		return false
	}
	limit := before.TotalCost * (1 + fraction)
	if after.TotalCost <= limit {
		return true
	}
	change := 0.0
	if before.TotalCost > 0 {
		change = 100 * (after.TotalCost - before.TotalCost) / before.TotalCost
	}
	t.Errorf("plantest: cost rose from $%.4f (%s) to $%.4f (%s), +%.1f%%, over the allowed +%.1f%% ($%.4f); peak nodes %d → %d, launches %d → %d\n  before: %s\n  after:  %s",
		before.TotalCost, runName(before), after.TotalCost, runName(after), change, 100*fraction, limit,
		peakSample(before, moreNodes).Nodes, peakSample(after, moreNodes).Nodes, before.Launches, after.Launches,
		launchBreakdown(before), launchBreakdown(after))
	return false
}

// MaxPlanCost checks that a plan's new NodeClaims cost at most perHour
// USD per hour.
func MaxPlanCost(t TB, r scheduling.Result, perHour float64) bool {
	t.Helper()
	if r.Summary.PricePerHour <= perHour {
		return true
	}
	t.Errorf("plantest: the plan launches %d NodeClaims at $%.4f/hour, over the bound of $%.4f/hour", r.Summary.NodeClaims, r.Summary.PricePerHour, perHour)
	return false
}

// AllScheduled checks that a plan places every pending pod, naming the
// refused ones and why.
func AllScheduled(t TB, r scheduling.Result) bool {
	t.Helper()
	if len(r.Unschedulable) == 0 {
		return true
	}
	for _, u := range r.Unschedulable {
		t.Errorf("plantest: pod %s is unschedulable: %s", u.Pod, u.Reason)
	}
	return false
}
