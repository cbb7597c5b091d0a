package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/manifests"
)

// FuzzSweep reads arbitrary sweep files. A refusal wraps ErrInvalid and
// names the file; an accepted spec writes out and reads back as itself, its
// runs stay within MaxRuns, and each of its variants (the first three)
// applies to a scenario with its manifests without panicking, the same way
// twice, without changing the scenario's source or the variant, into
// manifests that decode.
func FuzzSweep(f *testing.F) {
	data, err := os.ReadFile("../testdata/nodepool-designs.sweep.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("scenarios: [a.yaml]\nseeds: [1, 1]\nvariants:\n- {name: x, workloadScale: 101}\n- {name: x, interruptionsPerHour: -1, autoscaler: nope}\n"))
	f.Add([]byte("scenarios: [a.yaml]\nvariants:\n- name: all\n  workloadScale: 2.5\n  interruptionsPerHour: 1.5\n  scenario: {duration: 10m, steps: null}\n  nodePools: {general: {spec: {weight: 7}}, '*': {spec: {limits: {cpu: 10}}}}\n"))
	f.Add([]byte("scenarios: [a.yaml]\nvariants:\n- {name: gone, nodePools: {genral: {spec: {}}}}\n- {name: null-patch, nodePools: {general: null}}\n- {name: ca, autoscaler: cluster-autoscaler, catalog: c.json}\n"))
	f.Add([]byte("scenarios: [a.yaml, b/]\nseeds: [18446744073709551615, 0]\nvariants: [{name: s, scenario: {seed: -1, steps: [{at: 1m, scale: {deployment: web, replicas: 1e9}}]}}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		spec, err := Parse("fuzz-sweep.yaml", data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), "fuzz-sweep.yaml:") {
				t.Fatalf("error %q does not name the file or wrap ErrInvalid", err)
			}
			return
		}
		out, err := yaml.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Parse("again.yaml", out)
		if err != nil || !reflect.DeepEqual(normalized(again), normalized(spec)) {
			t.Fatalf("%q\nwrites as\n%s\nwhich reads as %#v (%v)", data, out, again, err)
		}
		src := fileSource(t)
		if runs, err := Runs(spec, []Source{src}); err == nil && len(runs) > MaxRuns {
			t.Fatalf("%d runs", len(runs))
		}
		for i, v := range spec.variants() {
			if i == 3 {
				break
			}
			before, _ := json.Marshal(v)
			sc, streams, err := Prepare(src, v, 7)
			sc2, streams2, err2 := Prepare(src, v, 7)
			if (err == nil) != (err2 == nil) || !reflect.DeepEqual(sc, sc2) || !reflect.DeepEqual(streams, streams2) {
				t.Fatalf("variant %s prepares two ways: %v, %v", v.Name, err, err2)
			}
			if !reflect.DeepEqual(src, fileSource(t)) || !bytes.Equal(before, mustJSON(t, v)) {
				t.Fatalf("variant %s changed the source or itself", v.Name)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), src.Path+": ") {
					t.Fatalf("error does not name the scenario: %v", err)
				}
				continue
			}
			if _, err := manifests.LoadWith(nil, streams...); err != nil {
				t.Logf("variant %s: manifests refused (allowed: a patch may break them): %v", v.Name, err)
			}
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("took %v", took)
		}
	})
}

// normalized is a spec as JSON values, where an empty list and a missing
// one are the same.
func normalized(s Spec) any {
	out, _ := yaml.Marshal(s)
	var v any
	_ = yaml.Unmarshal(out, &v)
	return v
}

func mustJSON(t *testing.T, v any) []byte {
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
