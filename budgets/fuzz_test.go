package budgets

import (
	"strconv"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

// FuzzBudget evaluates one budget from an arbitrary schedule, duration and
// nodes field at an arbitrary time, as a NodePool states it. A schedule
// that cron refuses is an error naming it; the nodes field reads as a
// count or a percentage of the pool rounded up, never more than the pool
// for a percentage, never negative; an invalid budget allows nothing and
// says why; an active window ends after now and is still open just before
// it ends; and the same question gets the same answer.
func FuzzBudget(f *testing.F) {
	day := int64(24 * time.Hour)
	f.Add("0 9 * * mon-fri", int64(8*time.Hour), "0", 10, int64(1732525200))
	f.Add("@daily", int64(time.Hour), "10%", 7, int64(0))
	f.Add("*/5 * * * *", int64(10*time.Minute), "50%", 3, int64(1700000000))
	f.Add("0 0 30 2 *", day, "1", 5, int64(1732525200))
	f.Add("@hourly", int64(time.Hour), "100%", 1000, int64(1732525200))
	f.Add("* * * * *", int64(1<<62), "3", 4, int64(-62135596800))
	f.Add("", int64(0), "", 0, int64(0))
	f.Add("TZ=America/New_York 0 0 * * *", day, "101%", 9, int64(1))
	f.Add("0 0 1 1 *", -day, "-1", 2, int64(253402300799))
	f.Fuzz(func(t *testing.T, schedule string, duration int64, nodesField string, nodes int, unix int64) {
		start := time.Now()
		nodes = max(nodes%100_000, -nodes%100_000)
		now := time.Unix(unix%(400*365*86400), 0).UTC()

		if s, err := Parse(schedule); err != nil {
			if !strings.HasPrefix(err.Error(), "schedule "+strconv.Quote(schedule)+": ") {
				t.Fatalf("error does not name the schedule: %v", err)
			}
		} else if next := s.Next(now); !next.IsZero() && !next.After(now) {
			t.Fatalf("%q: next hit after %v is %v", schedule, now, next)
		}

		count, err := NodeCount(nodesField, nodes)
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), "nodes "+strconv.Quote(nodesField)) {
				t.Fatalf("error does not name the field: %v", err)
			}
		case count < 0:
			t.Fatalf("nodes %q of %d: %d", nodesField, nodes, count)
		case strings.HasSuffix(nodesField, "%") && count > nodes:
			t.Fatalf("nodes %q of %d: %d, more than the pool", nodesField, nodes, count)
		}

		d := metav1.Duration{Duration: time.Duration(duration)}
		budgets := []apis.Budget{{Nodes: nodesField, Schedule: &schedule, Duration: &d}}
		a := Allowed(budgets, apis.DisruptionReasonDrifted, nodes, now)
		if again := Allowed(budgets, apis.DisruptionReasonDrifted, nodes, now); again != a {
			t.Fatalf("two answers: %v and %v", a, again)
		}
		switch {
		case a.Budget < 0:
			if a.Nodes != Unlimited {
				t.Fatalf("no active budget, yet %v", a)
			}
		case a.Invalid != "":
			if a.Nodes != 0 {
				t.Fatalf("an invalid budget allows %v", a)
			}
		default:
			if err != nil || a.Nodes != count {
				t.Fatalf("nodes %q of %d: %v, NodeCount %d (%v)", nodesField, nodes, a, count, err)
			}
			if !a.Until.IsZero() {
				if !a.Until.After(now) {
					t.Fatalf("active at %v in a window that ended at %v", now, a.Until)
				}
				if before := Allowed(budgets, apis.DisruptionReasonDrifted, nodes, a.Until.Add(-time.Nanosecond)); before.Budget != 0 {
					t.Fatalf("the window said to close at %v is closed just before: %v", a.Until, before)
				}
			}
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("took %v", took)
		}
	})
}
