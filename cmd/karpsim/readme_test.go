package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The shell examples of the repository's Markdown files (fenced blocks with
// the info string sh, bash or shell) run as written from the repository's
// root, on the files it ships. An example that must show a file of the
// reader's own goes in a block of its own whose first lines are
//
//	# placeholder: NAME what to put in its place
//
// one such line for each NAME (a word of the block's commands that names
// nothing in the repository). Those blocks are checked (commands and flags
// exist, every other file they name exists) but not run.
//
// What runs: every karpsim command (`karpsim ARGS` or `go run ./cmd/karpsim
// ARGS`) in-process, in the order of its block, blocks in parallel. A pipe
// from `kubectl get` gets the cluster of testdata/cluster/ instead; a pipe
// from karpsim gets its standard output; `> FILE` and the flags that name a
// file to write (--report, --output-file, report's -o) write into a folder
// of the block's own, where the later commands of the block (`< FILE`, -f
// FILE, ...) find them, so that nothing is written into the repository. What is checked without being
// run: commands that read a live cluster (--kubeconfig, --context, kubectl
// other than a `kubectl get` piped into karpsim, and the karpsim commands
// after such a kubectl in the block), the paths of go commands (./pkg), the
// files kubectl -f reads. The examples listed in slowExamples are checked,
// and run only with KARPSIM_SLOW_TESTS=1 (as .ci/run sets) and without
// -short.

// placeholderMark starts the comment line that names a placeholder.
const placeholderMark = "# placeholder:"

// slowExamples are the commands that run a whole sweep or a day of
// simulated traffic: about 9 CPU-seconds each for a sweep (README runs five
// of them), 1 to 2 for the others. They run only when runSlowExamples.
var slowExamples = []string{"sweep -f testdata/nodepool-designs.sweep.yaml", "daily-traffic.yaml", "optimize-consolidation.yaml"}

// runSlowExamples tells whether slowExamples run: with KARPSIM_SLOW_TESTS=1
// and without -short.
func runSlowExamples() bool {
	return !testing.Short() && os.Getenv("KARPSIM_SLOW_TESTS") == "1"
}

// markdownWithShell are the Markdown files whose shell blocks are checked,
// relative to the repository's root.
func markdownWithShell(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.md", "docs/*.md", "examples/*.md", "examples/*/*.md"} {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		require.NoError(t, err)
		for _, m := range matches {
			rel, err := filepath.Rel(root, m)
			require.NoError(t, err)
			files = append(files, rel)
		}
	}
	return files
}

// TestMarkdownExamplesRun runs the shell examples of README.md and the other
// Markdown files, as described at the top of this file.
func TestMarkdownExamplesRun(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	var blocks []shellBlock
	for _, file := range markdownWithShell(t, root) {
		data, err := os.ReadFile(filepath.Join(root, file))
		require.NoError(t, err)
		blocks = append(blocks, shellBlocks(file, string(data))...)
	}
	require.NotEmpty(t, blocks, "no shell blocks in README.md")
	var cluster []string
	for _, name := range []string{"nodepools.yaml", "nodes.yaml", "pods.yaml"} {
		data, err := os.ReadFile(filepath.Join(root, "testdata", "cluster", name))
		require.NoError(t, err)
		cluster = append(cluster, string(data))
	}
	before := rootEntries(t, root)

	// The commands name paths relative to the root; the subtests below run
	// in parallel with each other only, while this test waits for them.
	t.Chdir(root)
	t.Cleanup(func() {
		assert.Equal(t, before, rootEntries(t, root), "an example wrote into the repository's root")
	})
	for _, b := range blocks {
		t.Run(fmt.Sprintf("%s:%d", b.file, b.line), func(t *testing.T) {
			t.Parallel()
			r := &blockRun{
				root:    root,
				dir:     t.TempDir(),
				cluster: strings.Join(cluster, "---\n"),
				errorf:  t.Errorf,
				logf:    t.Logf,
				short:   !runSlowExamples(),
			}
			r.block(b)
		})
	}
}

