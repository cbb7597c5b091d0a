package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/plan/*/expected.json from the current output")

// TestPlanGolden plans every scenario under testdata/plan and compares the
// JSON with the scenario's expected.json. Each scenario's README.md says
// why that output is what Karpenter would do; review the diff of any
// -update against it.
func TestPlanGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "plan", "*"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no scenarios under testdata/plan")
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run([]string{"plan", "-f", filepath.Join(dir, "input.yaml"), "-o", "json"}, &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			golden := filepath.Join(dir, "expected.json")
			if *update {
				if err := os.WriteFile(golden, stdout.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/karpsim -run TestPlanGolden -update to create it)", err)
			}
			if !bytes.Equal(stdout.Bytes(), want) {
				t.Errorf("plan of %s differs from %s; run with -update and review the diff\n%s", dir, golden, firstDifference(string(want), stdout.String()))
			}
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
