package consolidation

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

var updateDecisions = flag.Bool("update-decisions", false, "rewrite testdata/decisions.sha256 from the current code")

// decisionCases are the clusters whose decisions testdata/decisions.sha256
// pins: the random clusters of the property test, and packed clusters like
// the benchmark's, both with and without spot-to-spot consolidation.
func decisionCases() []struct {
	name string
	c    Cluster
	opts Options
} {
	var out []struct {
		name string
		c    Cluster
		opts Options
	}
	rng := rand.New(rand.NewPCG(7, 0))
	for i := range 400 {
		out = append(out, struct {
			name string
			c    Cluster
			opts Options
		}{fmt.Sprintf("random-%d", i), randomCluster(rng), Options{SpotToSpotConsolidation: i%2 == 0}})
	}
	for i, n := range []int{40, 120, 300} {
		for _, spot := range []bool{false, true} {
			out = append(out, struct {
				name string
				c    Cluster
				opts Options
			}{fmt.Sprintf("packed-%d-spot=%v", n, spot), benchCluster(n, uint64(i+2)), Options{SpotToSpotConsolidation: spot}})
		}
	}
	return out
}

// The evaluation's reuse of work between simulations (shapes and moving
// pods read once per node, placeholder nodes and priced options kept across
// solves) must not change a byte of any decision: every case's decision,
// commands and every node's verdict, hashes to what the code decided before
// that reuse was built.
func TestDecisionsUnchangedByReuse(t *testing.T) {
	path := filepath.Join("testdata", "decisions.sha256")
	var lines []string
	for _, tc := range decisionCases() {
		b, err := json.Marshal(Evaluate(tc.c, now, tc.opts))
		require.NoError(t, err)
		lines = append(lines, fmt.Sprintf("%x %s", sha256.Sum256(b), tc.name))
	}
	if *updateDecisions {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
		return
	}
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var want []string
	for s := bufio.NewScanner(f); s.Scan(); {
		want = append(want, s.Text())
	}
	require.Len(t, lines, len(want))
	for i := range want {
		require.Equal(t, want[i], lines[i], "decision changed")
	}
}

// A narrowed solve whose left-out types no pod could use stands for the
// solve over every type (narrowingIdle): decisions, reasons included, must
// be those of evaluations that always solve again, and the shortcut must
// be taken in some of them.
func TestIdleNarrowingDecidesAsSolvingAgain(t *testing.T) {
	idle := 0
	for _, tc := range decisionCases() {
		fast := newEvaluation(tc.c, now, tc.opts)
		got, err := json.Marshal(evaluate(fast))
		require.NoError(t, err)
		slow := newEvaluation(tc.c, now, tc.opts)
		slow.solveAgain = true
		want, err := json.Marshal(evaluate(slow))
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(got), tc.name)
		if fast.sim != nil {
			idle += fast.sim.idle
		}
	}
	require.Positive(t, idle, "no case took the shortcut")
	t.Logf("%d solves over every type found needless", idle)
}
