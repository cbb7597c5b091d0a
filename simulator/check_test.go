package simulator

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/karpsim/karpsim/invariants"
)

// The run's own checks catch a pod the engine loses: one bound pod dropped
// from its node, and one that leaves the run without a step deleting it.
func TestCheckInvariantsCatchesLostPods(t *testing.T) {
	sc := Scenario{Seed: 1, Duration: dur(5 * time.Minute), Inline: inflate, Steps: []Step{scaleAt(0, 3)}}
	steps, err := sc.compile(&placer{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := newSim(context.Background(), sc, steps, Config{CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.loop(); err != nil {
		t.Fatal(err)
	}
	if err := s.res.InvariantError(); err != nil {
		t.Fatal(err)
	}
	var bound []*simPod
	for _, p := range sortedPods(s.pods) {
		if p.node != "" {
			bound = append(bound, p)
		}
	}
	if len(bound) < 2 {
		t.Fatalf("%d pods bound", len(bound))
	}
	delete(s.nodes[bound[0].node].pods, bound[0].key) // bound nowhere, pending nowhere
	delete(s.nodes[bound[1].node].pods, bound[1].key)
	delete(s.pods, bound[1].key) // gone without a reason
	s.generation++
	s.check.cluster()
	err = s.res.InvariantError()
	if !errors.Is(err, invariants.ErrViolated) {
		t.Fatalf("InvariantError = %v", err)
	}
	for _, want := range []string{"conservation pod=" + bound[0].key + ": at +5m0s: lost", "conservation pod=" + bound[1].key + ": at +5m0s: left the run"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nwants %q", err, want)
		}
	}
}
