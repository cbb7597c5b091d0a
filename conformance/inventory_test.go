package conformance

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// upstreamCommit is the kubernetes-sigs/karpenter commit every inventory
// file describes; line numbers are that commit's.
const upstreamCommit = "2266468104f36373ed002241afaee2d3bbc26078"

// inventory is one upstream spec file: specs/<path under pkg/controllers>.yaml.
type inventory struct {
	// Upstream is the file's path in kubernetes-sigs/karpenter.
	Upstream string `yaml:"upstream"`
	// Commit is the upstream commit the lines refer to.
	Commit string `yaml:"commit"`
	Specs  []spec `yaml:"specs"`
}

// spec is one upstream It or Entry.
type spec struct {
	// Line is where the It or Entry starts in the upstream file.
	Line int `yaml:"line"`
	// What says what the spec checks, in our words.
	What string `yaml:"what"`
	// Test names the registered case that translates the spec ("" while not
	// yet translated), as "group/slug"; it runs as TestSpecs/group/slug.
	Test string `yaml:"test,omitempty"`
	// NotApplicable says in one line why the spec has no karpsim counterpart
	// (it checks Kubernetes plumbing: events, conditions, metrics,
	// finalizers, controller internals).
	NotApplicable string `yaml:"notApplicable,omitempty"`
	// Note is shown beside a spec not yet translated: what karpsim lacks
	// to express it, for instance.
	Note string `yaml:"note,omitempty"`
}

// readInventories reads every file under specs/, sorted by upstream path,
// and checks each on its own.
func readInventories() ([]inventory, error) {
	var out []inventory
	err := filepath.WalkDir("specs", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		dec := yaml.NewDecoder(f)
		dec.KnownFields(true)
		var inv inventory
		if err := dec.Decode(&inv); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := inv.check(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, inv)
		return nil
	})
	slices.SortFunc(out, func(a, b inventory) int { return strings.Compare(a.Upstream, b.Upstream) })
	return out, err
}

func (inv inventory) check() error {
	if inv.Upstream == "" || inv.Commit != upstreamCommit {
		return fmt.Errorf("upstream path missing or commit is not %s", upstreamCommit)
	}
	for i, s := range inv.Specs {
		switch {
		case i > 0 && s.Line <= inv.Specs[i-1].Line:
			return fmt.Errorf("line %d: specs must be in increasing line order", s.Line)
		case strings.TrimSpace(s.What) == "":
			return fmt.Errorf("line %d: no description", s.Line)
		case s.Test != "" && s.NotApplicable != "":
			return fmt.Errorf("line %d: both a test and a reason it does not apply", s.Line)
		case s.Note != "" && (s.Test != "" || s.NotApplicable != ""):
			return fmt.Errorf("line %d: a note is only for a spec not yet translated", s.Line)
		case strings.ContainsAny(s.What+s.NotApplicable+s.Note, "|\n"):
			return fmt.Errorf("line %d: a description may hold neither | nor a newline", s.Line)
		}
	}
	return nil
}
