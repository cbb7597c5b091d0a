package simulator

import (
	"context"
	"testing"
)

// TestDRAScenarioPlacesClaimsOnGPUs runs the golden DRA scenario with the
// invariants checked: every pod binds, to GPU nodes whose devices its
// claims fit; without DRA (Karpenter's default) the pods stay pending.
func TestDRAScenarioPlacesClaimsOnGPUs(t *testing.T) {
	sc, err := LoadScenario("../testdata/scenarios/dra-gpu.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Config{CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	noViolations(t, res)
	if res.PendingTime.Count != 3 || res.PendingTime.StillPending != 0 {
		t.Errorf("pending times %+v, want 3 pods bound", res.PendingTime)
	}
	var launched []string
	for _, d := range res.Timeline {
		if d.Kind == KindLaunch {
			launched = append(launched, d.InstanceType)
		}
	}
	if len(launched) != 2 || launched[0] != "g4dn.xlarge" || launched[1] != "g5g.16xlarge" {
		t.Errorf("launched %v, want a 1-GPU g4dn.xlarge, then a 2-GPU type for the 2 pods the first node's one GPU cannot take", launched)
	}
	sc.DRA = false
	off, err := Run(context.Background(), sc, Config{CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	if off.Launches != 0 || off.PendingTime.Count != 0 {
		t.Errorf("without DRA: %d launches, %d pods bound; Karpenter ignores pods with DRA requests", off.Launches, off.PendingTime.Count)
	}
}