// rootEntries are the names in the repository's root folder.
func rootEntries(t *testing.T, root string) []string {
	entries, err := os.ReadDir(root)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestMarkdownExampleCheckerCatchesMistakes holds the checker of
// TestMarkdownExamplesRun to the mistakes it exists for: a file that is not
// there, a flag or command that does not exist, a placeholder that is none.
func TestMarkdownExampleCheckerCatchesMistakes(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	cases := []struct{ markdown, want string }{
		{"```sh\nkarpsim plan -f my-cluster.yaml   # mine\n```\n", "X.md:2: my-cluster.yaml does not exist"},
		{"```sh\nkarpsim plan --context prod --nodepool-file my-nodepool.yaml\n```\n", "X.md:2: my-nodepool.yaml does not exist"},
		{"```sh\nkarpsim instance-types --catalog=mine.json\n```\n", "X.md:2: mine.json does not exist"},
		{"```bash\nkarpsim simulate -f - < my-scenario.yaml\n```\n", "X.md:2: my-scenario.yaml does not exist"},
		{"```sh\nkarpsim plan --no-such-flag\n```\n", "X.md:2: karpsim plan --no-such-flag: unknown flag: --no-such-flag"},
		{"```sh\nkarpsim plna\n```\n", `X.md:2: karpsim plna: unknown command "plna"`},
		{"```sh\ngo test -run '^$' ./nosuchpackage/\n```\n", "X.md:2: ./nosuchpackage/ does not exist"},
		{"```sh\nkubectl apply -f job.yaml\n```\n", "X.md:2: job.yaml does not exist"},
		{"```sh\n# placeholder: go.mod is not mine\nkarpsim plan -f go.mod\n```\n", "X.md:2: placeholder go.mod exists"},
		{"```sh\n# placeholder: mine.yaml a file of yours\nkarpsim plan -f theirs.yaml\n```\n", "X.md:2: placeholder mine.yaml is not in the block"},
		{"```sh\n# placeholder: mine.yaml a file of yours\nkarpsim plan -f mine.yaml -f gone.yaml\n```\n", "X.md:3: gone.yaml does not exist"},
		{"```sh\ncat pods.txt | karpsim plan -f -\n```\n", `X.md:2: cannot feed "cat" into karpsim`},
	}
	for _, c := range cases {
		var problems []string
		r := &blockRun{
			root:   root,
			dir:    t.TempDir(),
			errorf: func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) },
			logf:   func(string, ...any) {},
			short:  true,
		}
		blocks := shellBlocks("X.md", c.markdown)
		require.Len(t, blocks, 1, c.markdown)
		r.block(blocks[0])
		require.NotEmpty(t, problems, c.markdown)
		assert.Contains(t, problems[0], c.want, c.markdown)
	}

	// And the same checks pass what is right.
	var problems []string
	r := &blockRun{root: root, dir: t.TempDir(), errorf: func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf(format, args...))
	}, logf: func(string, ...any) {}, short: true}
	good := "```sh\n# placeholder: mine.yaml a file of yours\nkarpsim plan -f mine.yaml -f testdata/cluster/\n" +
		"go test ./cmd/karpsim/ ./...\nkarpsim sweep -f testdata/nodepool-designs.sweep.yaml --emit-job > job.yaml\nkubectl apply -f job.yaml\n```\n"
	r.block(shellBlocks("X.md", good)[0])
	assert.Empty(t, problems)
}

// blockRun checks and runs the commands of one block.
type blockRun struct {
	root    string // the repository's root, which relative paths are in
	dir     string // where the block's commands write
	cluster string // what a `kubectl get` piped into karpsim gives it
	errorf  func(format string, args ...any)
	logf    func(format string, args ...any)
	short   bool // check the commands slow() calls slow without running them

	placeholders []string
	written      map[string]string // files the block wrote: name as written -> path in dir
	notWritten   map[string]bool   // files of written that a command not run would have written
	live         bool              // an earlier command needed a live cluster
	skipSlow     bool              // the line is slow, and short is set
}

