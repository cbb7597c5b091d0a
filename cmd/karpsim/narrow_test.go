package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tableCommands are the commands whose default output is a table.
var tableCommands = []string{"advise", "compare", "disrupt", "explain", "instance-types", "plan", "simulate", "sweep"}

// assertFits checks that no line of a table is wider than tableWidth runes.
func assertFits(t *testing.T, what, out string) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > tableWidth {
			t.Errorf("%s: line %d is %d columns wide, more than %d:\n%s", what, i+1, n, tableWidth, line)
		}
	}
}

// withoutOutputFlag drops -o FORMAT from a command line, for its table.
func withoutOutputFlag(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-o" || args[i] == "--output" {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// TestTablesFitAndWarnOfNothing prints the table of every command on its
// built-in input and of every help example that prints one (with its -o
// dropped), from the root of the repository: no line is wider than 120
// columns, and nothing warns, as none of these inputs is the user's.
// -o wide runs as well.
func TestTablesFitAndWarnOfNothing(t *testing.T) {
	cluster, err := os.ReadFile(disruptScenario("empty-node"))
	require.NoError(t, err)
	type run struct {
		args  []string
		stdin string
	}
	runs := []run{{args: nil}, {args: []string{"plan"}}, {args: []string{"advise"}}, {args: []string{"simulate"}}, {args: []string{"instance-types"}}}
	for _, path := range commandsWithHelp() {
		_, help, _ := runCmd(append(path, "--help")...)
		for _, line := range exampleLines(t, help) {
			m := invocation.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			args := withoutOutputFlag(strings.Fields(m[1]))
			switch {
			case len(args) == 0 || !slices.Contains(tableCommands, args[0]),
				slices.Contains(args, "--kubeconfig"), slices.Contains(args, "--context"),
				slices.Contains(args, "--shard"), slices.Contains(args, "--emit-job"):
				continue
			case args[0] == "sweep" && slices.Contains(args, "-f"):
				// A whole sweep is slow: its table is the golden file
				// TestSweepGolden compares, checked below.
				continue
			}
			r := run{args: args}
			switch {
			case strings.Contains(line, "kubectl "):
				r.stdin = string(cluster)
			case m[2] != "":
				data, err := os.ReadFile(filepath.Join("..", "..", m[2]))
				require.NoError(t, err)
				r.stdin = string(data)
			}
			runs = append(runs, r)
		}
	}
	require.Greater(t, len(runs), 15, "the help examples that print tables")
	golden, err := os.ReadFile(filepath.Join("..", "..", "testdata", "sweeps", "nodepool-designs.expected.txt"))
	require.NoError(t, err)
	assertFits(t, "the sweep table", string(golden))

	t.Chdir(filepath.Join("..", ".."))
	for _, r := range runs {
		line := strings.Join(append([]string{"karpsim"}, r.args...), " ")
		t.Run(line, func(t *testing.T) {
			code, stdout, stderr := runWithStdin(r.stdin, r.args...)
			require.Equal(t, 0, code, stderr)
			require.NotEmpty(t, stdout)
			assertFits(t, line, stdout)
			assert.NotContains(t, stderr, "warning", "karpsim's own inputs warn of nothing")
			if len(r.args) == 0 {
				return // karpsim itself takes no flags
			}
			code, wide, stderr := runWithStdin(r.stdin, append(r.args, "-o", "wide")...)
			require.Equal(t, 0, code, stderr)
			assert.GreaterOrEqual(t, len(strings.Fields(wide)), len(strings.Fields(stdout)), "-o wide shows what -o table does, and maybe more")
		})
	}
}

// TestWideShowsTheColumnsTheTableLeavesOut checks each command's -o wide
// against its table: the columns left out are there, and a long last
// column is on one line instead of folded.
func TestWideShowsTheColumnsTheTableLeavesOut(t *testing.T) {
	code, table, stderr := runCmd("instance-types")
	require.Equal(t, 0, code, stderr)
	code, wide, stderr := runCmd("instance-types", "-o", "wide")
	require.Equal(t, 0, code, stderr)
	header, _, _ := strings.Cut(table, "\n")
	wideHeader, _, _ := strings.Cut(wide, "\n")
	for _, column := range []string{"ALLOC CPU", "ALLOC MEMORY", "ALLOC STORAGE", "OTHER RESOURCES"} {
		assert.NotContains(t, header, column)
		assert.Contains(t, wideHeader, column)
	}
	assert.Contains(t, header, "ACCELERATORS")
	assert.NotContains(t, table, "vpc.amazonaws.com", "pod ENIs and EFA are not accelerators")
	assert.Contains(t, wide, "vpc.amazonaws.com/pod-eni")
	assert.Contains(t, wide, "vpc.amazonaws.com/efa")
	assert.Regexp(t, `(?m)^g4dn\.xlarge .* 1 nvidia\.com/gpu `, table)
	assert.Regexp(t, `(?m)^inf1\.xlarge .* 1 aws\.amazon\.com/neuron `, table)
	assert.Regexp(t, `(?m)^m5\.xlarge( +[^ ]+){4} +- `, table, "m5.xlarge has no accelerator")
	assert.Greater(t, maxWidth(wide), tableWidth, "-o wide is not folded")

	sweepParts, err := filepath.Glob(filepath.Join("..", "..", "testdata", "sweeps", "parts", "*.json"))
	require.NoError(t, err)
	code, table, stderr = runCmd(append([]string{"sweep", "merge"}, sweepParts...)...)
	require.Equal(t, 0, code, stderr)
	code, wide, stderr = runCmd(append([]string{"sweep", "merge", "-o", "wide"}, sweepParts...)...)
	require.Equal(t, 0, code, stderr)
	assert.NotRegexp(t, `\bMIN +MAX\b`, table)
	assert.Regexp(t, `COST MEAN +MIN +MAX +PEAK NODES`, wide)

	// A plan's unschedulable reason is folded under itself in the table,
	// whole on its line in wide: the same words either way.
	code, table, stderr = runCmd("plan", "-f", scenario("gpu"))
	require.Equal(t, 0, code, stderr)
	code, wide, stderr = runCmd("plan", "-f", scenario("gpu"), "-o", "wide")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, strings.Fields(wide), strings.Fields(table))
	assert.Greater(t, maxWidth(wide), tableWidth)
	assertFits(t, "plan of gpu", table)
	assert.Regexp(t, `(?m)^ml/notebook +NodePool "gpu": did not tolerate taint`, table)
	assert.Regexp(t, `(?m)^ {19}\S`, table, "continuation lines start under the REASON column")

	code, table, stderr = runCmd("compare", "-f", filepath.Join("..", "..", "testdata", "scenarios", "optimize-batch.yaml"), "--optimize")
	require.Equal(t, 0, code, stderr)
	code, wide, stderr = runCmd("compare", "-f", filepath.Join("..", "..", "testdata", "scenarios", "optimize-batch.yaml"), "--optimize", "-o", "wide")
	require.Equal(t, 0, code, stderr)
	assert.Regexp(t, `\$4\.1068 \(25\.3% less\)\n`, table)
	assert.Contains(t, wide, "$4.1068 ($1.3909, 25.3% less than Karpenter)")
}

