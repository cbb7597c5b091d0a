package disruption

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	seeds     = flag.Int("seeds", 50, "how many seeds the differential run compares (from -first-seed)")
	firstSeed = flag.Uint64("first-seed", 1, "the first seed of the differential run")
	runs      = flag.Int("runs", 3, "how many times Karpenter decides on each seed (it is not deterministic everywhere)")
	maxRuns   = flag.Int("max-runs", 12, "how many times Karpenter decides on a seed, at most, while karpsim's command is not among its commands")
	verbose   = flag.Bool("show", false, "print every seed's outcomes, not only divergences")
	explain   = flag.Bool("explain", false, "print Karpenter's events (why not) for each divergent seed")
	dumpDir   = flag.String("dump", "", "write each divergent seed's cluster YAML to this directory")
)

// minAgreement is the share of seeds on which karpsim's command must be
// one Karpenter gives. Measured: see docs/fidelity.md ("Differential runs:
// disruption"); the threshold sits just under the measurement so that a
// regression fails the test.
const minAgreement = 0.96

// TestDifferential runs Karpenter v1.15.0's disruption methods and karpsim's
// disruption evaluation on random clusters and compares their commands.
// go test -run TestDifferential -seeds N runs N seeds and prints the
// agreement and each divergent seed.
func TestDifferential(t *testing.T) {
	bin, err := FindBinaries()
	if err != nil {
		t.Skipf("the differential disruption run needs a real API server: %v", err)
	}
	u, err := StartUpstream(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	catalog, err := karpsimCatalog()
	if err != nil {
		t.Fatal(err)
	}
	// An interrupted run (SIGINT, SIGTERM) stops after the seed at hand,
	// reports what it measured and stops the API server and etcd.
	stop, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	start := time.Now()
	ran := 0
	var agree, varied int
	var loading, deciding, karpsimTime time.Duration
	var divergent []uint64
	for seed := *firstSeed; seed < *firstSeed+uint64(*seeds) && stop.Err() == nil; seed++ {
		ran++
		created := time.Now().UTC().Truncate(time.Second)
		now := created.Add(3 * time.Hour)
		c := Generate(seed, created)
		mark := time.Now()
		if err := u.Load(c, now); err != nil {
			t.Fatalf("seed %d: loading the cluster: %v", seed, err)
		}
		loading += time.Since(mark)
		mark = time.Now()
		manifest, err := u.Dump()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		cmds, err := Karpsim(manifest, catalog, now)
		if err != nil {
			t.Fatalf("seed %d: karpsim refused the cluster: %v", seed, err)
		}
		mine := Outcome(cmds)
		karpsimTime += time.Since(mark)
		mark = time.Now()
		// Karpenter decides -runs times, and up to -max-runs times while
		// karpsim's command is not among its own: some of its choices are
		// random (ties sorted by sort.Slice, map order).
		outcomes := map[string]bool{}
		for run := 0; run < *runs || run < *maxRuns && !outcomes[mine]; run++ {
			cmds, err := u.Decide()
			if err != nil {
				t.Fatalf("seed %d: Karpenter: %v", seed, err)
			}
			outcomes[Outcome(cmds)] = true
		}
		if len(outcomes) > 1 {
			varied++
			t.Logf("seed %d: Karpenter varies between\n  %s", seed, indent(slices.Sorted(mapKeys(outcomes))))
		}
		deciding += time.Since(mark)
		if n := seed - *firstSeed + 1; n%100 == 0 {
			t.Logf("after %d seeds: %d agree, Karpenter varied on %d, %s", n, agree+b2i(outcomes[mine]), varied, time.Since(start).Round(time.Second))
		}
		switch {
		case outcomes[mine]:
			agree++
			if *verbose {
				t.Logf("seed %d: %s", seed, mine)
			}
		default:
			divergent = append(divergent, seed)
			t.Logf("seed %d diverges:\n  Karpenter: %s\n  karpsim:   %s", seed, indent(slices.Sorted(mapKeys(outcomes))), mine)
			if *explain {
				_, events, _ := u.Explain()
				t.Logf("seed %d: Karpenter's events:\n  %s", seed, strings.Join(events, "\n  "))
			}
			if *dumpDir != "" {
				_ = os.WriteFile(fmt.Sprintf("%s/seed-%d.yaml", *dumpDir, seed), manifest, 0o644)
			}
		}
	}
	rate := float64(agree) / float64(max(ran, 1))
	t.Logf("disruption differential: %d of %d seeds agree (%.2f%%); Karpenter varied on %d; divergent seeds %v; %s (loading %s, Karpenter %s, karpsim %s)",
		agree, ran, 100*rate, varied, divergent, time.Since(start).Round(time.Second),
		loading.Round(time.Second), deciding.Round(time.Second), karpsimTime.Round(time.Second))
	if rate < minAgreement {
		t.Errorf("agreement %.2f%% is below %.0f%%", 100*rate, 100*minAgreement)
	}
}

func mapKeys(m map[string]bool) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func indent(outcomes []string) string {
	return strings.ReplaceAll(strings.Join(outcomes, "\n  or:        "), "\n", "\n             ")
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