func (r *blockRun) block(b shellBlock) {
	r.placeholders, r.written, r.notWritten, r.live = b.placeholders, map[string]string{}, map[string]bool{}, false
	for _, p := range b.placeholders {
		if r.exists(p) {
			r.errorf("%s:%d: placeholder %s exists: name the file itself, outside a placeholder block", b.file, b.line+1, p)
		}
		if !slices.ContainsFunc(b.commands, func(c shellLine) bool { return slices.Contains(tokens(c.text), p) }) {
			r.errorf("%s:%d: placeholder %s is not in the block", b.file, b.line+1, p)
		}
	}
	for _, c := range b.commands {
		at := fmt.Sprintf("%s:%d", b.file, c.line)
		r.skipSlow = r.short && slow(c.text)
		for _, p := range pipelines(c.text) {
			if !r.pipeline(at, p) {
				break
			}
		}
	}
}

// exists tells whether a path names a file or folder of the repository, or
// one an earlier command of the block wrote. Placeholders, standard input
// and the reader's own home and variables exist by definition.
func (r *blockRun) exists(path string) bool {
	if path == "-" || strings.HasPrefix(path, "~") || strings.HasPrefix(path, "$") {
		return true
	}
	if _, ok := r.written[path]; ok {
		return true
	}
	path = strings.TrimSuffix(path, "/...")
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.root, path)
	}
	_, err := os.Stat(path)
	return err == nil
}

// needs reports a path that does not exist and is no placeholder.
func (r *blockRun) needs(at, path string) bool {
	if slices.Contains(r.placeholders, path) || r.exists(path) {
		return true
	}
	r.errorf("%s: %s does not exist: use a file under testdata/, or show it in a block of its own marked %q", at, path, placeholderMark)
	return false
}

// pipeline checks and runs one pipeline; false stops the line.
func (r *blockRun) pipeline(at string, stages []stage) bool {
	var piped *string // what the stage before printed, when it is known
	for i, s := range stages {
		if s.stdin != "" && !r.needs(at, s.stdin) {
			return false
		}
		args, isKarpsim := karpsimArgs(s.args)
		if !isKarpsim {
			piped = nil
			if !r.other(at, s, i+1 < len(stages)) {
				return false
			}
			if len(s.args) > 1 && s.args[0] == "kubectl" && s.args[1] == "get" && i+1 < len(stages) {
				piped = &r.cluster
			}
			continue
		}
		var stdin string
		switch {
		case s.stdin != "" && !r.notWritten[s.stdin]:
			data, err := os.ReadFile(r.path(s.stdin))
			if err != nil {
				r.errorf("%s: %v", at, err)
				return false
			}
			stdin = string(data)
		case s.stdin != "":
		case i > 0 && piped == nil:
			r.errorf("%s: cannot feed %q into karpsim: pipe kubectl get or karpsim into it", at, stages[i-1].args[0])
			return false
		case i > 0:
			stdin = *piped
		}
		out, ran, ok := r.karpsim(at, args, s.stdin, stdin)
		if !ok {
			return false
		}
		if !ran {
			// What it would have written exists for the commands after
			// it, which are not run either when they read it.
			if s.stdout != "" {
				r.notWritten[s.stdout] = true
				r.output(s.stdout)
			}
			return true
		}
		piped = &out
		if s.stdout != "" {
			if err := os.WriteFile(r.output(s.stdout), []byte(out), 0o644); err != nil {
				r.errorf("%s: %v", at, err)
				return false
			}
		}
	}
	return true
}

// other checks a command that is not karpsim: the packages of go, the
// files of kubectl -f; a kubectl command other than a `kubectl get` piped
// on needs a live cluster.
func (r *blockRun) other(at string, s stage, pipedOn bool) bool {
	if len(s.args) == 0 {
		return true
	}
	switch s.args[0] {
	case "go":
		for _, a := range s.args[1:] {
			if (strings.HasPrefix(a, "./") || strings.HasPrefix(a, "../")) && !r.needs(at, a) {
				return false
			}
		}
	case "kubectl":
		for i, a := range s.args {
			if (a == "-f" || a == "--filename") && i+1 < len(s.args) && !r.needs(at, s.args[i+1]) {
				return false
			}
		}
		if !(pipedOn && len(s.args) > 1 && s.args[1] == "get") {
			r.live = true
		}
	}
	if s.stdout != "" {
		r.output(s.stdout)
	}
	return true
}

