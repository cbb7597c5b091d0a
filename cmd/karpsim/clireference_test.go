package main

//go:generate go test -run TestCLIReference -update .

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

// cliReference is the folder of the command-line reference, one Markdown
// page per command, generated from the command tree with cobra/doc.
var cliReference = filepath.Join("..", "..", "docs", "cli")

// cliReferenceHeader opens every page of the reference.
const cliReferenceHeader = "<!-- Generated from karpsim's commands by `go generate ./cmd/karpsim`; do not edit. -->\n\n"

// writeCLIReference writes the reference of the whole command tree into dir.
func writeCLIReference(dir string) error {
	root := newRootCommand()
	var stamp func(*cobra.Command)
	stamp = func(c *cobra.Command) {
		c.DisableAutoGenTag = true // no date: the same tree gives the same pages
		for _, sub := range c.Commands() {
			stamp(sub)
		}
	}
	stamp(root)
	header := func(string) string { return cliReferenceHeader }
	link := func(name string) string { return name }
	return doc.GenMarkdownTreeCustom(root, dir, header, link)
}

// readMarkdown reads the .md files of a folder by name.
func readMarkdown(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		pages[e.Name()] = string(data)
	}
	return pages
}

// TestCLIReference keeps docs/cli current: the checked-in pages must be
// what the command tree generates now, no page missing and none left over
// from a command that is gone. `go generate ./cmd/karpsim` (or this test
// with -update) rewrites them.
func TestCLIReference(t *testing.T) {
	fresh := t.TempDir()
	if err := writeCLIReference(fresh); err != nil {
		t.Fatal(err)
	}
	want := readMarkdown(t, fresh)
	if len(want) < 10 || want["karpsim.md"] == "" || want["karpsim_plan.md"] == "" {
		t.Fatalf("the generator wrote %d pages, want one per command (karpsim.md, karpsim_plan.md, ...)", len(want))
	}
	if *update {
		if err := os.MkdirAll(cliReference, 0o755); err != nil {
			t.Fatal(err)
		}
		for name := range readMarkdown(t, cliReference) {
			if err := os.Remove(filepath.Join(cliReference, name)); err != nil {
				t.Fatal(err)
			}
		}
		for name, page := range want {
			if err := os.WriteFile(filepath.Join(cliReference, name), []byte(page), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for _, problem := range staleCLIPages(want, readMarkdown(t, cliReference)) {
		t.Error(problem)
	}
}

// staleCLIPages compares the pages generated now (want) with the pages
// checked in (have), by file name, and says what is wrong with each.
func staleCLIPages(want, have map[string]string) []string {
	names := map[string]bool{}
	for n := range want {
		names[n] = true
	}
	for n := range have {
		names[n] = true
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(names)) {
		page := filepath.ToSlash(filepath.Join("docs", "cli", name))
		got, ok := have[name]
		switch {
		case !ok:
			problems = append(problems, page+" is missing: run go generate ./cmd/karpsim")
		case want[name] == "":
			problems = append(problems, page+" documents no current command: run go generate ./cmd/karpsim to remove it")
		case got != want[name]:
			problems = append(problems, page+" is stale: run go generate ./cmd/karpsim and review the diff\n"+firstDifference(want[name], got))
		}
	}
	return problems
}

// TestCLIReferenceGenerator checks the generator and the comparison: a page
// per command, with its flags, no dated stamp, the same pages twice, and a
// page changed by hand, one removed and one left over each reported.
func TestCLIReferenceGenerator(t *testing.T) {
	dir := t.TempDir()
	if err := writeCLIReference(dir); err != nil {
		t.Fatal(err)
	}
	pages := readMarkdown(t, dir)
	if !strings.Contains(pages["karpsim_plan.md"], "--filename") || !strings.HasPrefix(pages["karpsim_plan.md"], cliReferenceHeader) {
		t.Fatalf("karpsim_plan.md does not document plan's flags under the header:\n%s", pages["karpsim_plan.md"])
	}
	for _, name := range []string{"karpsim.md", "karpsim_sweep_merge.md", "karpsim_explain_pod.md"} {
		if pages[name] == "" {
			t.Errorf("no page %s", name)
		}
	}
	for name, page := range pages {
		if strings.Contains(page, "Auto generated") {
			t.Errorf("%s carries cobra's dated stamp: the pages would change every day", name)
		}
	}
	again := t.TempDir()
	if err := writeCLIReference(again); err != nil {
		t.Fatal(err)
	}
	for name, page := range readMarkdown(t, again) {
		if page != pages[name] {
			t.Errorf("%s differs between two generations: the reference is not deterministic", name)
		}
	}
	if problems := staleCLIPages(pages, pages); len(problems) > 0 {
		t.Errorf("identical pages reported: %v", problems)
	}
	have := maps.Clone(pages)
	have["karpsim_plan.md"] = strings.Replace(have["karpsim_plan.md"], "--filename", "--file-name", 1)
	delete(have, "karpsim_version.md")
	have["karpsim_gone.md"] = "a command that is no more"
	problems := strings.Join(staleCLIPages(pages, have), "\n")
	for _, want := range []string{"docs/cli/karpsim_plan.md is stale", "docs/cli/karpsim_version.md is missing", "docs/cli/karpsim_gone.md documents no current command"} {
		if !strings.Contains(problems, want) {
			t.Errorf("the comparison does not report %q; it reports:\n%s", want, problems)
		}
	}
}
