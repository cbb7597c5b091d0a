package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareGolden runs `karpsim compare -f NAME.yaml -o json` on every
// scenario under testdata/scenarios with a clusterAutoscaler section and
// compares the output with NAME.compare.json; -update rewrites them. Each
// NAME.md says why the Cluster Autoscaler's side is CA's behaviour, citing
// its documentation; review the diff of any -update against it.
func TestCompareGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(data, []byte("\nclusterAutoscaler:")) {
			continue
		}
		seen++
		base := strings.TrimSuffix(file, ".yaml")
		t.Run(filepath.Base(base), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if code := run([]string{"compare", "-f", file, "-o", "json"}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			matchGolden(t, base+".compare.json", stdout.Bytes(), "compare of "+file)
		})
	}
	if seen == 0 {
		t.Fatal("no scenario under testdata/scenarios has a clusterAutoscaler section")
	}
}
