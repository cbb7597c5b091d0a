package disruption

import (
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/karpsim/karpsim/consolidation"
)

var repairSeeds = flag.Int("repair-seeds", 40, "how many seeds the node repair differential run compares (from -first-seed)")

// TestRepairDifferential runs Karpenter's disruption methods with the
// NodeRepair gate, over the AWS provider's repair policies, and karpsim's
// evaluation with the same policies on clusters whose nodes have random
// faults (GenerateUnhealthy), and compares the command of each, as
// TestDifferential does.
func TestRepairDifferential(t *testing.T) {
	bin, err := FindBinaries()
	if err != nil {
		t.Skipf("the differential repair run needs a real API server: %v", err)
	}
	u, err := StartUpstream(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	u.Repair = AWSRepairPolicies()
	matcher, err := karpsimRepair()
	if err != nil {
		t.Fatal(err)
	}
	catalog, err := karpsimCatalog()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	agree, repaired := 0, 0
	var divergent []uint64
	for seed := *firstSeed; seed < *firstSeed+uint64(*repairSeeds); seed++ {
		created := time.Now().UTC().Truncate(time.Second)
		now := created.Add(3 * time.Hour)
		if err := u.Load(GenerateUnhealthy(seed, created, 3*time.Hour), now); err != nil {
			t.Fatalf("seed %d: loading the cluster: %v", seed, err)
		}
		manifest, err := u.Dump()
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		cmds, err := KarpsimWith(manifest, catalog, now, consolidation.Options{NodeRepair: matcher})
		if err != nil {
			t.Fatalf("seed %d: karpsim refused the cluster: %v", seed, err)
		}
		mine := Outcome(cmds)
		if slices.ContainsFunc(cmds, func(c Command) bool { return c.Method == consolidation.MethodRepair }) {
			repaired++
		}
		outcomes := map[string]bool{}
		for run := 0; run < *runs || run < *maxRuns && !outcomes[mine]; run++ {
			cmds, err := u.Decide()
			if err != nil {
				t.Fatalf("seed %d: Karpenter: %v", seed, err)
			}
			outcomes[Outcome(cmds)] = true
		}
		if outcomes[mine] {
			agree++
			if *verbose {
				t.Logf("seed %d: %s", seed, mine)
			}
			continue
		}
		divergent = append(divergent, seed)
		t.Logf("seed %d diverges:\n  Karpenter: %s\n  karpsim:   %s", seed, indent(slices.Sorted(mapKeys(outcomes))), mine)
		if *explain {
			_, events, _ := u.Explain()
			t.Logf("seed %d: Karpenter's events:\n  %v", seed, events)
		}
	}
	ran := *repairSeeds
	rate := float64(agree) / float64(max(ran, 1))
	t.Logf("repair differential: %d of %d seeds agree (%.2f%%), %d of them repair; divergent seeds %v; %s",
		agree, ran, 100*rate, repaired, divergent, time.Since(start).Round(time.Second))
	if rate < minAgreement {
		t.Errorf("agreement %.2f%% is below %.0f%%", 100*rate, 100*minAgreement)
	}
}
