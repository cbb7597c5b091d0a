package conformance

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// upstreamCommit is the kubernetes-sigs/karpenter release tag (a commit
// once) every inventory file of that repository describes; line numbers are
// that release's, as its Go module brings the files.
const upstreamCommit = "v1.15.0"

// Repositories whose suites are inventoried, with the release tag each
// one's inventory files describe: Karpenter's core and its AWS provider, whose
// instance-type and capacity-reservation suites check the allocatable,
// overhead, max pods and offerings karpsim's AWS model computes.
const (
	coreRepo = "kubernetes-sigs/karpenter"
	awsRepo  = "aws/karpenter-provider-aws"
)

var repoCommits = map[string]string{
	coreRepo: upstreamCommit,
	awsRepo:  "v1.15.0",
}

// inventory is one upstream spec file: specs/<path under pkg/controllers>.yaml.
type inventory struct {
	// Repo is the upstream repository, "" meaning kubernetes-sigs/karpenter.
	Repo string `yaml:"repo,omitempty"`
	// Upstream is the file's path in the repository.
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
	// SkippedUpstream says why upstream skips the spec on every Kubernetes
	// version it supports (its Skip call): the spec counts as skipped, not
	// as passed or failed, whether or not a case translates it.
	SkippedUpstream string `yaml:"skippedUpstream,omitempty"`
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
	slices.SortFunc(out, func(a, b inventory) int {
		// Karpenter's core first, then the provider.
		return cmp.Or(boolOrder(a.repo() != coreRepo, b.repo() != coreRepo),
			strings.Compare(a.repo(), b.repo()), strings.Compare(a.Upstream, b.Upstream))
	})
	return out, err
}

// boolOrder orders false before true.
func boolOrder(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// repo is the inventory's repository, the core one by default.
func (inv inventory) repo() string {
	if inv.Repo == "" {
		return coreRepo
	}
	return inv.Repo
}

// title names the upstream file: its path, prefixed with the repository
// when that is not Karpenter's core.
func (inv inventory) title() string {
	if inv.repo() == coreRepo {
		return inv.Upstream
	}
	return inv.repo() + ": " + inv.Upstream
}

func (inv inventory) check() error {
	commit, known := repoCommits[inv.repo()]
	switch {
	case !known:
		return fmt.Errorf("repo %q is not one whose suites are inventoried", inv.Repo)
	case inv.Upstream == "" || inv.Commit != commit:
		return fmt.Errorf("upstream path missing or commit is not %s", commit)
	}
	for i, s := range inv.Specs {
		switch {
		case i > 0 && s.Line <= inv.Specs[i-1].Line:
			return fmt.Errorf("line %d: specs must be in increasing line order", s.Line)
		case strings.TrimSpace(s.What) == "":
			return fmt.Errorf("line %d: no description", s.Line)
		case s.SkippedUpstream != "" && s.NotApplicable != "":
			return fmt.Errorf("line %d: skipped upstream and not applicable: say only that it is skipped", s.Line)
		case s.Test != "" && s.NotApplicable != "":
			return fmt.Errorf("line %d: both a test and a reason it does not apply", s.Line)
		case s.Note != "" && (s.Test != "" || s.NotApplicable != ""):
			return fmt.Errorf("line %d: a note is only for a spec not yet translated", s.Line)
		case strings.ContainsAny(s.What+s.NotApplicable+s.Note+s.SkippedUpstream, "|\n"):
			return fmt.Errorf("line %d: a description may hold neither | nor a newline", s.Line)
		}
	}
	return nil
}
