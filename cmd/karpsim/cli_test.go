package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// runWithStdin runs a command line in-process with stdin as its standard
// input.
func runWithStdin(stdin string, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// commandsWithHelp are the command paths whose help is a golden file:
// karpsim itself and every command a user sees.
func commandsWithHelp() [][]string {
	paths := [][]string{nil}
	for _, c := range newRootCommand().Commands() {
		paths = append(paths, []string{c.Name()})
		for _, sub := range c.Commands() {
			paths = append(paths, []string{c.Name(), sub.Name()})
		}
	}
	// Cobra adds the help command when a command line runs.
	return append(paths, []string{"help"})
}

// TestHelp compares `karpsim help COMMAND` with the golden file
// testdata/help/COMMAND.txt (karpsim.txt for karpsim itself), which -update
// rewrites, and checks that `COMMAND --help` prints the same: a description,
// a usage line, flags with their defaults, and 2 to 4 examples.
func TestHelp(t *testing.T) {
	for _, path := range commandsWithHelp() {
		name := strings.Join(append([]string{"karpsim"}, path...), " ")
		t.Run(name, func(t *testing.T) {
			code, help, stderr := runCmd(append([]string{"help"}, path...)...)
			require.Equal(t, 0, code, stderr)
			file := "karpsim.txt"
			if len(path) > 0 {
				file = strings.Join(path, "-") + ".txt"
			}
			matchGolden(t, filepath.Join("testdata", "help", file), []byte(help), "help of "+name)

			code, flagHelp, stderr := runCmd(append(path, "--help")...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, help, flagHelp, "help %s and %s --help", name, name)
			for _, section := range []string{"Usage:\n  " + name, "\nExamples:\n", "\nFlags:\n", "-h, --help"} {
				assert.Contains(t, help, section)
			}
			examples := exampleLines(t, help)
			assert.True(t, len(examples) >= 2 && len(examples) <= 4, "%s has %d examples, want 2 to 4", name, len(examples))
		})
	}
}

// exampleLines are the command lines of a help text's Examples section.
func exampleLines(t *testing.T, help string) []string {
	t.Helper()
	_, section, ok := strings.Cut(help, "\nExamples:\n")
	require.True(t, ok, "no Examples section")
	section, _, _ = strings.Cut(section, "\n\nCommands:")
	section, _, _ = strings.Cut(section, "\n\nFlags:")
	var lines []string
	for _, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			lines = append(lines, line)
		}
	}
	return lines
}

// invocation is the karpsim command line in an example line: what follows
// "karpsim" up to a pipe, a redirection or a closing parenthesis.
var invocation = regexp.MustCompile(`(?:^|[\s(|])karpsim((?: +[^\s|<>()]+)*)(?: *< *(\S+))?`)

// TestExamplesRun runs every example of every command's help, in the root
// of the repository where their paths are. An example fed by kubectl gets
// a saved cluster on standard input instead of a live one; redirections of
// standard output are dropped, and "< FILE" feeds FILE. The examples that
// run the example sweep whole are slow tests; its shard is TestSweepGolden's
// and runs once for both.
func TestExamplesRun(t *testing.T) {
	cluster, err := os.ReadFile(disruptScenario("empty-node"))
	require.NoError(t, err)
	var lines []string
	for _, path := range commandsWithHelp() {
		_, help, _ := runCmd(append(path, "--help")...)
		lines = append(lines, exampleLines(t, help)...)
	}
	t.Chdir(filepath.Join("..", ".."))
	for _, line := range lines {
		t.Run(line, func(t *testing.T) {
			m := invocation.FindStringSubmatch(line)
			require.NotNil(t, m, "no karpsim command in the example")
			args, stdin := strings.Fields(m[1]), ""
			switch {
			case strings.Contains(line, "--kubeconfig") || strings.Contains(line, "--context"):
				t.Skip("reads a live cluster: TestClusterDecidesWhatTheFilesDecide runs these commands on fake clients")
			case strings.Contains(line, "kubectl "):
				stdin = string(cluster)
			case m[2] != "":
				data, err := os.ReadFile(m[2])
				require.NoError(t, err)
				stdin = string(data)
			}
			if len(args) > 1 && args[0] == "sweep" && args[1] == "-f" && !slices.Contains(args, "--shard") && !slices.Contains(args, "--emit-job") {
				skipUnlessSlow(t, "TestSweepGolden checks its shard 0 and its table")
			}
			var code int
			var stdout, stderr string
			if stdin == "" {
				code, stdout, stderr = runShared(args...)
			} else {
				code, stdout, stderr = runWithStdin(stdin, args...)
			}
			require.Equal(t, 0, code, stderr)
			assert.NotEmpty(t, stdout)
			assert.NotContains(t, stdout+stderr, "\x1b", "no colour or cursor movement when nothing is a terminal")
		})
	}
}

