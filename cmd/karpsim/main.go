// Command karpsim answers what Karpenter would do, offline: what it would
// launch for pending pods and why (plan, explain pod), which nodes it would
// disrupt next and why it leaves the others alone (disrupt, explain node),
// what it does to a cluster over hours of traffic (simulate), what it saves
// over the Cluster Autoscaler (compare), which NodePool edits make it
// cheaper (advise), many what-ifs at once (sweep), and which instance types
// it can launch with what each offers (instance-types). Run without
// arguments, it simulates the built-in scenario: inflate scaled 0 → 10 → 0
// on the default NodePool.
//
// Usage:
//
//	kubectl get pods,nodes,nodepools.karpenter.sh,nodeclaims,ec2nodeclasses -A -o yaml | karpsim plan -f -
//	karpsim plan [-f PATH]... [-o table|wide|json|yaml] [--explain POD] [--optimize]
//	karpsim disrupt -f PATH... [--at RFC3339] [-o table|wide|json|yaml]
//	karpsim explain pod|node NAME -f PATH...
//	karpsim simulate [-f SCENARIO] [-o table|wide|json|yaml] [--seed N] [--report FILE]
//	karpsim compare -f SCENARIO
//	karpsim advise [-f PATH]...
//	karpsim sweep -f SWEEP [--shard I/N]
//	karpsim report [-f RESULT] [--output-file FILE]
//	karpsim instance-types [-o table|wide|json|yaml] [--nodeclass FILE] [--catalog FILE]
//	karpsim version [-o table|json|yaml]
//	karpsim completion bash|zsh|fish|powershell
//
// Every command's flags are in `karpsim help COMMAND` and in the generated
// reference, docs/cli/karpsim.md. Every command reads only the files it is
// given (and standard input for "-f -", or a cluster with --kubeconfig)
// and writes its data to standard output, its diagnostics to standard
// error; the same input gives byte-identical output. It exits 0 on
// success, 1 when the input is refused or a decision could not be made,
// and 2 when the command line is wrong.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// errUsage marks an error in the command line itself; run exits 2 on it.
var errUsage = errors.New("usage error")

