package advise_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// A NodePool marked as committed capacity (karpsim.dev/committed: "true",
// as a label or an annotation) is never edited, and no advice moves
// Karpenter's launches away from it: on two-pools-weight, where the
// weighted on-demand pool takes every pod and the best advice without
// the mark prefers the spot pool, marking the on-demand pool leaves no
// advice that launches less on it.
func TestAdviceKeepsCommittedCapacity(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "advise", "two-pools-weight", "input.yaml"))
	require.NoError(t, err)
	input := func(mark func(meta map[string]string) map[string]string) scheduling.Input {
		set, err := manifests.Decode("input.yaml", data)
		require.NoError(t, err)
		for _, np := range set.NodePools {
			if np.Name == "on-demand" && mark != nil {
				np.Annotations = mark(np.Annotations)
			}
		}
		snap, err := snapshot.FromSet(set, snapshot.Options{})
		require.NoError(t, err)
		return snap.Input(scheduling.Options{})
	}

	free, err := advise.Advise(input(nil), advise.Options{Top: 20})
	require.NoError(t, err)
	require.True(t, slices.ContainsFunc(free.Advice, func(a advise.Advice) bool {
		return slices.ContainsFunc(a.Edits, func(e advise.Edit) bool { return e.NodePool == "on-demand" }) ||
			slices.ContainsFunc(a.Edits, func(e advise.Edit) bool { return e.Kind == advise.KindPreferPool && e.NodePool == "spot" })
	}), "without the mark, advice moves pods off the on-demand pool: %v", free.Advice)

	in := input(func(m map[string]string) map[string]string {
		if m == nil {
			m = map[string]string{}
		}
		m[advise.CommittedKey] = "true"
		return m
	})
	base := scheduling.Solve(in)
	launched := func(r scheduling.Result) map[string]int {
		out := map[string]int{}
		for _, c := range r.NodeClaims {
			if c.NodePool == "on-demand" {
				out[c.InstanceType+"/"+c.CapacityType]++
			}
		}
		return out
	}
	want := launched(base)
	require.NotEmpty(t, want, "Karpenter launches on the committed pool today")
	committed, err := advise.Advise(in, advise.Options{Top: 20})
	require.NoError(t, err)
	for _, a := range committed.Advice {
		for _, e := range a.Edits {
			require.NotEqual(t, "on-demand", e.NodePool, "the committed pool is edited: %v", a.Edits)
		}
		got := launched(a.Result)
		for k, n := range want {
			require.GreaterOrEqual(t, got[k], n, "%v launches fewer %s on the committed pool", a.Edits, k)
		}
	}
}
