package specs

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// suiteDirs are the directories of Karpenter core's three Ginkgo suites
// (provisioning, scheduling, disruption) whose every It and Entry the
// conformance table must list (issue 28): each of their test files with a
// spec needs an inventory file under conformance/specs. Each directory is
// its own suite, so subdirectories are not read.
var suiteDirs = []string{
	"pkg/controllers/provisioning",
	"pkg/controllers/provisioning/scheduling",
	"pkg/controllers/disruption",
}

// pendingInventories are spec files of those suites whose inventory a
// branch in flight is adding; whoever merges it empties the list. An entry
// whose inventory exists fails the test, so none outlives its merge.
var pendingInventories []string

// inventoried is the upstream paths of the core repository's inventory
// files under root.
func inventoried(t *testing.T, root string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var inv inventory
		if err := yaml.Unmarshal(data, &inv); err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		if inv.Repo == "" || inv.Repo == "kubernetes-sigs/karpenter" {
			out[inv.Upstream] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestEverySuiteFileIsInventoried: every test file of the three suites that
// holds an It or an Entry has an inventory file, unless it is pending.
func TestEverySuiteFileIsInventoried(t *testing.T) {
	root := filepath.Join("..", "..", "..", "conformance", "specs")
	listed := inventoried(t, root)
	dir, version := module(t, "sigs.k8s.io/karpenter")
	withSpecs := map[string]int{}
	for _, d := range suiteDirs {
		entries, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(d)))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			src, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(d), e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(specLines(src)); n > 0 {
				withSpecs[path.Join(d, e.Name())] = n
			}
		}
	}
	if len(withSpecs) == 0 {
		t.Fatalf("no spec file in %v of sigs.k8s.io/karpenter %s", suiteDirs, version)
	}
	for _, f := range slices.Sorted(maps.Keys(withSpecs)) {
		pending := slices.Contains(pendingInventories, f)
		switch {
		case listed[f] && pending:
			t.Errorf("%s is inventoried now: take it out of pendingInventories", f)
		case !listed[f] && !pending:
			t.Errorf("%s of sigs.k8s.io/karpenter %s holds %d specs but no inventory under conformance/specs lists it", f, version, withSpecs[f])
		}
	}
	for _, f := range pendingInventories {
		if withSpecs[f] == 0 {
			t.Errorf("pendingInventories names %s, which is no spec file of the suites in sigs.k8s.io/karpenter %s", f, version)
		}
	}
	t.Logf("%d spec files in the three suites of sigs.k8s.io/karpenter %s, %d of them pending", len(withSpecs), version, len(pendingInventories))
}
