package clusterdump

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

var dumps = flag.String("dumps", "", "write the benchmark dumps into this folder, created if missing (for end-to-end runs of karpsim)")

// TestWriteDumps writes the dumps the README's end-to-end numbers are
// measured on, when -dumps is given.
func TestWriteDumps(t *testing.T) {
	if *dumps == "" {
		t.Skip("no -dumps folder given")
	}
	if err := os.MkdirAll(*dumps, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name string, fn func(*os.File) error) {
		f, err := os.Create(filepath.Join(*dumps, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := fn(f); err != nil {
			t.Fatal(err)
		}
	}
	write("nodepool.yaml", func(f *os.File) error { return NodePool(f) })
	write("pods.yaml", func(f *os.File) error { return PendingPods(f, YAML, 20000, 40) })
	write("pods.json", func(f *os.File) error { return PendingPods(f, JSON, 20000, 40) })
	write("cluster-5000.yaml", func(f *os.File) error { return DisruptionCluster(f, 5000) })
}

// The YAML and JSON forms of a dump are the same data.
func TestFormatsAgree(t *testing.T) {
	var y, j bytes.Buffer
	if err := PendingPods(&y, YAML, 30, 4); err != nil {
		t.Fatal(err)
	}
	if err := PendingPods(&j, JSON, 30, 4); err != nil {
		t.Fatal(err)
	}
	var fromYAML, fromJSON any
	if err := yaml.Unmarshal(y.Bytes(), &fromYAML); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(j.Bytes(), &fromJSON); err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(fromYAML)
	b, _ := json.Marshal(fromJSON)
	if !bytes.Equal(a, b) {
		t.Errorf("YAML and JSON dumps differ:\n%s\n%s", a[:min(len(a), 2000)], b[:min(len(b), 2000)])
	}
	if per := y.Len() / 30; per < 3400 || per > 4200 {
		t.Errorf("%d bytes of YAML a pod, want about 3.8 KB", per)
	}
}
