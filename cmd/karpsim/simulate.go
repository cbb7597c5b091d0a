package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

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
}

// maxSampleRows bounds the nodes-and-cost table: longer runs show every
// n-th sample so that a day fits on a screen.
const maxSampleRows = 25

func runSimulate(args []string, stdout, stderr io.Writer) error {
	opts, err := parseSimulateFlags(args, stderr)
	if err != nil {
		return err
	}
	sc, err := loadSimulateScenario(opts.file, stderr)
	if err != nil {
		return err
	}
	if opts.seedSet {
		sc.Seed = opts.seed
	}
	var cfg simulator.Config
	if isTerminal(stderr) {
		cfg.Progress = newProgressLine(stderr, time.Now).report
	}
	res, err := simulator.Run(context.Background(), sc, cfg)
	if err != nil {
		return fmt.Errorf("%s: %w", scenarioSource(opts.file), err)
	}
	printWarnings(stderr, res.Warnings)
	switch opts.output {
	case "json":
		return writeJSON(stdout, res)
	case "yaml":
		return writeYAML(stdout, res)
	default:
		return writeSimulateTable(stdout, res)
	}
}

func parseSimulateFlags(args []string, stderr io.Writer) (simulateOptions, error) {
	var opts simulateOptions
	fs := newFlagSet("simulate", "[-f SCENARIO] [flags]", stderr)
	fs.StringVar(&opts.file, "f", "", "scenario `FILE` (YAML; see README's karpsim simulate section) (default: the built-in inflate 0 → 10 → 0 scenario)")
	fs.StringVar(&opts.output, "o", "table", "output format: table, json or yaml")
	fs.Uint64Var(&opts.seed, "seed", 0, "override the scenario's `SEED` for every random choice of the run")
	if err := parseFlags(fs, args); err != nil {
		return opts, err
	}
	fs.Visit(func(f *flag.Flag) { opts.seedSet = opts.seedSet || f.Name == "seed" })
	if err := checkOutput(opts.output); err != nil {
		return opts, err
	}
	return opts, nil
}

// loadSimulateScenario reads the scenario file, or the built-in default
// scenario when none was given.
func loadSimulateScenario(file string, stderr io.Writer) (simulator.Scenario, error) {
	if file != "" {
		return simulator.LoadScenario(file)
	}
	fmt.Fprintln(stderr, "karpsim simulate: no -f given: running the built-in scenario, the inflate Deployment scaled 0 → 10 → 0 on the default NodePool over an hour")
	sc, err := simulator.ParseScenario(defaultScenario)
	if err != nil {
		return sc, fmt.Errorf("%s: %w", scenarioSource(""), err)
	}
	return sc, nil
}

func scenarioSource(file string) string {
	if file == "" {
		return "example/default-scenario.yaml"
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
	peak := r.Final.Nodes
	for _, s := range r.Samples {
		peak = max(peak, s.Nodes)
	}
	p := r.PendingTime
	fmt.Fprintf(w, "Scenario %s: %v from %s, seed %d\n\n", name, r.Duration.Duration, r.Start.UTC().Format(time.RFC3339), r.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "total cost\t$%.4f\n", r.TotalCost)
	fmt.Fprintf(tw, "nodes\tpeak %d (sampled), final %d ($%.4f/hour)\n", peak, r.Final.Nodes, r.Final.CostPerHour)
	fmt.Fprintf(tw, "launches\t%d (%d failed)\n", r.Launches, r.LaunchFailures)
	fmt.Fprintf(tw, "pending time\t%s: p50 %v, p90 %v, p99 %v, max %v; %d still pending\n",
		plural(p.Count, "pod"), p.P50.Duration, p.P90.Duration, p.P99.Duration, p.Max.Duration, p.StillPending)
	fmt.Fprintf(tw, "disruptions\t%s\n", disruptionsCell(r.DisruptionsByMethod))
	fmt.Fprintf(tw, "evictions\t%d (%d validation failures)\n", r.Evictions, r.ValidationFailures)
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "TIME\tKIND\tMETHOD\tNODES\tPODS\tINSTANCE\tREASON")
	for _, d := range r.Timeline {
		fmt.Fprintf(tw, "%v\t%s\t%s\t%s\t%s\t%s\t%s\n", d.At.Duration, d.Kind, orDash(d.Method), orDash(strings.Join(d.Nodes, ",")),
			countCell(d.Pods), orDash(strings.TrimSpace(d.InstanceType+" "+d.CapacityType)), d.Reason)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "TIME\tNODES\tREGISTERED\tREADY\tPODS\tPENDING\t$/HOUR")
	for _, s := range coarseSamples(r) {
		fmt.Fprintf(tw, "%v\t%d\t%d\t%d\t%d\t%d\t%.4f\n", s.At.Duration, s.Nodes, s.Registered, s.Ready, s.Pods, s.PendingPods, s.CostPerHour)
	}
	return tw.Flush()
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
