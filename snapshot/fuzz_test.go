package snapshot

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
)

// FuzzYAMLToPlan feeds arbitrary bytes through the whole path `karpsim plan`
// takes (decode, snapshot, solve) and requires that nothing panics and that
// every refusal is an error. Pods are capped, and a small synthetic catalog
// stands in for the EC2 model (which has its own fuzz target), so each
// input stays quick under the fuzzer's instrumentation.
func FuzzYAMLToPlan(f *testing.F) {
	catalog := instancetypes.Fake(20)
	opts := Options{MaxPods: 500, Catalog: func(*apis.EC2NodeClass) (instancetypes.Catalog, error) { return catalog, nil }}
	for _, pattern := range []string{"../testdata/plan/*/input.yaml", "../testdata/seed-manifests/*.yaml"} {
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
		set, err := manifests.Decode("fuzz.yaml", data)
		if err != nil {
			return
		}
		snap, err := FromSet(set, opts)
		if err != nil {
			return
		}
		r := scheduling.Solve(snap.Input(scheduling.Options{}))
		if got, want := r.Summary.ScheduledPods+r.Summary.UnschedulablePods, len(snap.Pending)+len(snap.Buffers); got != want {
			t.Fatalf("%d pods accounted for, %d pending and %d buffer pods", got, len(snap.Pending), len(snap.Buffers))
		}
		if r.Summary.BufferPods != len(snap.Buffers) {
			t.Fatalf("%d buffer pods in the summary, %d in the snapshot", r.Summary.BufferPods, len(snap.Buffers))
		}
	})
}