// kubectlList is what `kubectl get -o json` prints for the objects of a
// multi-document YAML file: one List of them.
func kubectlList(t *testing.T, data []byte) string {
	t.Helper()
	var items []json.RawMessage
	for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
		item, err := yaml.YAMLToJSON([]byte(doc))
		require.NoError(t, err)
		if string(item) != "null" {
			items = append(items, item)
		}
	}
	list, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}, "", "    ")
	require.NoError(t, err)
	return string(list)
}

// TestStdinDecidesWhatTheFileDecides pipes every plan and disrupt golden
// scenario into `-f -`, as YAML and as a kubectl JSON List, and compares
// the output with that of `-f FILE`, byte for byte.
func TestStdinDecidesWhatTheFileDecides(t *testing.T) {
	t.Parallel()
	for _, command := range []string{"plan", "disrupt"} {
		dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", command, "*"))
		require.NoError(t, err)
		require.NotEmpty(t, dirs)
		for _, dir := range shortSample(t, dirs) {
			t.Run(command+"/"+filepath.Base(dir), func(t *testing.T) {
				t.Parallel()
				input := filepath.Join(dir, "input.yaml")
				data, err := os.ReadFile(input)
				require.NoError(t, err)
				var extra []string
				if args, err := os.ReadFile(filepath.Join(dir, "args")); err == nil {
					extra = strings.Fields(string(args))
				}
				// The file's output is the golden test's (runGolden).
				code, want, stderr := runShared(append([]string{command, "-f", input, "-o", "json"}, extra...)...)
				require.Equal(t, 0, code, stderr)
				for name, stdin := range map[string]string{"yaml": string(data), "json list": kubectlList(t, data)} {
					// Standard input redirected from a file (read again at
					// an offset if need be) and from a pipe (held).
					for _, r := range []io.Reader{strings.NewReader(stdin), struct{ io.Reader }{strings.NewReader(stdin)}} {
						var got, stderr bytes.Buffer
						code := run(append([]string{command, "-f", "-", "-o", "json"}, extra...), r, &got, &stderr)
						require.Equal(t, 0, code, "%s: %s", name, stderr.String())
						assert.Equal(t, want, got.String(), "%s from a %T", name, r)
					}
				}
			})
		}
	}
}

func TestStdinWithFiles(t *testing.T) {
	data, err := os.ReadFile(scenario("spot-over-on-demand"))
	require.NoError(t, err)
	docs := strings.Split(string(data), "\n---\n")
	require.Len(t, docs, 3)
	pools := writeFile(t, "pools.yaml", docs[0]+"\n---\n"+docs[1])
	_, want, _ := runCmd("plan", "-f", scenario("spot-over-on-demand"), "-o", "json")
	code, got, stderr := runWithStdin(docs[2], "plan", "-f", pools, "-f", "-", "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got, "a file, then the rest of the cluster on stdin")

	lonely := "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: lonely}\nspec:\n  template:\n    spec:\n" +
		"      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: missing}\n      requirements: []\n"
	code, _, stderr = runWithStdin(lonely, "plan", "-f", pools, "-f", "-")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `karpsim plan: <stdin>: NodePool/lonely: spec.template.spec.nodeClassRef.name: EC2NodeClass "missing" not found (EC2NodeClasses given: default)`,
		"checked against the file's EC2NodeClass, named <stdin>")
}

func TestStdinErrors(t *testing.T) {
	for _, tc := range []struct {
		name, stdin string
		args        []string
		code        int
		want        string
	}{
		{"read twice", "kind: List\n", []string{"plan", "-f", "-", "-f", "-"}, 2, "-f - is given 2 times: standard input can be read once"},
		{"empty", "\n", []string{"plan", "-f", "-"}, 1, "karpsim plan: <stdin>: standard input is empty"},
		{"empty for disrupt", "", []string{"disrupt", "-f", "-"}, 1, "<stdin>: standard input is empty"},
		{"malformed document", "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\nkind: [\n", []string{"plan", "-f", "-"}, 1, "<stdin>: document 2: "},
		{"refused object", "apiVersion: v1\nkind: Pod\nmetadata: {name: neg}\nspec:\n  containers: [{name: app, image: app, resources: {requests: {cpu: \"-1\"}}}]\n",
			[]string{"plan", "-f", "-"}, 1, "<stdin>: Pod/neg: spec.containers[0] (app).resources.requests.cpu: negative quantity -1"},
		{"bad scenario", "seed: 1\n", []string{"simulate", "-f", "-"}, 1, "karpsim simulate: <stdin>: invalid scenario: duration must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runWithStdin(tc.stdin, tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Contains(t, stderr, tc.want)
			assert.Empty(t, stdout)
		})
	}
}

