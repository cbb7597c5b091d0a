package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files (testdata/{plan,disrupt}/*/expected.json, testdata/scenarios/*.expected.json, cmd/karpsim/testdata/help/*.txt) from the current output")

// TestPlanGolden plans every scenario under testdata/plan and compares the
// JSON with the scenario's expected.json. Each scenario's README.md says
// why that output is what Karpenter would do; review the diff of any
// -update against it.
func TestPlanGolden(t *testing.T) {
	runGolden(t, "plan")
}

// runGolden runs `karpsim <command> -f input.yaml -o json` on every scenario
// folder under testdata/<command>, with the flags of the folder's args file
// if it has one (one line, split on spaces), and compares the output with
// its expected.json, which -update rewrites. Every scenario needs a
// README.md saying why its output is Karpenter's. The scenarios run in
// parallel, beside the package's other parallel tests.
func runGolden(t *testing.T, command string) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", command, "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatalf("no scenarios under testdata/%s", command)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			args := []string{command, "-f", filepath.Join(dir, "input.yaml"), "-o", "json"}
			if extra, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
				args = append(args, strings.Fields(string(extra))...)
			}
			// The output TestStdinDecidesWhatTheFileDecides and
			// TestClusterDecidesWhatTheFilesDecide compare with.
			code, stdout, stderr := runShared(args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			matchGolden(t, filepath.Join(dir, "expected.json"), []byte(stdout), command+" of "+dir)
			if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
				t.Errorf("scenario %s has no README.md saying why its expected output is right", dir)
			}
		})
	}
}

// firstDifference shows the first line where got differs from want.
func firstDifference(want, got string) string {
	wl, gl := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			return "line " + itoa(i+1) + ":\n  want: " + string(w) + "\n  got:  " + string(g)
		}
	}
	return ""
}

func itoa(n int) string {
	var b []byte
	for n >= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
		n /= 10
	}
	return string(append([]byte{byte('0' + n)}, b...))
}

// matchGolden compares got, the output of what, with the golden file, or
// rewrites the file under -update.
func matchGolden(t *testing.T, golden string, got []byte, what string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/karpsim -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s; run with -update and review the diff\n%s", what, golden, firstDifference(string(want), string(got)))
	}
}
