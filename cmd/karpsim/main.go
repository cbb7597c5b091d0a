// Command karpsim answers what Karpenter would do, offline: what it would
// launch for pending pods and why (plan), which nodes it would disrupt next
// and why it leaves the others alone (disrupt), what it does to a cluster
// over hours of traffic (simulate), and which instance types it can launch
// with what each offers (instance-types). Run without arguments, it
// simulates the built-in scenario: inflate scaled 0 → 10 → 0 on the default
// NodePool.
//
// Usage:
//
//	karpsim plan [-f PATH]... [-o table|json|yaml] [--explain POD] [--ignore-preferences]
//	karpsim disrupt -f PATH... [--at RFC3339] [-o table|json|yaml] [--spot-to-spot]
//	karpsim simulate [-f SCENARIO] [-o table|json|yaml] [--seed N]
//	karpsim instance-types [-o table|json] [--nodeclass FILE] [--catalog FILE] [--spot-prices FILE]
//
// Every command reads only the files it is given and writes to standard
// output; the same input gives byte-identical output.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// command is one subcommand: its name, a one-line summary, and the function
// that parses its arguments and runs it.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"disrupt", "show what Karpenter's disruption controller would do next with a cluster's nodes, and why not with the others", runDisrupt},
	{"instance-types", "list the instance-type catalog with capacity, overhead, allocatable and offerings", runInstanceTypes},
	{"plan", "show the NodeClaims Karpenter would launch for the pending pods of some manifests, and why", runPlan},
	{"simulate", "run Karpenter's loop over a scenario's virtual time: decisions, nodes, cost and pending times", runSimulate},
}

// errUsage marks an error in the command line itself; main exits 2 on it.
var errUsage = errors.New("usage error")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit code: 0 on success, 1
// when the command failed, 2 when the command line was wrong.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		// The README's first command: show what karpsim does.
		args = []string{"simulate"}
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintf(stderr, "karpsim %s: %v\n", c.name, err)
			return 2
		default:
			fmt.Fprintf(stderr, "karpsim %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "karpsim: unknown command %q\n\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "karpsim simulates Karpenter's node autoscaling decisions offline.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-16s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'karpsim COMMAND -h' for a command's flags; 'karpsim' alone simulates the built-in scenario.")
}

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to stderr.
func newFlagSet(name, synopsis string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: karpsim %s %s\n\nFlags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args, wrapping a bad command line as errUsage.
// checkOutput refuses an -o other than table, json or yaml.
func checkOutput(format string) error {
	switch format {
	case "table", "json", "yaml":
		return nil
	}
	return fmt.Errorf("%w: -o %q: want table, json or yaml", errUsage, format)
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	return nil
}
