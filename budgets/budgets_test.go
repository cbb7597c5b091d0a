package budgets

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

func ptr[T any](v T) *T { return &v }

func hours(h float64) *metav1.Duration {
	return &metav1.Duration{Duration: time.Duration(h * float64(time.Hour))}
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestNodeCountRoundsPercentagesUp(t *testing.T) {
	for _, tc := range []struct {
		value string
		nodes int
		want  int
	}{
		{"10%", 0, 0}, {"10%", 1, 1}, {"10%", 10, 1}, {"10%", 11, 2}, {"10%", 19, 2},
		{"5%", 30, 2}, {"100%", 7, 7}, {"0%", 50, 0}, {"3", 1, 3}, {"0", 10, 0},
	} {
		got, err := NodeCount(tc.value, tc.nodes)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, "%s of %d", tc.value, tc.nodes)
	}
	for _, bad := range []string{"ten", "150%", "-1", "%", "1.5"} {
		_, err := NodeCount(bad, 10)
		assert.Error(t, err, bad)
	}
}

// TestBusinessHoursWindow steps through a week with the budgets of the seed
// NodePool "default": 10% always, 5% from 09:00 for 8h on weekdays.
func TestBusinessHoursWindow(t *testing.T) {
	budgets := []apis.Budget{
		{Nodes: "10%"},
		{Nodes: "5%", Schedule: ptr("0 9 * * MON-FRI"), Duration: hours(8)},
	}
	for _, tc := range []struct {
		now  string
		want string
	}{
		{"2026-11-23T08:59:59Z", "5 nodes (budget 0)"},                             // Monday, before the window
		{"2026-11-23T09:00:00Z", "3 nodes (budget 1, until 2026-11-23 17:00 UTC)"}, // the window opens
		{"2026-11-23T16:59:59Z", "3 nodes (budget 1, until 2026-11-23 17:00 UTC)"},
		{"2026-11-23T17:00:00Z", "5 nodes (budget 0)"}, // the window is half-open
		{"2026-11-28T12:00:00Z", "5 nodes (budget 0)"}, // Saturday
	} {
		got := Allowed(budgets, apis.DisruptionReasonUnderutilized, 50, at(tc.now))
		assert.Equal(t, tc.want, got.String(), tc.now)
	}
}

func TestReasonsAndDefaults(t *testing.T) {
	now := at("2026-11-23T12:00:00Z")
	budgets := []apis.Budget{
		{Nodes: "0", Reasons: []apis.DisruptionReason{apis.DisruptionReasonDrifted}},
		{Nodes: "20%", Reasons: []apis.DisruptionReason{apis.DisruptionReasonEmpty, apis.DisruptionReasonUnderutilized}},
	}
	assert.Equal(t, 0, Allowed(budgets, apis.DisruptionReasonDrifted, 10, now).Nodes)
	assert.Equal(t, 2, Allowed(budgets, apis.DisruptionReasonEmpty, 10, now).Nodes)
	only := []apis.Budget{{Nodes: "1", Reasons: []apis.DisruptionReason{apis.DisruptionReasonDrifted}}}
	assert.Equal(t, Unlimited, Allowed(only, apis.DisruptionReasonEmpty, 10, now).Nodes, "no budget applies to Empty")
	assert.Equal(t, "unlimited (no active budget)", Allowed(only, apis.DisruptionReasonEmpty, 10, now).String())
	assert.Equal(t, 2, Allowed(nil, apis.DisruptionReasonEmpty, 11, now).Nodes, "nil budgets get the 10% default")
	assert.Equal(t, Unlimited, Allowed([]apis.Budget{}, apis.DisruptionReasonEmpty, 11, now).Nodes, "an explicit empty list has no limit")
}

func TestInvalidBudgetAllowsNothing(t *testing.T) {
	now := at("2026-11-23T12:00:00Z")
	for _, b := range []apis.Budget{
		{Nodes: "ten"},
		{Nodes: "1", Schedule: ptr("every day"), Duration: hours(1)},
		{Nodes: "1", Schedule: ptr("@daily")},
	} {
		got := Allowed([]apis.Budget{{Nodes: "100%"}, b}, apis.DisruptionReasonEmpty, 10, now)
		assert.Equal(t, 0, got.Nodes, "%+v", b)
		assert.Equal(t, 1, got.Budget)
		assert.NotEmpty(t, got.Invalid)
	}
}

func TestLeftCountsNodesAlreadyDisrupting(t *testing.T) {
	a := Allowance{Nodes: 3, Budget: 0}
	assert.Equal(t, 1, a.Left(2))
	assert.Equal(t, 0, a.Left(5))
	assert.Equal(t, Unlimited, Allowance{Nodes: Unlimited, Budget: -1}.Left(5))
}

func TestOverlappingHitsExtendTheWindow(t *testing.T) {
	// Every hour, for two hours: once open, the window never closes until
	// the schedule stops hitting; here it hits every hour of the day.
	b := []apis.Budget{{Nodes: "0", Schedule: ptr("0 * * * *"), Duration: hours(2)}}
	got := Allowed(b, apis.DisruptionReasonEmpty, 10, at("2026-11-23T12:30:00Z"))
	assert.Equal(t, 0, got.Nodes)
	assert.True(t, got.Until.After(at("2026-11-24T00:00:00Z")), "until %s", got.Until)
}

func ExampleAllowed() {
	budgets := []apis.Budget{
		{Nodes: "10%"},
		{Nodes: "0", Schedule: ptr("0 9 * * MON-FRI"), Duration: hours(8)},
	}
	monday := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	allowance := Allowed(budgets, apis.DisruptionReasonUnderutilized, 40, monday)
	fmt.Println(allowance)
	fmt.Println("left with 1 node already disrupting:", allowance.Left(1))
	// Output:
	// 0 nodes (budget 1, until 2026-11-23 17:00 UTC)
	// left with 1 node already disrupting: 0
}
