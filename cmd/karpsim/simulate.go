package main

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/report"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/simulator"
)

// defaultScenario is what `karpsim` runs with no arguments: the seed
// guide's default NodePool and EC2NodeClass and the inflate Deployment
// scaled 0 → 10 → 0 over an hour. testdata/scenarios/default.yaml is a copy.
//
//go:embed example/default-scenario.yaml
var defaultScenario []byte

// simulateOptions are the flags of `karpsim simulate`.
type simulateOptions struct {
	file   string
	output string
	seed   uint64
	// seedSet tells an explicit --seed 0 from no --seed.
	seedSet bool
	// report is the HTML report's file, "" for none.
	report     string
	autoscaler string
	// check runs the invariant checker on every decision.
	check bool
	// optimize provisions, and plans consolidation's replacements, with
	// the optimizing planner.
	optimize bool
	limits   limitOptions
	// cloud is --cloud: the cloud of the default NodePool.
	cloud string
	// gates is --feature-gates, parsed by RunE.
	gates     string
	coreGates coreFeatureGates
}

// maxSampleRows bounds the nodes-and-cost table: longer runs show every
// n-th sample so that a day fits on a screen.
const maxSampleRows = 25

func newSimulateCommand() *cobra.Command {
	var opts simulateOptions
	cmd := &cobra.Command{
		Use:   "simulate [-f SCENARIO] [flags]",
		Short: "run Karpenter's loop (or the Cluster Autoscaler) over a scenario's virtual time: decisions, nodes, cost and pending times",
		Long: `Simulate runs Karpenter's loop over a scenario's virtual time with an in-memory cloud: batching,
provisioning, launches, the kube-scheduler, disruption under budgets, expiration, drift and spot
interruptions. It prints a summary, every decision, and nodes and cost over time. Without -f, it runs
the built-in scenario (inflate scaled 0 → 10 → 0 on the default NodePool) and says so on standard
error. "-f -" reads the scenario from standard input; its relative manifest paths are then read from
the working directory, where a scenario file's are read from the file's folder. The same scenario
and seed give byte-identical output. "--autoscaler cluster-autoscaler" runs the Cluster Autoscaler
model instead, over the scenario's clusterAutoscaler node groups, with the same cloud, kube-scheduler
and workloads; "karpsim compare" runs both side by side. "--optimize" runs Karpenter's loop with the
optimizing planner (plan --optimize's) for every provisioning pass with real pods and for
consolidation's replacements, where N nodes may then be replaced by up to N cheaper ones.`,
		Example: `  # The built-in scenario
  karpsim simulate

  # A spot interruption storm, as JSON, with another seed
  karpsim simulate -f testdata/scenarios/spot-storm.yaml -o json --seed 42

  # A scenario from standard input
  karpsim simulate -f - < testdata/scenarios/default.yaml

  # The same scenario under the Cluster Autoscaler
  karpsim simulate -f testdata/scenarios/default.yaml --autoscaler cluster-autoscaler`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.seedSet = cmd.Flags().Changed("seed")
			if err := checkOutput(opts.output); err != nil {
				return err
			}
			if err := checkAutoscaler(opts.autoscaler); err != nil {
				return err
			}
			if opts.optimize && opts.autoscaler != string(simulator.AutoscalerKarpenter) {
				return fmt.Errorf("%w: --optimize changes Karpenter's provisioning: it does not apply to --autoscaler %s", errUsage, opts.autoscaler)
			}
			if err := opts.limits.check(true); err != nil {
				return err
			}
			if err := checkCloud(opts.cloud); err != nil {
				return err
			}
			var err error
			if opts.coreGates, err = parseFeatureGates(opts.gates); err != nil {
				return err
			}
			if opts.gates != "" && opts.autoscaler != string(simulator.AutoscalerKarpenter) {
				return fmt.Errorf("%w: --feature-gates are Karpenter's: they do not apply to --autoscaler %s", errUsage, opts.autoscaler)
			}
			return runSimulate(opts, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&opts.file, "filename", "f", "", "scenario `FILE` (YAML; see docs/simulation.md), or - for standard input (default: the built-in inflate 0 → 10 → 0 scenario)")
	must(cmd.MarkFlagFilename("filename", "yaml", "yml"))
	addOutputFlag(cmd, &opts.output, "table", "wide", "json", "yaml")
	cmd.Flags().Uint64Var(&opts.seed, "seed", 0, "override the scenario's `SEED` for every random choice of the run")
	cmd.Flags().StringVar(&opts.report, "report", "", "also write the run's HTML report (see karpsim report) to `FILE`")
	cmd.Flags().BoolVar(&opts.check, "check", false, "check every decision and the cluster after every event against the invariants (package invariants): any violation is printed and the exit code is 1")
	cmd.Flags().BoolVar(&opts.optimize, "optimize", false, "provision and plan consolidation's replacements with the optimizing planner (as plan --optimize) instead of Karpenter's: what it would save over the run")
	must(cmd.MarkFlagFilename("report", "html"))
	noCompletion(cmd, "seed")
	cmd.Flags().StringVar(&opts.autoscaler, "autoscaler", string(simulator.AutoscalerKarpenter),
		"the `AUTOSCALER` to run: karpenter, or cluster-autoscaler (the scenario's clusterAutoscaler section)")
	completeValues(cmd, "autoscaler", autoscalerNames()...)
	addCloudFlag(cmd, &opts.cloud)
	cmd.Flags().StringVar(&opts.gates, "feature-gates", "", featureGatesUsage)
	noCompletion(cmd, "feature-gates")
	addInputLimitFlags(cmd, &opts.limits)
	addDurationLimitFlag(cmd, &opts.limits)
	return cmd
}

func runSimulate(opts simulateOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	sc, err := loadSimulateScenario(opts.file, opts.limits, stdin, stderr)
	if err != nil {
		return err
	}
	if opts.seedSet {
		sc.Seed = opts.seed
	}
	cfg := opts.limits.simulatorConfig()
	cfg.Snapshot.Cloud = opts.cloud
	cfg.Autoscaler, cfg.CheckInvariants = simulator.Autoscaler(opts.autoscaler), opts.check
	if err := opts.coreGates.apply(&cfg.Consolidation, opts.cloud, awsFeatureGates{}); err != nil {
		return err
	}
	if opts.optimize {
		cfg.Planner = optimizingPlanner
	}
	if isTerminal(stderr) {
		cfg.Progress = newProgressLine(stderr, time.Now).report
	}
	res, err := simulator.Run(context.Background(), sc, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", scenarioSource(opts.file), err)
	}
	printWarnings(stderr, res.Warnings)
	if opts.report != "" {
		html, err := report.Simulate(res)
		if err != nil {
			return err
		}
		if err := os.WriteFile(opts.report, html, 0o644); err != nil {
			return err
		}
	}
	var werr error
	switch opts.output {
	case "json":
		werr = writeJSON(stdout, res)
	case "yaml":
		werr = writeYAML(stdout, res)
	default:
		werr = writeTable(stdout, opts.output, func(w io.Writer) error { return writeSimulateTable(w, res) })
	}
	if werr != nil {
		return werr
	}
	// The run's own output comes first; a broken invariant is the error.
	return res.InvariantError()
}

// optimizingPlanner is the optimizing planner in the controller's
// Planner form.
func optimizingPlanner(in scheduling.Input) (scheduling.Result, error) {
	return optimize.Solve(in, optimize.SolveOptions{})
}

func autoscalerNames() []string {
	out := make([]string, len(simulator.Autoscalers()))
	for i, a := range simulator.Autoscalers() {
		out[i] = string(a)
	}
	return out
}

// checkAutoscaler refuses an --autoscaler karpsim does not have.
func checkAutoscaler(name string) error {
	if _, err := simulator.ParseAutoscaler(name); err != nil {
		return fmt.Errorf("%w: --autoscaler %q: want %s", errUsage, name, orList(autoscalerNames()))
	}
	return nil
}

// loadSimulateScenario reads the scenario file, standard input for "-", or
// the built-in default scenario when none was given.
func loadSimulateScenario(file string, limits limitOptions, stdin io.Reader, stderr io.Writer) (simulator.Scenario, error) {
	switch file {
	case "":
		fmt.Fprintln(stderr, "karpsim simulate: no -f given: running the built-in scenario, the inflate Deployment scaled 0 → 10 → 0 on the default NodePool over an hour")
		return parseScenario(scenarioSource(""), defaultScenario)
	case stdinPath:
		data, err := readStdin(stdin, limits.maxInputBytes(), stderr)
		if err != nil {
			return simulator.Scenario{}, err
		}
		return parseScenario(stdinName, data)
	default:
		return simulator.LoadScenario(file)
	}
}

// parseScenario parses a scenario held in memory, naming it in errors;
// its manifest paths stay relative to the working directory, inside it.
func parseScenario(name string, data []byte) (simulator.Scenario, error) {
	sc, err := simulator.ParseScenarioFile(name, data)
	if err != nil {
		return sc, err
	}
	if err := sc.ResolveManifests("."); err != nil {
		return sc, fmt.Errorf("%s: %w", name, err)
	}
	return sc, nil
}

func scenarioSource(file string) string {
	switch file {
	case "":
		return "example/default-scenario.yaml"
	case stdinPath:
		return stdinName
	}
	return file
}

// writeSimulateTable prints the run's summary, its timeline of decisions,
// and nodes and cost over time.
func writeSimulateTable(w io.Writer, r *simulator.Result) error {
	name := r.Scenario
	if name == "" {
		name = "(unnamed)"
	}
	peak := peakNodes(r)
	p := r.PendingTime
	fmt.Fprintf(w, "Scenario %s: %v from %s, seed %d\n\n", name, r.Duration.Duration, r.Start.UTC().Format(time.RFC3339), r.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if r.Autoscaler != "" {
		fmt.Fprintf(tw, "autoscaler\t%s\n", r.Autoscaler)
	}
	fmt.Fprintf(tw, "total cost\t$%.4f\n", r.TotalCost)
	fmt.Fprintf(tw, "nodes\tpeak %d (sampled), final %d ($%.4f/hour)\n", peak, r.Final.Nodes, r.Final.CostPerHour)
	fmt.Fprintf(tw, "launches\t%d (%d failed)\n", r.Launches, r.LaunchFailures)
	fmt.Fprintf(tw, "pending time\t%s: p50 %v, p90 %v, p99 %v, max %v; %d still pending\n",
		plural(p.Count, "pod"), p.P50.Duration, p.P90.Duration, p.P99.Duration, p.Max.Duration, p.StillPending)
	if b := r.Buffers; b != nil {
		if b.Skipped != "" {
			fmt.Fprintf(tw, "capacity buffers\tno comparison: %s\n", b.Skipped)
		} else {
			q := b.WithoutPendingTime
			fmt.Fprintf(tw, "without buffers\tpending p50 %v, p90 %v, p99 %v, max %v; total cost $%.4f: the buffers cost $%.4f\n",
				q.P50.Duration, q.P90.Duration, q.P99.Duration, q.Max.Duration, b.WithoutTotalCost, b.Cost)
		}
	}
	fmt.Fprintf(tw, "disruptions\t%s\n", disruptionsCell(r.DisruptionsByMethod))
	fmt.Fprintf(tw, "evictions\t%d (%d validation failures)\n", r.Evictions, r.ValidationFailures)
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "TIME\tKIND\tMETHOD\tNODES\tPODS\tINSTANCE\tREASON")
	for _, d := range r.Timeline {
		fmt.Fprintf(tw, "%v\t%s\t%s\t%s\t%s\t%s\t%s\n", d.At.Duration, d.Kind, orDash(d.Method), orDash(strings.Join(d.Nodes, ",")),
			countCell(d.Pods), orDash(strings.TrimSpace(d.InstanceType+" "+d.CapacityType)), d.Reason)
	}
	if len(r.StillPending) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "STILL PENDING\tWHY")
		for _, p := range r.StillPending {
			fmt.Fprintf(tw, "%s\t%s\n", p.Pod, p.Reason)
		}
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "TIME\tNODES\tREGISTERED\tREADY\tPODS\tPENDING\t$/HOUR")
	for _, s := range coarseSamples(r) {
		fmt.Fprintf(tw, "%v\t%d\t%d\t%d\t%d\t%d\t%.4f\n", s.At.Duration, s.Nodes, s.Registered, s.Ready, s.Pods, s.PendingPods, s.CostPerHour)
	}
	return tw.Flush()
}

