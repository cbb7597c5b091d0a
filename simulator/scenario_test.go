package simulator

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden results under testdata/")

// TestGoldenScenarios runs every scenario under testdata/scenarios and
// compares its JSON result with testdata/<name>.golden.json; -update
// rewrites them, to be reviewed as diffs.
func TestGoldenScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, f := range files {
		sc, err := LoadScenario(f)
		if err != nil {
			t.Fatal(err)
		}
		ran++
		t.Run(sc.Name, func(t *testing.T) {
			res, err := Run(context.Background(), sc, Config{CheckInvariants: true})
			if err != nil {
				t.Fatal(err)
			}
			noViolations(t, res)
			got := append(marshal(t, res), '\n')
			golden := filepath.Join("testdata", sc.Name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the run; rerun with -update and review the diff", golden)
			}
		})
	}
	if ran < 2 {
		t.Fatalf("ran %d scenarios", ran)
	}
}

func TestParseScenarioRefusesBadInput(t *testing.T) {
	for name, doc := range map[string]string{
		"no duration":    "seed: 1\n",
		"unknown field":  "duration: 1m\nsteps: [{at: 1s, scael: {deployment: x, replicas: 1}}]\n",
		"two kinds":      "duration: 1m\nsteps: [{at: 1s, scale: {deployment: x, replicas: 1}, interrupt: {count: 1}}]\n",
		"no kind":        "duration: 1m\nsteps: [{at: 1s}]\n",
		"negative count": "duration: 1m\nsteps: [{at: 1s, interrupt: {count: -1}}]\n",
		"failure rate":   "duration: 1m\ncloud: {failureRate: 1.5}\n",
		"sample often":   "duration: 1m\nsampleEvery: 1ms\n",
		"sample never":   "duration: 1m\nsampleEvery: -1s\n",
		"many samples":   "duration: 100000h\nsampleEvery: 1s\n",
		"empty shift":    "duration: 1m\ncloud: {zonalShifts: [\"\"]}\n",
	} {
		if _, err := ParseScenario([]byte(doc)); !errors.Is(err, ErrInvalidScenario) {
			t.Errorf("%s: error %v, want ErrInvalidScenario", name, err)
		}
	}
}

func TestStepNamingNothingIsRecorded(t *testing.T) {
	res := run(t, Scenario{Seed: 1, Duration: dur(1e9), Steps: []Step{
		{Scale: &ScaleStep{Deployment: "nope", Replicas: 1}},
		{Interrupt: &InterruptStep{}},
	}})
	failed := kinds(res, KindStepFailed)
	if len(failed) != 2 || !strings.Contains(failed[0].Reason, "default/nope") {
		t.Fatalf("want two step-failed decisions:\n%s", timeline(res))
	}
}

// FuzzParseScenario checks that no scenario text panics the parser or its
// validation, and that a scenario it accepts, steps and all, runs (briefly)
// without panicking, within its time, and without breaking an invariant.
func FuzzParseScenario(f *testing.F) {
	files, _ := filepath.Glob("../testdata/scenarios/*.yaml")
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("duration: 1h\nsteps: [{at: 0s, traffic: {deployment: inflate, max: 3, every: 10m}}, {at: 1m, arrivals: {deployment: inflate, perHour: 30, meanLifetime: 5m}}, {at: 2m, interrupt: {perHour: 10}}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		sc, err := ParseScenario(data)
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("parsing took %v", took)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidScenario) {
				t.Fatalf("error %v does not wrap ErrInvalidScenario", err)
			}
			return
		}
		// Runs are bounded so that the fuzzer stays fast: 5 minutes, no
		// files, the inflate Deployment when none is inline.
		sc.Manifests = nil
		sc.Duration.Duration = min(sc.Duration.Duration, 5*time.Minute)
		if sc.Inline == "" {
			sc.Inline = inflate
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := Run(ctx, sc, Config{CheckInvariants: true})
		if res != nil && len(res.Violations) > 0 {
			t.Fatalf("the run breaks %d invariants, the first: %v\n%q", len(res.Violations), res.Violations[0], data)
		}
		if ctx.Err() != nil {
			t.Fatalf("a run of at most 5 minutes took more than 20 s:\n%q", data)
		}
		if err != nil && !errors.Is(err, ErrInvalidScenario) {
			t.Logf("run error (allowed: manifests may be bad): %v", err)
		}
	})
}