func maxWidth(out string) int {
	n := 0
	for _, line := range strings.Split(out, "\n") {
		n = max(n, utf8.RuneCountInString(line))
	}
	return n
}

// TestUsersInputsStillWarn gives, as a user's files, what the built-in
// inputs are less what they state to warn of nothing: the warnings fire.
func TestUsersInputsStillWarn(t *testing.T) {
	inflate := writeFile(t, "inflate.yaml", string(exampleInflate))
	for _, command := range []string{"plan", "advise"} {
		code, _, stderr := runCmd(command, "-f", inflate)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stderr, `warning: no NodePool given: using karpsim's default NodePool "default"`, command)
	}
	// The built-in example with the default NodePool given plans what the
	// user's file of inflate alone does.
	_, builtIn, _ := runCmd("plan", "-o", "json")
	_, users, _ := runCmd("plan", "-f", inflate, "-o", "json")
	assert.Equal(t, users, builtIn)

	groups := regexp.MustCompile(`(?m)^clusterAutoscaler:\n(?:  .*\n)+`)
	require.Len(t, groups.FindAllString(string(defaultScenario), -1), 1, "the default scenario states its node group")
	bare := writeFile(t, "scenario.yaml", groups.ReplaceAllString(string(defaultScenario), ""))
	code, users, stderr := runCmd("compare", "-f", bare, "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, `warning: no clusterAutoscaler.nodeGroups given: using the default node group "default"`)
	code, _, stderr = runCmd("simulate", "-f", bare, "--autoscaler", "cluster-autoscaler")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "warning: no clusterAutoscaler.nodeGroups given")
	// The group the scenario states is the one compare assumes: the runs
	// differ in that warning alone.
	code, stated, stderr := runCmd("compare", "-f", defaultScenarioPath, "-o", "json")
	require.Equal(t, 0, code, stderr)
	var withWarning, withGroup comparison
	require.NoError(t, json.Unmarshal([]byte(users), &withWarning))
	require.NoError(t, json.Unmarshal([]byte(stated), &withGroup))
	require.Len(t, withWarning.ClusterAutoscaler.Warnings, 1)
	assert.Empty(t, withGroup.ClusterAutoscaler.Warnings)
	withWarning.ClusterAutoscaler.Warnings = nil
	assert.Equal(t, withWarning, withGroup)
}

