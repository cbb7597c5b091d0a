package simulator

import (
	"context"
	"strings"
	"testing"
)

// TestCapacityBufferSavesPendingTime runs the golden buffer scenario with
// the invariants checked: the buffer's virtual pods are never counted as
// pods of the cluster, real pods bind at once to the room they hold, and
// the comparison run without the buffer waits for its nodes and costs
// less.
func TestCapacityBufferSavesPendingTime(t *testing.T) {
	sc, err := LoadScenario("../testdata/scenarios/capacity-buffer.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), sc, Config{CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	noViolations(t, res)
	b := res.Buffers
	switch {
	case b == nil:
		t.Fatal("no buffer report")
	case b.PendingTime.P50.Duration != 0 || b.WithoutPendingTime.P50.Duration == 0:
		t.Errorf("pending p50 %v with the buffer, %v without: the buffer saves nothing", b.PendingTime.P50.Duration, b.WithoutPendingTime.P50.Duration)
	case b.Cost <= 0 || b.TotalCost != res.TotalCost:
		t.Errorf("buffer cost %v (run %v, without %v)", b.Cost, b.TotalCost, b.WithoutTotalCost)
	case b.PendingTime.Count != 12 || b.WithoutPendingTime.Count != 12:
		t.Errorf("%d and %d waits, want the 12 real pods each: virtual pods never wait", b.PendingTime.Count, b.WithoutPendingTime.Count)
	}
	without, err := Run(context.Background(), sc, Config{IgnoreBuffers: true, CheckInvariants: true})
	if err != nil {
		t.Fatal(err)
	}
	if without.Buffers != nil || without.TotalCost != b.WithoutTotalCost {
		t.Errorf("IgnoreBuffers: report %v, cost %v, want none and %v", without.Buffers, without.TotalCost, b.WithoutTotalCost)
	}
}

func TestBufferStepsAreChecked(t *testing.T) {
	for _, tc := range []struct{ step, want string }{
		{`{at: 1m, buffer: {name: b}}`, "set one of replicas and delete"},
		{`{at: 1m, buffer: {name: b, replicas: -1}}`, "replicas -1 is negative"},
		{`{at: 1m, buffer: {manifest: "apiVersion: autoscaling.x-k8s.io/v1beta1\nkind: CapacityBuffer\nmetadata: {name: b}\nspec: {scalableRef: {apiGroup: apps, kind: Job, name: j}}"}}`,
			`spec.scalableRef.kind: "Job" is not a kind Karpenter resolves`},
		{`{at: 1m, buffer: {manifest: "x: 1", name: b, delete: true}}`, "not both"},
	} {
		_, err := ParseScenario([]byte("seed: 1\nduration: 1h\nsteps:\n- " + tc.step + "\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to say %q", tc.step, err, tc.want)
		}
	}
}
