package plantest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/simulator"
)

// fakeTB records what the helpers report.
type fakeTB struct {
	errors, fatals []string
}

func (f *fakeTB) Helper() {}
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeTB) Fatalf(format string, args ...any) {
	f.fatals = append(f.fatals, fmt.Sprintf(format, args...))
}

func dur(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }

// result is a 10-hour run costing total USD, peaking at peak nodes at 4h.
func result(total float64, peak int) *simulator.Result {
	return &simulator.Result{
		Scenario: "shop", Seed: 3, Duration: dur(10 * time.Hour), TotalCost: total, Launches: peak,
		Samples: []simulator.Sample{
			{At: dur(0), Nodes: 1, CostPerHour: 0.1},
			{At: dur(4 * time.Hour), Nodes: peak, Pods: 30, PendingPods: 2, CostPerHour: 0.9},
		},
		Final:       simulator.Sample{At: dur(10 * time.Hour), Nodes: 1, CostPerHour: 0.1},
		PendingTime: simulator.Percentiles{Count: 40, P50: dur(50 * time.Second), P99: dur(90 * time.Second), Max: dur(2 * time.Minute)},
	}
}

func TestAssertionsThatHoldReportNothing(t *testing.T) {
	f := &fakeTB{}
	r := result(5, 4)
	ok := MaxCost(f, r, 0.5) && MaxNodes(f, r, 4) && MaxPendingP99(f, r, 90*time.Second) &&
		CostIncreaseWithin(f, r, result(5.25, 4), 0.05) && MaxPlanCost(f, scheduling.Result{}, 0) && AllScheduled(f, scheduling.Result{})
	if !ok || len(f.errors)+len(f.fatals) > 0 {
		t.Fatalf("ok %v, reported %q %q", ok, f.errors, f.fatals)
	}
}

func TestFailureMessagesSayByHowMuchAndWhere(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(TB) bool
		want  []string
	}{
		{"MaxCost", func(f TB) bool { return MaxCost(f, result(6, 4), 0.5) },
			[]string{"scenario shop (seed 3, 10h0m0s) cost $0.6000/hour on average ($6.0000 in all)", "bound of $0.5000/hour by 20.0%", "at 4h0m0s: 4 nodes at $0.9000/hour"}},
		{"MaxNodes", func(f TB) bool { return MaxNodes(f, result(6, 7), 5) },
			[]string{"reached 7 nodes at 4h0m0s ($0.9000/hour, 30 pods, 2 pending), over the bound of 5"}},
		{"MaxPendingP99", func(f TB) bool { return MaxPendingP99(f, result(6, 4), time.Minute) },
			[]string{"pods waited 1m30s at p99 (p50 50s, max 2m0s, 40 waits), over the bound of 1m0s"}},
		{"CostIncreaseWithin", func(f TB) bool { return CostIncreaseWithin(f, result(5, 4), result(6, 6), 0.05) },
			[]string{"cost rose from $5.0000", "to $6.0000", "+20.0%, over the allowed +5.0% ($5.2500); peak nodes 4 → 6, launches 4 → 6"}},
		{"MaxPlanCost", func(f TB) bool {
			return MaxPlanCost(f, scheduling.Result{Summary: scheduling.Summary{NodeClaims: 2, PricePerHour: 0.4}}, 0.3)
		}, []string{"launches 2 NodeClaims at $0.4000/hour, over the bound of $0.3000/hour"}},
		{"AllScheduled", func(f TB) bool {
			return AllScheduled(f, scheduling.Result{Unschedulable: []scheduling.Unschedulable{{Pod: "shop/web-0", Reason: "no NodePool fits"}}})
		}, []string{"pod shop/web-0 is unschedulable: no NodePool fits"}},
		{"nil result", func(f TB) bool { return MaxCost(f, nil, 1) }, []string{"MaxCost: no result"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeTB{}
			if tc.check(f) {
				t.Fatal("the assertion held")
			}
			got := strings.Join(f.errors, "\n")
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("message %q lacks %q", got, w)
				}
			}
		})
	}
}

func TestStillPendingPodsFailMaxPendingP99(t *testing.T) {
	f := &fakeTB{}
	r := result(1, 1)
	r.PendingTime.StillPending = 3
	if MaxPendingP99(f, r, time.Hour) || len(f.errors) != 1 || !strings.Contains(f.errors[0], "3 pods were still pending at the end") {
		t.Fatalf("got %q", f.errors)
	}
}

func TestLoadingErrorsStopTheTest(t *testing.T) {
	f := &fakeTB{}
	if snap := Load(f, "testdata/does-not-exist.yaml"); snap != nil || len(f.fatals) != 1 || !strings.Contains(f.fatals[0], "does-not-exist.yaml") {
		t.Fatalf("snap %v, fatals %q", snap, f.fatals)
	}
	f = &fakeTB{}
	LoadScenario(f, "testdata/nodeclass.yaml")
	if len(f.fatals) != 1 || !strings.Contains(f.fatals[0], "nodeclass.yaml") {
		t.Fatalf("fatals %q", f.fatals)
	}
}

func TestVariantLeavesTheScenarioAlone(t *testing.T) {
	sc := simulator.Scenario{Manifests: make([]string, 1, 4)}
	sc.Manifests[0] = "a.yaml"
	v := Variant(sc, "b.yaml")
	w := Variant(sc, "c.yaml")
	if len(sc.Manifests) != 1 || v.Manifests[1] != "b.yaml" || w.Manifests[1] != "c.yaml" {
		t.Fatalf("scenario %v, variants %v %v", sc.Manifests, v.Manifests, w.Manifests)
	}
}