func TestSimulateReadsAScenarioFromStdin(t *testing.T) {
	file := filepath.Join("..", "..", "testdata", "scenarios", "default.yaml")
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	_, want, _ := runCmd("simulate", "-f", file, "-o", "json")
	code, got, stderr := runWithStdin(string(data), "simulate", "-f", "-", "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)
}

// TestCommandLine holds the command line's conventions: flags anywhere,
// usage errors exit 2 with a suggestion, data on stdout only.
func TestCommandLine(t *testing.T) {
	t.Parallel()
	gpu := scenario("gpu")
	_, planJSON, _ := runCmd("plan", "-f", gpu, "-o", "json")
	_, completionHelp, _ := runCmd("completion", "--help")
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"flags in any order", []string{"plan", "-o", "json", "--filename", gpu}, 0, planJSON, ""},
		{"--flag=value", []string{"plan", "--output=json", "-f=" + gpu}, 0, planJSON, ""},
		{"a flag after a positional argument", []string{"completion", "bash", "--help"}, 0, completionHelp, ""},
		{"help COMMAND", []string{"help", "completion"}, 0, completionHelp, ""},
		{"unknown command", []string{"plna", "-f", gpu}, 2, "", "karpsim: unknown command \"plna\" for \"karpsim\"\n\nDid you mean this?\n\tplan\nRun 'karpsim --help' for usage.\n"},
		{"unknown flag", []string{"plan", "--explian", "ml/notebook"}, 2, "", "karpsim plan: usage error: unknown flag: --explian\n\nDid you mean this?\n\t--explain\nRun 'karpsim plan --help' for usage.\n"},
		{"a long flag with one dash", []string{"disrupt", "-spot-to-spot"}, 2, "", "Did you mean this?\n\t--spot-to-spot\n"},
		{"unknown flag, one letter off", []string{"plan", "--zone", "a"}, 2, "", "Did you mean this?\n\t--zones\n"},
		{"a shorthand given as a long flag", []string{"plan", "--f", "x.yaml"}, 2, "", "Did you mean this?\n\t--filename\n"},
		{"unknown help topic", []string{"help", "plna"}, 2, "", "karpsim help: usage error: unknown command \"plna\" for \"karpsim\"\n\nDid you mean this?\n\tplan\n"},
		{"unknown flag, nothing near", []string{"simulate", "--zzzzzzzz"}, 2, "", "karpsim simulate: usage error: unknown flag: --zzzzzzzz\nRun"},
		{"missing flag value", []string{"plan", "-f"}, 2, "", "flag needs an argument"},
		{"unexpected argument", []string{"plan", "input.yaml", "-o", "json"}, 2, "", `unexpected argument "input.yaml"`},
		{"-o yaml on instance-types", []string{"instance-types", "-o", "xml"}, 2, "", `-o "xml": want table, wide, json or yaml`},
		{"reservation count not a number", []string{"instance-types", "--reservation-capacity", "cr-1=many"}, 2, "", `--reservation-capacity "cr-1=many": want ID=N`},
		{"reservation given twice", []string{"plan", "--reservation-capacity", "cr-1=1", "--reservation-capacity", "cr-1=2"}, 2, "", `--reservation-capacity: cr-1 is given twice`},
		{"placement strategy unknown", []string{"plan", "--placement-group-strategy", "host"}, 2, "", `--placement-group-strategy "host": want one of cluster, partition, spread`},
		{"placement strategy unknown, instance-types", []string{"instance-types", "--placement-group-strategy", "host"}, 2, "", `--placement-group-strategy "host": want one of cluster, partition, spread`},
		{"unknown shell", []string{"completion", "tcsh"}, 2, "", `unknown shell "tcsh": want bash, zsh, fish or powershell`},
		{"no shell", []string{"completion"}, 2, "", "want one shell"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			assert.Equal(t, tc.stdout, stdout)
			assert.Contains(t, stderr, tc.stderr)
		})
	}
}

func TestInstanceTypesYAMLMatchesJSON(t *testing.T) {
	t.Parallel()
	args := []string{"instance-types", "--zones", "us-east-1a"}
	code, asJSON, stderr := runCmd(append(args, "-o", "json")...)
	require.Equal(t, 0, code, stderr)
	code, asYAML, stderr := runCmd(append(args, "-o", "yaml")...)
	require.Equal(t, 0, code, stderr)
	converted, err := yaml.YAMLToJSON([]byte(asYAML))
	require.NoError(t, err)
	assert.JSONEq(t, asJSON, string(converted))
}