func main() {
	adjustStartingHeap()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run executes one command line, with stdin as standard input (nil reads as
// empty), and returns the exit code: 0 on success, 1 when the command
// failed on its input, 2 when the command line was wrong.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runIn(defaultEnvironment, args, stdin, stdout, stderr)
}

// runIn is run with the cluster connection env gives.
func runIn(env environment, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if stdin == nil {
		// Cobra would fall back to the process's standard input.
		stdin = strings.NewReader("")
	}
	root := newRootCommandIn(env)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// Cobra checks the command name, the flags and the arguments before it
	// runs a command: every error it returns before then is a usage error,
	// whether it says so or not (an unknown command comes back as a plain
	// error). The root's PersistentPreRun marks the start; no command may
	// set its own, which would replace it.
	started := false
	root.PersistentPreRun = func(*cobra.Command, []string) { started = true }
	cmd, err := root.ExecuteC()
	if err == nil {
		return 0
	}
	name := "karpsim"
	if cmd != nil {
		name = cmd.CommandPath()
	}
	fmt.Fprintf(stderr, "%s: %s\n", name, strings.TrimRight(err.Error(), "\n"))
	if !started || errors.Is(err, errUsage) {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", name)
		return 2
	}
	return 1
}

// newRootCommand builds the whole command tree. run builds a new one for
// every command line, so that no flag value outlives its command.
func newRootCommand() *cobra.Command { return newRootCommandIn(defaultEnvironment) }

// newRootCommandIn builds the command tree for env.
func newRootCommandIn(env environment) *cobra.Command {
	var showVersion bool
	root := &cobra.Command{
		Use:   "karpsim",
		Short: "karpsim simulates Karpenter's node autoscaling decisions offline",
		Long: `karpsim simulates Karpenter's node autoscaling decisions offline: what Karpenter v1 would launch
for pending pods (plan), which nodes it would disrupt next (disrupt), what its loop does to a cluster
over hours of traffic (simulate), what it saves over the Cluster Autoscaler on the same workload
(compare), and the instance types it can launch (instance-types).

Run without a command, karpsim simulates the built-in scenario: the inflate Deployment scaled
0 → 10 → 0 on the default NodePool. Data goes to standard output, diagnostics to standard error.
Exit codes: 0 success, 1 input refused or a decision that could not be made, 2 a bad command line.`,
		Example: `  # Plan what Karpenter would launch for a live cluster's pending pods
  kubectl get pods,nodes,nodepools.karpenter.sh,nodeclaims,ec2nodeclasses -A -o yaml | karpsim plan -f -

  # Simulate the built-in scenario
  karpsim

  # The version, for bug reports
  karpsim --version`,
		SilenceErrors: true,
		SilenceUsage:  true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if showVersion {
				return writeVersion(cmd.OutOrStdout(), readVersion(), "table")
			}
			return runSimulate(simulateOptions{output: "table"}, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	root.Flags().BoolVar(&showVersion, "version", false, "print the version, as 'karpsim version' does")
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetFlagErrorFunc(flagError)
	root.SetHelpCommand(newHelpCommand())
	root.SetUsageTemplate(usageTemplate)
	root.AddCommand(
		newAdviseCommand(env),
		newCompareCommand(),
		newDisruptCommand(env),
		newExplainCommand(env),
		newInstanceTypesCommand(),
		newPlanCommand(env),
		newReportCommand(),
		newServeCommand(env),
		newSimulateCommand(),
		newSweepCommand(),
		newVersionCommand(),
		newCompletionCommand(),
	)
	return root
}

// flagError marks a flag the command line got wrong as a usage error, and
// suggests the flag meant when the name is close to one: a typo, or a long
// name given with one dash as Go's flag package allowed ("-explain").
func flagError(cmd *cobra.Command, err error) error {
	var notExist *pflag.NotExistError
	if !errors.As(err, &notExist) {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	given := notExist.GetSpecifiedName()
	if group := notExist.GetSpecifiedShortnames(); len(group) > 1 {
		given = group
	}
	if near := nearestFlag(cmd.Flags(), given); near != "" {
		return fmt.Errorf("%w: %w\n\nDid you mean this?\n\t--%s", errUsage, err, near)
	}
	return fmt.Errorf("%w: %w", errUsage, err)
}

// nearestFlag is the long flag name given most likely meant: the flag whose
// shorthand it is ("--f" for --filename), or the closest name within two
// edits, fewer than given has letters (or that starts with given, as a
// shortened name would); "" when none is near.
func nearestFlag(flags *pflag.FlagSet, given string) string {
	if len(given) == 1 {
		if f := flags.ShorthandLookup(given); f != nil && !f.Hidden {
			return f.Name
		}
	}
	best, bestDistance := "", min(3, len(given))
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(given, f.Name)
		if strings.HasPrefix(f.Name, given) && len(given) >= 3 {
			d = min(d, 1)
		}
		if d < bestDistance || (d == bestDistance && f.Name < best) {
			best, bestDistance = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// noArgs refuses positional arguments, for commands that take none.
func noArgs(_ *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, args[0])
	}
	return nil
}

// addOutputFlag adds -o/--output with the formats a command prints, and
// their completion.
func addOutputFlag(cmd *cobra.Command, output *string, formats ...string) {
	usage := "output `FORMAT`: " + orList(formats)
	if slices.Contains(formats, "wide") {
		usage += " (table folds its lines at 120 columns and leaves some columns out; wide prints every column, a row a line)"
	}
	cmd.Flags().StringVarP(output, "output", "o", formats[0], usage)
	must(cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp)))
}

// checkOutput refuses an -o other than table, wide, json or yaml.
func checkOutput(format string) error {
	switch format {
	case "table", "wide", "json", "yaml":
		return nil
	}
	return fmt.Errorf("%w: -o %q: want table, wide, json or yaml", errUsage, format)
}

// manifestExtensions are the file name endings shells complete for -f and
// the other manifest flags; folders are completed too.
var manifestExtensions = []string{"yaml", "yml", "json"}

// completeValues registers fixed completions for a flag.
func completeValues(cmd *cobra.Command, flag string, values ...string) {
	must(cmd.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp)))
}

// noCompletion registers that a flag's value cannot be completed, so that
// shells do not offer file names for it.
func noCompletion(cmd *cobra.Command, flags ...string) {
	for _, flag := range flags {
		must(cmd.RegisterFlagCompletionFunc(flag, cobra.NoFileCompletions))
	}
}

// must panics on an error that can only come from a mistake in this
// file's flag definitions, which every test run would show.
func must(err error) {
	if err != nil {
		panic(err)
	}
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
