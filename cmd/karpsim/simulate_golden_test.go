package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateGolden runs `karpsim simulate -f NAME.yaml --check -o json`
// (and the scenario's scenarioFlags) on every scenario under testdata/scenarios and compares the output with
// NAME.expected.json; -update (the flag of TestPlanGolden) rewrites them.
// Each scenario's NAME.md says what its timeline shows and why that is
// Karpenter's behaviour; review the diff of any -update against it.
func TestSimulateGolden(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenarios under testdata/scenarios")
	}
	for _, file := range files {
		base := strings.TrimSuffix(file, ".yaml")
		t.Run(filepath.Base(base), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			args := append([]string{"simulate", "-f", file, "--check", "-o", "json"}, scenarioFlags[filepath.Base(base)]...)
			if code := run(args, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			matchGolden(t, base+".expected.json", stdout.Bytes(), "simulate of "+file)
			if _, err := os.Stat(base + ".md"); err != nil {
				t.Errorf("scenario %s has no %s.md saying why its timeline is Karpenter's", file, filepath.Base(base))
			}
		})
	}
}

// TestSimulateOptimizeGolden runs `karpsim simulate --optimize` on every
// scenario with a NAME.optimize.json and compares the output with it;
// NAME.md says what the optimized timeline shows.
func TestSimulateOptimizeGolden(t *testing.T) {
	t.Parallel()
	goldens, err := filepath.Glob(filepath.Join("..", "..", "testdata", "scenarios", "*.optimize.json"))
	if err != nil || len(goldens) == 0 {
		t.Fatalf("no optimize goldens: %v", err)
	}
	for _, golden := range goldens {
		base := strings.TrimSuffix(golden, ".optimize.json")
		t.Run(filepath.Base(base), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			if code := run([]string{"simulate", "-f", base + ".yaml", "--optimize", "--check", "-o", "json"}, nil, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			matchGolden(t, golden, stdout.Bytes(), "simulate --optimize of "+base+".yaml")
		})
	}
}

// compare --optimize adds the optimized run and what it saves over
// Karpenter's, measured over the run; without the flag neither appears.
func TestCompareOptimize(t *testing.T) {
	t.Parallel()
	file := filepath.Join("..", "..", "testdata", "scenarios", "optimize-batch.yaml")
	var c comparison
	var stdout, stderr bytes.Buffer
	if code := run([]string{"compare", "-f", file, "--optimize", "-o", "json"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
		t.Fatal(err)
	}
	if c.KarpenterOptimized == nil || c.OptimizeSaved == nil {
		t.Fatalf("no optimized run in %s", stdout.String())
	}
	if c.OptimizeSaved.CostSaved <= 0 || c.KarpenterOptimized.TotalCost >= c.Karpenter.TotalCost {
		t.Errorf("the optimizing planner saves nothing: %+v", c.OptimizeSaved)
	}
	stdout.Reset()
	if code := run([]string{"compare", "-f", file}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if strings.Contains(stdout.String(), "OPTIMIZE") {
		t.Errorf("compare without --optimize shows the optimized run:\n%s", stdout.String())
	}
}