func TestVersion(t *testing.T) {
	code, table, stderr := runCmd("version")
	require.Equal(t, 0, code, stderr)
	code, flag, _ := runCmd("--version")
	require.Equal(t, 0, code)
	assert.Equal(t, table, flag)
	for _, want := range []string{"karpsim  ", "APIs      karpenter.sh/v1, karpenter.k8s.aws/v1, karpenter.azure.com/v1beta1\n", "follows   Karpenter v1.14 and its AWS provider v1.14\n", "catalog   1363 EC2 instance types"} {
		assert.Contains(t, table, want)
	}

	code, out, stderr := runCmd("version", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var v versionInfo
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.NotEmpty(t, v.Version)
	assert.Equal(t, []string{"karpenter.sh/v1", "karpenter.k8s.aws/v1", "karpenter.azure.com/v1beta1"}, v.APIVersions)
	assert.Equal(t, 1363, v.Catalog.InstanceTypes)
	assert.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, v.Catalog.SourceDate)

	build := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/karpsim/karpsim", Version: "v0.3.0"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "3bdf784"}, {Key: "vcs.time", Value: "2026-11-24T22:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	v = versionOf(build, 7)
	assert.Equal(t, "v0.3.0", v.Version)
	assert.Equal(t, "3bdf784", v.Revision)
	assert.True(t, v.Modified)
	var buf bytes.Buffer
	require.NoError(t, writeVersion(&buf, v, "table"))
	assert.Contains(t, buf.String(), "revision  3bdf784 (2026-11-24T22:00:00Z), with uncommitted changes\n")
	assert.Equal(t, "(devel)", versionOf(nil, 7).Version)
	assert.Equal(t, "(devel)", versionOf(&debug.BuildInfo{}, 7).Version)
}

// TestCompletion checks the scripts and the completions behind them:
// commands, flags, -o values and manifest files.
func TestCompletion(t *testing.T) {
	for _, shell := range shells {
		code, script, stderr := runCmd("completion", shell)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, script, "karpsim", shell)
	}
	if bash, err := exec.LookPath("bash"); err == nil {
		_, script, _ := runCmd("completion", "bash")
		path := writeFile(t, "karpsim.bash", script)
		out, err := exec.Command(bash, "-n", path).CombinedOutput()
		assert.NoError(t, err, "bash -n: %s", out)
	} else {
		t.Log("no bash on PATH: the bash script is not parsed")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"pl"}, "plan\tshow the NodeClaims"},
		{[]string{"plan", "--ex"}, "--explain\t"},
		{[]string{"plan", "-o", ""}, "table\nwide\njson\nyaml\n:4\n"},
		{[]string{"instance-types", "--output", ""}, "table\nwide\njson\nyaml\n:4\n"},
		{[]string{"plan", "--min-values-policy", ""}, "Strict\nBestEffort\n:4\n"},
		{[]string{"plan", "-f", ""}, "yaml\nyml\njson\n:8\n"},
		{[]string{"disrupt", "--filename", ""}, "yaml\nyml\njson\n:8\n"},
		{[]string{"completion", ""}, "bash\nzsh\nfish\npowershell\n:4\n"},
	} {
		code, stdout, stderr := runCmd(append([]string{cobra.ShellCompRequestCmd}, tc.args...)...)
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, tc.want, tc.args)
	}
}

// TestOnlyTheCommandLineLinksCobra holds the library free of the command
// line's dependencies: no package outside cmd/ may depend on cobra or
// pflag.
func TestOnlyTheCommandLineLinksCobra(t *testing.T) {
	t.Parallel()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	list := exec.Command(goTool, "list", "-f", `{{.ImportPath}}{{range .Deps}} {{.}}{{end}}`, "./...")
	list.Dir = filepath.Join("..", "..")
	out, err := list.Output()
	require.NoError(t, err)
	const module = "github.com/karpsim/karpsim/"
	linked := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, deps := fields[0], fields[1:]
		// client-go's kubeconfig loader links pflag (not cobra): a program
		// reading kubeconfigs (package kube/kubeconfig) carries it.
		viaKubeconfig := slices.Contains(deps, "k8s.io/client-go/tools/clientcmd")
		usesCobra := false
		for _, dep := range deps {
			usesCobra = usesCobra || (strings.HasPrefix(dep, "github.com/spf13/") && !(viaKubeconfig && dep == "github.com/spf13/pflag"))
		}
		if strings.HasPrefix(pkg, module+"cmd/") {
			linked = linked || usesCobra
			continue
		}
		assert.False(t, usesCobra, "%s depends on cobra or pflag; only cmd/ may", pkg)
	}
	assert.True(t, linked, "cmd/karpsim links cobra: the check looks at the right list")
}

// run tells usage errors from input errors by whether the root's
// PersistentPreRun ran; a command with its own would replace it.
func TestNoCommandReplacesTheRootsPersistentPreRun(t *testing.T) {
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		assert.True(t, c.PersistentPreRun == nil && c.PersistentPreRunE == nil, "%s sets a PersistentPreRun", c.CommandPath())
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	for _, c := range newRootCommand().Commands() {
		walk(c)
	}
}
