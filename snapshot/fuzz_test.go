package snapshot

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/invariants"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
)

// FuzzYAMLToPlan feeds arbitrary bytes through the whole path `karpsim plan`
// takes (decode, snapshot, solve) and requires that nothing panics, that
// every refusal is an error, that every plan passes invariants.CheckPlan
// (no overcommitted node, every placement allowed, NodePool limits kept),
// and that the same input gives a byte-identical plan. Pods are capped, and a small synthetic catalog
// stands in for the EC2 model (which has its own fuzz target), so each
// input stays quick under the fuzzer's instrumentation.
func FuzzYAMLToPlan(f *testing.F) {
	catalog := instancetypes.Fake(20)
	opts := Options{MaxPods: 500, Catalog: func(*apis.EC2NodeClass) (instancetypes.Catalog, error) { return catalog, nil }}
	opts.Azure.CatalogFor = func(*apis.AKSNodeClass) (instancetypes.Catalog, error) { return catalog, nil }
	for _, pattern := range []string{"../testdata/plan/*/input.yaml", "../testdata/seed-manifests/*.yaml", "../testdata/azure/plan/*/input.yaml"} {
		files, err := filepath.Glob(pattern)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		set, err := manifests.Decode("fuzz.yaml", data)
		if err != nil {
			return
		}
		snap, err := FromSet(set, opts)
		if err != nil {
			return
		}
		in := snap.Input(scheduling.Options{})
		r := scheduling.Solve(in)
		if got, want := r.Summary.ScheduledPods+r.Summary.UnschedulablePods, len(snap.Pending)+len(snap.Buffers); got != want {
			t.Fatalf("%d pods accounted for, %d pending and %d buffer pods", got, len(snap.Pending), len(snap.Buffers))
		}
		if r.Summary.BufferPods != len(snap.Buffers) {
			t.Fatalf("%d buffer pods in the summary, %d in the snapshot", r.Summary.BufferPods, len(snap.Buffers))
		}
		if v := invariants.CheckPlan(in, r); len(v) > 0 {
			t.Fatalf("the plan breaks %d invariants, the first: %v\n%q", len(v), v[0], data)
		}
		first, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("the plan does not marshal: %v", err)
		}
		// The whole path again, from the bytes.
		set2, _ := manifests.Decode("fuzz.yaml", data)
		snap2, err := FromSet(set2, opts)
		if err != nil {
			t.Fatalf("a second snapshot of the same input fails: %v", err)
		}
		again, err := json.Marshal(scheduling.Solve(snap2.Input(scheduling.Options{})))
		if err != nil || !bytes.Equal(first, again) {
			t.Fatalf("two plans for one input:\n%s\n%s", first, again)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("took %v", took)
		}
	})
}
