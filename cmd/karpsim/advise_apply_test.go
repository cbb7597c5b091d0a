package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

// TestAdvicePatchesApply takes the input of every advise golden (and the
// built-in example written out as a file), commits it to a new git
// repository, and for every piece of advice applies `advise --patch
// --rank N` with `git apply`, plans the patched file, and checks that
// Karpenter's plan of it costs what the advice promised; it also checks
// that the patch changes only the lines it must (the rest of the file,
// comments included, is kept) and that `-o yaml` prints the NodePools the
// patched file holds.
func TestAdvicePatchesApply(t *testing.T) {
	t.Parallel()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: install it (apt-get install git) to check that advice applies with git apply")
	}
	inputs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "advise", "*", "input.yaml"))
	if err != nil || len(inputs) == 0 {
		t.Fatalf("no advise goldens: %v", err)
	}
	example := [][]byte{snapshot.DefaultManifests(), exampleInflate}
	cases := map[string][]byte{"built-in example": []byte(string(example[0]) + "\n---\n" + string(example[1]))}
	for _, in := range inputs {
		data, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		cases[filepath.Base(filepath.Dir(in))] = data
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			gitRun := func(args ...string) string {
				t.Helper()
				cmd := exec.Command(git, append([]string{"-c", "user.email=karpsim@example.com", "-c", "user.name=karpsim"}, args...)...)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			file := filepath.Join(dir, "manifests", "cluster.yaml")
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			gitRun("init", "-q")
			gitRun("add", ".")
			gitRun("commit", "-q", "-m", "input")

			code, stdout, stderr := runCmd("advise", "-f", file, "-o", "json")
			if code != 0 {
				t.Fatalf("advise: exit %d: %s", code, stderr)
			}
			if strings.Contains(stderr, "the diffs are of the NodePools as karpsim writes them") {
				t.Errorf("advise could not edit the file in place: %s", stderr)
			}
			var out adviseOutput
			if err := json.Unmarshal([]byte(stdout), &out); err != nil {
				t.Fatal(err)
			}
			if len(out.Advice) == 0 {
				t.Fatal("no advice to apply")
			}
			for _, a := range out.Advice {
				rank := strconv.Itoa(a.Rank)
				code, patch, stderr := runCmd("advise", "-f", file, "--patch", "--rank", rank)
				if code != 0 {
					t.Fatalf("advise --patch --rank %s: exit %d: %s", rank, code, stderr)
				}
				if patch != a.Diff {
					t.Errorf("rank %s: --patch prints another diff than -o json's:\n%s\nwant\n%s", rank, patch, a.Diff)
				}
				if !strings.HasPrefix(patch, "--- a/manifests/cluster.yaml\n+++ b/manifests/cluster.yaml\n") {
					t.Errorf("rank %s: the patch does not name the file by its path in the work tree:\n%s", rank, patch)
				}
				removed, added := diffCounts(patch)
				if removed > len(a.Edits) || added > 4*len(a.Edits) {
					t.Errorf("rank %s: %d edits remove %d lines and add %d: more than they change:\n%s", rank, len(a.Edits), removed, added, patch)
				}
				code, yamlOut, stderr := runCmd("advise", "-f", file, "-o", "yaml", "--rank", rank)
				if code != 0 {
					t.Fatalf("rank %s: advise -o yaml: exit %d: %s", rank, code, stderr)
				}
				// The NodePools alone: their EC2NodeClass is missing.
				printed, _ := manifests.Decode("advise -o yaml", []byte(yamlOut))
				if printed == nil || len(printed.NodePools) != len(a.NodePools) {
					t.Fatalf("rank %s: -o yaml prints %s, not the %d NodePools the advice edits", rank, yamlOut, len(a.NodePools))
				}
				apply := exec.Command(git, "apply", "-")
				apply.Dir = dir
				apply.Stdin = strings.NewReader(patch)
				if msg, err := apply.CombinedOutput(); err != nil {
					t.Fatalf("rank %s: git apply: %v: %s\n%s", rank, err, msg, patch)
				}
				code, plan, stderr := runCmd("plan", "-f", file, "-o", "json")
				if code != 0 {
					t.Fatalf("rank %s: plan of the patched file: exit %d: %s", rank, code, stderr)
				}
				var p struct {
					Summary struct {
						PricePerHour  float64 `json:"pricePerHour"`
						ScheduledPods int     `json:"scheduledPods"`
					} `json:"summary"`
				}
				if err := json.Unmarshal([]byte(plan), &p); err != nil {
					t.Fatal(err)
				}
				if math.Abs(p.Summary.PricePerHour-a.PerHour) > 1e-4 || p.Summary.ScheduledPods < out.ScheduledPods {
					t.Errorf("rank %s (%v): the patched file plans to $%.4f for %d pods, the advice promised $%.4f for %d", rank, a.Edits,
						p.Summary.PricePerHour, p.Summary.ScheduledPods, a.PerHour, out.ScheduledPods)
				}
				patched, err := manifests.Load(file)
				if err != nil {
					t.Fatal(err)
				}
				for _, np := range printed.NodePools {
					i := slices.IndexFunc(patched.NodePools, func(p *apis.NodePool) bool { return p.Name == np.Name })
					if i < 0 || !sameJSON(np.Spec, patched.NodePools[i].Spec) {
						t.Errorf("rank %s: -o yaml prints NodePool %s otherwise than the patched file holds it", rank, np.Name)
					}
				}
				gitRun("checkout", "-q", ".")
			}
		})
	}
}

// diffCounts counts a unified diff's removed and added lines.
func diffCounts(diff string) (removed, added int) {
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "---"), strings.HasPrefix(line, "+++"):
		case strings.HasPrefix(line, "-"):
			removed++
		case strings.HasPrefix(line, "+"):
			added++
		}
	}
	return removed, added
}
