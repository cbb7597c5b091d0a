package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Go code of docs/library.md is cut from Examples and tests that
// compile and run: each ```go block quotes the last .go file linked before
// it. A line "// ..." in a block stands for lines left out; every other
// line must be in the file, in the block's order, the runs between the
// gaps unbroken (indentation and blank lines aside).

// libraryGuide is the guide, relative to this package.
var libraryGuide = filepath.Join("..", "..", "docs", "library.md")

// goLink is a Markdown link to a .go file.
var goLink = regexp.MustCompile(`\]\(([^)]+\.go)\)`)

// exampleName is an Example named in the guide as pkg.ExampleX.
var exampleName = regexp.MustCompile("`([a-z]+)\\.(Example[A-Za-z_]*)`")

// quotedBlock is a ```go block of the guide and the file it quotes.
type quotedBlock struct {
	line   int    // the line of the opening fence, from 1
	source string // the .go file, relative to the guide's folder
	code   []string
}

// goBlocks are the guide's ```go blocks, each with the last .go file
// linked before it ("" when none is).
func goBlocks(markdown string) []quotedBlock {
	var blocks []quotedBlock
	var current *quotedBlock
	source := ""
	for i, line := range strings.Split(markdown, "\n") {
		switch {
		case current == nil && strings.TrimSpace(line) == "```go":
			current = &quotedBlock{line: i + 1, source: source}
		case current != nil && strings.HasPrefix(line, "```"):
			blocks = append(blocks, *current)
			current = nil
		case current != nil:
			current.code = append(current.code, line)
		default:
			if m := goLink.FindAllStringSubmatch(line, -1); m != nil {
				source = m[len(m)-1][1]
			}
		}
	}
	return blocks
}

// normalized are the lines of code without indentation and blank lines.
func normalized(lines []string) []string {
	var out []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// quoteProblem says how a block differs from its source, "" when every
// run of its lines between "// ..." gaps is in the source in order.
func quoteProblem(code []string, source string) string {
	file := normalized(strings.Split(source, "\n"))
	var runs [][]string
	run := []string{}
	for _, l := range normalized(code) {
		if l == "// ..." {
			runs = append(runs, run)
			run = []string{}
			continue
		}
		run = append(run, l)
	}
	runs = append(runs, run)
	at := 0
	for _, r := range runs {
		if len(r) == 0 {
			continue
		}
		found := -1
		for i := at; i+len(r) <= len(file); i++ {
			if equalLines(file[i:i+len(r)], r) {
				found = i
				break
			}
		}
		if found < 0 {
			return fmt.Sprintf("these lines are not in the source (after what came before):\n\t%s", strings.Join(r, "\n\t"))
		}
		at = found + len(r)
	}
	return ""
}

func equalLines(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestLibraryGuideQuotesRealCode holds docs/library.md (and the README's
// Go snippet) to the Examples it quotes and names: every ```go block is in
// the file linked before it, and every pkg.ExampleX the guide names is a
// function of that package's tests.
func TestLibraryGuideQuotesRealCode(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := checkQuotes(t, "README.md", string(readme), filepath.Join("..", "..")); n != 1 {
		t.Errorf("README.md has %d Go blocks, want its one snippet", n)
	}
	data, err := os.ReadFile(libraryGuide)
	if err != nil {
		t.Fatal(err)
	}
	guide := string(data)
	if n := checkQuotes(t, "docs/library.md", guide, filepath.Dir(libraryGuide)); n < 10 {
		t.Fatalf("docs/library.md has %d Go blocks; the guide quotes more than that", n)
	}
	names := exampleName.FindAllStringSubmatch(guide, -1)
	if len(names) < 20 {
		t.Fatalf("docs/library.md names %d Examples, want every one", len(names))
	}
	dirs := map[string]string{"hosttest": filepath.Join("controller", "hosttest")}
	for _, m := range names {
		dir := m[1]
		if d, ok := dirs[dir]; ok {
			dir = d
		}
		files, _ := filepath.Glob(filepath.Join("..", "..", dir, "*_test.go"))
		found := false
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(src), "\nfunc "+m[2]+"() {") {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("docs/library.md names %s.%s, which no test file of %s defines", m[1], m[2], dir)
		}
	}
}

// checkQuotes checks the Go blocks of one Markdown file, whose links are
// relative to dir, and returns how many it has.
func checkQuotes(t *testing.T, name, markdown, dir string) int {
	t.Helper()
	blocks := goBlocks(markdown)
	for _, b := range blocks {
		if b.source == "" {
			t.Errorf("%s:%d: a Go block with no .go file linked before it", name, b.line)
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, b.source))
		if err != nil {
			t.Errorf("%s:%d: %v", name, b.line, err)
			continue
		}
		if p := quoteProblem(b.code, string(src)); p != "" {
			t.Errorf("%s:%d quotes %s, but %s", name, b.line, b.source, p)
		}
	}
	return len(blocks)
}

// TestLibraryGuideCheckerCatchesMistakes holds the check to what it is
// for: a changed line, lines out of order, a gap that hides nothing wrong.
func TestLibraryGuideCheckerCatchesMistakes(t *testing.T) {
	source := "func f() {\n\ta := 1\n\tb := 2\n\tc := 3\n\treturn a + b + c\n}\n"
	for _, c := range []struct {
		code string
		ok   bool
	}{
		{"a := 1\nb := 2", true},
		{"a := 1\n// ...\nreturn a + b + c", true},
		{"  a := 1\n\n  b := 2", true},
		{"a := 1\nc := 3", false},         // a line left out without a gap
		{"b := 2\n// ...\na := 1", false}, // out of order
		{"a := 1\nb := 20", false},        // changed
		{"a := 1\n// ...\nd := 4", false}, // not there at all
	} {
		if got := quoteProblem(strings.Split(c.code, "\n"), source) == ""; got != c.ok {
			t.Errorf("quoteProblem(%q) ok = %v, want %v", c.code, got, c.ok)
		}
	}
	blocks := goBlocks("see [x](../a/x.go) and [y](../b/y.go):\n\n```go\nfoo()\n```\n\n```go\nbar()\n```\n")
	if len(blocks) != 2 || blocks[0].source != "../b/y.go" || blocks[1].source != "../b/y.go" || blocks[0].code[0] != "foo()" {
		t.Errorf("goBlocks read %+v", blocks)
	}
}
