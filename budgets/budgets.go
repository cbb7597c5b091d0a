// Package budgets evaluates NodePool disruption budgets at a given time: how
// many of a pool's nodes Karpenter may disrupt for a reason right now, which
// budget sets that limit, and until when.
//
// Allowed takes a NodePool's budgets (DefaultBudgets when it has none), the
// disruption reason, the pool's node count and the time, and returns the
// Allowance. It is pure arithmetic over apis.Budget values and a time:
// counting the pool's nodes and the ones already disrupting is the
// caller's job (package consolidation does it).
package budgets

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/karpsim/karpsim/apis"
)

// Unlimited is the allowance when no active budget applies to a reason.
const Unlimited = math.MaxInt

// maxWindowSteps bounds the walk over overlapping schedule hits when
// computing when an active window closes.
const maxWindowSteps = 10_000

// Allowance is how many nodes may be disrupted for one reason at one time,
// and why.
type Allowance struct {
	// Nodes is the number of nodes that may be disrupted, Unlimited when no
	// active budget applies. Nodes already disrupting still count against
	// it: see Left.
	Nodes int
	// Budget is the index of the budget that sets Nodes, or -1.
	Budget int
	// Until is when that budget's active window closes; zero for a budget
	// without a schedule, which is always active.
	Until time.Time
	// Invalid, when not empty, says why the limiting budget could not be
	// read; an invalid budget allows no disruption.
	Invalid string
}

// Left is what remains of the allowance once disrupting nodes (already
// being deleted, or NotReady) are counted, never below zero.
func (a Allowance) Left(disrupting int) int {
	if a.Nodes == Unlimited {
		return Unlimited
	}
	return max(a.Nodes-disrupting, 0)
}

// String explains the allowance, e.g. `0 nodes (budget 1: "0" until
// 17:00 UTC)`.
func (a Allowance) String() string {
	if a.Budget < 0 {
		return "unlimited (no active budget)"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d nodes (budget %d", a.Nodes, a.Budget)
	if a.Invalid != "" {
		fmt.Fprintf(&b, " is invalid: %s", a.Invalid)
	}
	if !a.Until.IsZero() {
		fmt.Fprintf(&b, ", until %s", a.Until.UTC().Format("2006-01-02 15:04 MST"))
	}
	b.WriteString(")")
	return b.String()
}

// Allowed returns how many of a pool's nodes may be disrupted for reason at
// now: the minimum over the budgets that apply to the reason and are active,
// a percentage taken of nodes and rounded up. With no budgets at all the
// default budget (10%) applies, as the API defaults it. Ties go to the
// earlier budget.
func Allowed(budgets []apis.Budget, reason apis.DisruptionReason, nodes int, now time.Time) Allowance {
	if budgets == nil {
		budgets = DefaultBudgets()
	}
	best := Allowance{Nodes: Unlimited, Budget: -1}
	for i, budget := range budgets {
		if !appliesTo(budget, reason) {
			continue
		}
		allowance := evaluate(budget, nodes, now)
		if allowance.Budget < 0 {
			continue // inactive
		}
		allowance.Budget = i
		if allowance.Nodes < best.Nodes {
			best = allowance
		}
	}
	return best
}

// DefaultBudgets is the API default: 10% of the pool's nodes for every reason.
func DefaultBudgets() []apis.Budget {
	return []apis.Budget{{Nodes: "10%"}}
}

func appliesTo(budget apis.Budget, reason apis.DisruptionReason) bool {
	return len(budget.Reasons) == 0 || slices.Contains(budget.Reasons, reason)
}

// evaluate returns the allowance of one budget, with Budget -1 when the
// budget is not active at now. An invalid budget is active and allows 0.
func evaluate(budget apis.Budget, nodes int, now time.Time) Allowance {
	until, active, err := window(budget, now)
	if err != nil {
		return Allowance{Nodes: 0, Invalid: err.Error()}
	}
	if !active {
		return Allowance{Budget: -1}
	}
	n, err := NodeCount(budget.Nodes, nodes)
	if err != nil {
		return Allowance{Nodes: 0, Invalid: err.Error()}
	}
	return Allowance{Nodes: n, Until: until}
}

// NodeCount reads a budget's nodes field, "N" or "P%", against a pool of
// nodes; percentages round up.
func NodeCount(value string, nodes int) (int, error) {
	if percent, ok := strings.CutSuffix(value, "%"); ok {
		p, err := strconv.Atoi(percent)
		if err != nil || p < 0 || p > 100 {
			return 0, fmt.Errorf("nodes %q is not a percentage from 0%% to 100%%", value)
		}
		return (nodes*p + 99) / 100, nil
	}
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("nodes %q is not a count or a percentage", value)
	}
	return n, nil
}

// window reports whether a budget is active at now and, if it has a
// schedule, when its window closes. A budget is active when the first hit of
// its schedule after now−duration is not after now; the window closes
// duration after the last of the hits that keep it open.
func window(budget apis.Budget, now time.Time) (until time.Time, active bool, err error) {
	if budget.Schedule == nil && budget.Duration == nil {
		return time.Time{}, true, nil
	}
	if budget.Schedule == nil || budget.Duration == nil {
		return time.Time{}, false, fmt.Errorf("schedule and duration must be set together")
	}
	schedule, err := Parse(*budget.Schedule)
	if err != nil {
		return time.Time{}, false, err
	}
	duration := budget.Duration.Duration
	hit := schedule.Next(now.Add(-duration))
	if hit.After(now) {
		return time.Time{}, false, nil
	}
	if hit.IsZero() {
		// A schedule that never hits (30 February) has no next hit within
		// cron's five-year search, which Karpenter reads as a hit long
		// past: the budget is always active, and no window closes.
		return time.Time{}, true, nil
	}
	until = hit.Add(duration)
	for range maxWindowSteps {
		next := schedule.Next(hit)
		if next.IsZero() || !next.Before(until) {
			break
		}
		hit, until = next, next.Add(duration)
	}
	return until, true, nil
}

// Parse reads a budget schedule: standard five-field cron or a descriptor
// such as @daily, always in UTC, as Karpenter reads it.
func Parse(schedule string) (cron.Schedule, error) {
	s, err := cron.ParseStandard("TZ=UTC " + schedule)
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %w", schedule, err)
	}
	return s, nil
}
