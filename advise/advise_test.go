package advise_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

// The built-in example of plan: ten pods of 1 CPU and 1Gi on the default
// NodePool. Karpenter launches one large node; smaller ones (and arm64)
// pack the same pods for less.
func TestAdviseExample(t *testing.T) {
	in := scheduling.Input{Pods: pods(10, "inflate", "1", "1Gi"), NodePools: defaultPools()}
	before := in.NodePools[0].NodePool.DeepCopy()
	r, err := advise.Advise(in, advise.Options{})
	require.NoError(t, err)
	assert.Equal(t, before, in.NodePools[0].NodePool, "the input's NodePool is not changed")

	base := scheduling.Solve(in)
	assert.InDelta(t, optimize.PlanPerHour(base), r.KarpenterPerHour, 1e-12)
	assert.Greater(t, r.LowerBoundPerHour, 0.0)
	require.NotEmpty(t, r.Advice, "a cap on vCPUs makes Karpenter's plan of the example cheaper")
	assert.LessOrEqual(t, len(r.Advice), 5)
	assert.True(t, slices.IsSortedFunc(r.Advice, func(a, b advise.Advice) int {
		return cmpFloat(a.PerHour, b.PerHour)
	}), "cheapest first")
	for _, a := range r.Advice {
		assert.Less(t, a.PerHour, r.KarpenterPerHour)
		if !slices.ContainsFunc(a.Edits, widens) {
			assert.GreaterOrEqual(t, a.PerHour, r.LowerBoundPerHour*(1-1e-9), "no plan of the NodePools as they are, or narrowed, beats the bound: %v", a.Edits)
		}
		assert.InDelta(t, r.KarpenterPerHour-a.PerHour, a.SavingPerHour, 1e-12)
		assert.Len(t, a.Result.Unschedulable, 0)
	}
	assert.True(t, slices.ContainsFunc(r.Advice, func(a advise.Advice) bool {
		return len(a.Edits) == 1 && a.Edits[0].Kind == advise.KindCapCPU
	}), "a vCPU cap alone is advised: %v", r.Advice)

	again, err := advise.Advise(in, advise.Options{})
	require.NoError(t, err)
	assertSameReport(t, r, again)
}

// widens tells the edits that let a NodePool launch what it could not,
// under which a plan may cost less than the bound of the NodePools as
// they are.
func widens(e advise.Edit) bool {
	switch e.Kind {
	case advise.KindAddCategory, advise.KindAddFamily, advise.KindAllowNewerGenerations, advise.KindAllowArm64, advise.KindAllowSpot:
		return true
	}
	return false
}

// assertSameReport compares two reports field by field: an Edit holds a
// function, which reflect.DeepEqual never finds equal.
func assertSameReport(t *testing.T, a, b advise.Report) {
	t.Helper()
	ja, err := json.Marshal(a)
	require.NoError(t, err)
	jb, err := json.Marshal(b)
	require.NoError(t, err)
	assert.Equal(t, string(ja), string(jb))
	require.Equal(t, len(a.Advice), len(b.Advice))
	for i := range a.Advice {
		assert.True(t, reflect.DeepEqual(a.Advice[i].Result, b.Advice[i].Result), "advice %d: the same plan", i)
		assert.True(t, reflect.DeepEqual(a.Advice[i].NodePools, b.Advice[i].NodePools), "advice %d: the same NodePools", i)
	}
}

// An input where Karpenter's plan is already the cheapest the family can
// reach gets no advice, not advice that saves nothing.
func TestAdviseNothingCheaper(t *testing.T) {
	pools := defaultPools()
	np := pools[0].NodePool.DeepCopy()
	np.Spec.Template.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{{Key: apis.LabelInstanceType, Operator: "In", Values: []string{"m5.large"}}}
	pools[0].NodePool = np
	r, err := advise.Advise(scheduling.Input{Pods: pods(3, "web", "1", "1Gi"), NodePools: pools}, advise.Options{})
	require.NoError(t, err)
	assert.Empty(t, r.Advice)
}

// Options bound the search: one candidate is one solve.
func TestAdviseOptionsBoundTheSearch(t *testing.T) {
	in := scheduling.Input{Pods: pods(10, "inflate", "1", "1Gi"), NodePools: defaultPools()}
	r, err := advise.Advise(in, advise.Options{Top: 1, MaxCandidates: 2, MaxEdits: 1})
	require.NoError(t, err)
	assert.LessOrEqual(t, r.Candidates, 4, "two narrowing and two widening single edits, and no combination")
	assert.LessOrEqual(t, len(r.Advice), 1)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Letting spot into a pool that excludes it with NotIn removes the
// requirement rather than leaving an empty NotIn, which Kubernetes
// refuses.
func TestAllowSpotOverNotIn(t *testing.T) {
	pools := defaultPools()
	np := pools[0].NodePool.DeepCopy()
	for i, r := range np.Spec.Template.Spec.Requirements {
		if r.Key == apis.LabelCapacityType {
			np.Spec.Template.Spec.Requirements[i] = apis.NodeSelectorRequirementWithMinValues{Key: r.Key, Operator: "NotIn", Values: []string{apis.CapacityTypeSpot}}
		}
	}
	pools[0].NodePool = np
	r, err := advise.Advise(scheduling.Input{Pods: pods(10, "inflate", "1", "1Gi"), NodePools: pools}, advise.Options{Top: 20})
	require.NoError(t, err)
	found := false
	for _, a := range r.Advice {
		if !slices.ContainsFunc(a.Edits, func(e advise.Edit) bool { return e.Kind == advise.KindAllowSpot }) {
			continue
		}
		found = true
		for _, c := range a.NodePools {
			assert.NoError(t, c.After.Validate(), "the advised NodePool is valid")
			assert.False(t, slices.ContainsFunc(c.After.Spec.Template.Spec.Requirements, func(r apis.NodeSelectorRequirementWithMinValues) bool {
				return r.Key == apis.LabelCapacityType
			}), "the NotIn on the capacity type is gone")
		}
	}
	assert.True(t, found, "allowing spot is advised: %v", r.Advice)
}