// TestReportOutputIsAFormat: report writes to --output-file, and -o is the
// format, html; -o FILE, what it once meant, is a usage error that names
// --output-file.
func TestReportOutputIsAFormat(t *testing.T) {
	code, sim, stderr := runCmd("simulate", "-o", "json")
	require.Equal(t, 0, code, stderr)
	code, html, stderr := runWithStdin(sim, "report", "-o", "html")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, html, "<!DOCTYPE html>")

	file := filepath.Join(t.TempDir(), "report.html")
	code, stdout, stderr := runWithStdin(sim, "report", "-o", file)
	assert.Equal(t, 2, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, `-o "`+file+`": -o is the output format, and report writes html only; to write the report to a file, give --output-file `+file)
	assert.NoFileExists(t, file)

	code, _, stderr = runWithStdin(sim, "report", "-o", "json")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "give --output-file FILE")

	code, stdout, stderr = runWithStdin(sim, "report", "--output-file", file)
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, stdout)
	written, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Equal(t, html, string(written))
}

func TestFoldLine(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		width      int
		want       []string
	}{
		{"fits", "a  b", 10, []string{"a  b"}},
		{"last column wraps under itself", "pod  one two three four", 14,
			[]string{"pod  one two", "     three", "     four"}},
		{"a word longer than the room is cut", "k  abcdefghijkl", 8,
			[]string{"k  abcde", "   fghij", "   kl"}},
		{"a last column too far right folds under the indentation", "  " + strings.Repeat("x", 80) + "  " + strings.TrimSpace(strings.Repeat("y ", 40)), 100,
			[]string{"  " + strings.Repeat("x", 80) + "  " + strings.TrimSpace(strings.Repeat("y ", 8)), "    " + strings.TrimSpace(strings.Repeat("y ", 32))}},
		{"a word too long for a line stays with the one before it", "k  failed: /a/very/long/path", 12,
			[]string{"k  failed: /", "   a/very/lo", "   ng/path"}},
		{"runes, not bytes", "é  " + strings.Repeat("ü", 5) + " " + strings.Repeat("ü", 5), 12,
			[]string{"é  üüüüü", "   üüüüü"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Split(foldLine(tc.line, tc.width), "\n")
			assert.Equal(t, tc.want, got)
			for _, l := range got {
				assert.LessOrEqual(t, utf8.RuneCountInString(l), tc.width)
			}
			assert.Equal(t, strings.Join(strings.Fields(tc.line), ""), strings.Join(strings.Fields(strings.Join(got, " ")), ""), "nothing lost")
		})
	}
}