// peakNodes is the most nodes a sample or the end of the run saw.
func peakNodes(r *simulator.Result) int {
	peak := r.Final.Nodes
	for _, s := range r.Samples {
		peak = max(peak, s.Nodes)
	}
	return peak
}

// disruptionsCell lists disrupted nodes by method, sorted by method.
func disruptionsCell(byMethod map[string]int) string {
	if len(byMethod) == 0 {
		return "none"
	}
	methods := make([]string, 0, len(byMethod))
	for m := range byMethod {
		methods = append(methods, m)
	}
	slices.Sort(methods)
	parts := make([]string, len(methods))
	for i, m := range methods {
		parts[i] = m + " " + strconv.Itoa(byMethod[m])
	}
	return strings.Join(parts, ", ")
}

func countCell(n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.Itoa(n)
}

// coarseSamples are at most maxSampleRows evenly spaced samples, then the
// cluster at the end.
func coarseSamples(r *simulator.Result) []simulator.Sample {
	every := (len(r.Samples) + maxSampleRows - 1) / maxSampleRows
	var out []simulator.Sample
	for i := 0; i < len(r.Samples); i += max(every, 1) {
		out = append(out, r.Samples[i])
	}
	if len(out) == 0 || out[len(out)-1].At != r.Final.At {
		out = append(out, r.Final)
	}
	return out
}
