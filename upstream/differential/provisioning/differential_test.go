package provisioning

import (
	"flag"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"
)

var (
	seedsFlag = flag.Int("seeds", 0, "number of seeds to run (0: the CI set, ciSeeds)")
	fromFlag  = flag.Uint64("from", 1, "first seed")
	runsFlag  = flag.Int("runs", 3, "Karpenter runs per seed")
	maxFlag   = flag.Int("max-runs", 12, "Karpenter runs per seed at most, while karpsim's decision is not among Karpenter's")
	listFlag  = flag.Bool("list", false, "print every divergence (always on with -seeds)")
	showFlag  = flag.Uint64("show", 0, "print the decisions of one seed in full (TestShow)")
)

func TestShow(t *testing.T) {
	if *showFlag == 0 {
		t.Skip("-show SEED prints one seed's decisions")
	}
	o, err := Compare(*showFlag, *runsFlag, *runsFlag)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s", o.Features)
	t.Logf("karpsim:   %s", o.Karpsim.Key())
	for _, c := range o.Karpsim.claims {
		t.Logf("  claim %s", c)
	}
	for _, e := range o.Karpsim.errors {
		t.Logf("  %s", e)
	}
	for _, d := range o.Karpenter {
		t.Logf("karpenter: %s", d.Key())
		for _, c := range d.claims {
			t.Logf("  claim %s", c)
		}
		for _, e := range d.errors {
			t.Logf("  %s", e)
		}
	}
}

// ciSeeds is the number of seeds go test runs without -seeds (seeds 1 to
// 100, about 90 CPU-seconds; -short runs 1 to 40).
const ciSeeds = 100

// minAgreement is the agreement rate the CI seeds must reach. Measured on
// seeds 1–100 with 3 Karpenter runs a seed and up to 12 while karpsim
// disagreed: 99 of 100 (649 of seeds 1–650). It sits below the measured
// rate by what Karpenter's own variation can move it (a seed whose
// Karpenter answers include karpsim's on one invocation may not on the
// next).
const minAgreement = 0.97

// knownDivergences are the CI seeds karpsim disagreed on when minAgreement
// was measured, by class (conformance/differential/provisioning.md
// explains each):
//   - ties between zones broken in map order where one tied zone's
//     reservation is held: Karpenter draws again for every pod and nearly
//     always ends with one more claim, karpsim always draws the first
//     zone: 72.
var knownDivergences = []uint64{72}

func TestDifferential(t *testing.T) {
	n, explicit := *seedsFlag, *seedsFlag > 0
	if !explicit {
		n = ciSeeds
		if testing.Short() {
			n = 40
		}
	}
	start := time.Now()
	var agree, varies int
	var diverged []Outcome
	outcomes, err := CompareAll(*fromFlag, n, *runsFlag, *maxFlag)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outcomes {
		if o.Agrees {
			agree++
		} else {
			diverged = append(diverged, o)
		}
		if o.Varies() {
			varies++
		}
	}
	rate := float64(agree) / float64(n)
	var b strings.Builder
	fmt.Fprintf(&b, "seeds %d..%d: karpsim agrees with a Karpenter run on %d of %d (%.2f%%); Karpenter varied between its runs (%d a seed, up to %d while karpsim disagreed) on %d seeds; %s\n",
		*fromFlag, *fromFlag+uint64(n)-1, agree, n, rate*100, *runsFlag, *maxFlag, varies, time.Since(start).Round(time.Second))
	sort.Slice(diverged, func(i, j int) bool { return diverged[i].Seed < diverged[j].Seed })
	for _, o := range diverged {
		fmt.Fprintf(&b, "  %s\n", o.Describe())
	}
	if explicit || *listFlag || testing.Verbose() {
		fmt.Print(b.String())
	}
	if !explicit && rate < minAgreement {
		t.Errorf("agreement %.2f%% is below the %.0f%% measured for the CI seeds (known divergences: %v)\n%s", rate*100, minAgreement*100, knownDivergences, b.String())
	}
}