// path is where a file named in a command is read from.
func (r *blockRun) path(name string) string {
	if p, ok := r.written[name]; ok {
		return p
	}
	return name
}

// unsafeInName is what a file name the block writes loses.
var unsafeInName = regexp.MustCompile(`[^A-Za-z0-9._-]`)

// output is where the block writes a file a command names.
func (r *blockRun) output(name string) string {
	if p, ok := r.written[name]; ok {
		return p
	}
	base := unsafeInName.ReplaceAllString(filepath.Base(name), "_")
	p := filepath.Join(r.dir, fmt.Sprintf("%d-%s", len(r.written), base))
	r.written[name] = p
	return p
}

// isOutputFile tells whether a flag names a file karpsim writes: --report,
// --output-file, and an --output that takes a file name (report's).
func isOutputFile(f *pflag.Flag) bool {
	_, file := f.Annotations[cobra.BashCompFilenameExt]
	return file && slices.Contains([]string{"output", "output-file", "report"}, f.Name)
}

// karpsim checks a karpsim command line (its command, flags and input
// files) and runs it unless it needs a live cluster or r.run is false:
// what it printed, whether it ran, and whether all was well.
func (r *blockRun) karpsim(at string, args []string, stdinFile, stdin string) (string, bool, bool) {
	cmd, rest, err := newRootCommand().Find(args)
	if err == nil {
		err = cmd.ParseFlags(rest)
	}
	if err != nil {
		r.errorf("%s: karpsim %s: %v", at, strings.Join(args, " "), err)
		return "", false, false
	}
	ok := true
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if _, file := f.Annotations[cobra.BashCompFilenameExt]; !file || !f.Changed || isOutputFile(f) {
			return
		}
		values := []string{f.Value.String()}
		if s, isSlice := f.Value.(pflag.SliceValue); isSlice {
			values = s.GetSlice()
		}
		for _, v := range values {
			ok = r.needs(at, v) && ok
		}
	})
	if !ok {
		return "", false, false
	}
	unwritten := ""
	for _, a := range append([]string{stdinFile}, args...) {
		if r.notWritten[a] {
			unwritten = a
		}
	}
	run, outputs := r.rewrite(cmd, args)
	reason := ""
	switch {
	case len(r.placeholders) > 0:
		reason = "a placeholder block"
	case cmd.Flags().Changed("kubeconfig") || cmd.Flags().Changed("context"):
		reason = "reads a live cluster (TestClusterDecidesWhatTheFilesDecide runs these commands on fake clients)"
	case r.live:
		reason = "it follows kubectl commands that need a live cluster"
	case r.skipSlow:
		reason = "slow: runs with KARPSIM_SLOW_TESTS=1 (as .ci/run sets) and without -short"
	case unwritten != "":
		reason = "it reads " + unwritten + ", which a command not run would have written"
	}
	if reason != "" {
		r.logf("%s: not run: %s", at, reason)
		for _, o := range outputs {
			r.notWritten[o] = true
		}
		return "", false, true
	}
	code, stdout, stderr := runWithStdin(stdin, run...)
	if code != 0 {
		r.errorf("%s: karpsim %s: exit %d\n%s", at, strings.Join(args, " "), code, stderr)
		return "", false, false
	}
	return stdout, true, true
}

// rewrite points a command's output files, and the files earlier commands
// of the block wrote, into the block's folder; outputs are the names of its
// output files as written.
func (r *blockRun) rewrite(cmd *cobra.Command, args []string) (out, outputs []string) {
	out = slices.Clone(args)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if _, ok := r.written[a]; ok {
			out[i] = r.written[a]
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := cmd.Flags().Lookup(name)
		if !strings.HasPrefix(a, "--") && len(name) == 1 {
			f = cmd.Flags().ShorthandLookup(name)
		}
		if f == nil || !isOutputFile(f) {
			continue
		}
		switch {
		case hasValue:
			out[i] = a[:len(a)-len(value)] + r.output(value)
			outputs = append(outputs, value)
		case i+1 < len(out) && out[i+1] != "-":
			outputs = append(outputs, out[i+1])
			out[i+1] = r.output(out[i+1])
			i++
		}
	}
	return out, outputs
}
