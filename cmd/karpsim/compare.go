package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/report"
	"github.com/karpsim/karpsim/simulator"
)

// compareOptions are the flags of `karpsim compare`.
type compareOptions struct {
	file    string
	output  string
	seed    uint64
	seedSet bool
	// report is the HTML report's file, "" for none.
	report string
	// optimize adds a third run: Karpenter with the optimizing planner.
	optimize bool
	limits   limitOptions
	// cloud is --cloud: the cloud of the default NodePool.
	cloud string
}

// comparison is what `compare -o json` prints: each autoscaler's Result, as
// simulate prints it (with Utilization measured), and what Karpenter
// changes.
type comparison struct {
	Karpenter         *simulator.Result `json:"karpenter"`
	ClusterAutoscaler *simulator.Result `json:"clusterAutoscaler"`
	Difference        difference        `json:"difference"`
	// KarpenterOptimized is Karpenter's loop provisioning with the
	// optimizing planner (compare --optimize), and OptimizeSaved what it
	// saves over Karpenter's own; both absent without --optimize.
	KarpenterOptimized *simulator.Result   `json:"karpenterOptimized,omitempty"`
	OptimizeSaved      *optimizeDifference `json:"optimizeSaved,omitempty"`
}

// optimizeDifference is Karpenter's cost less the optimizing planner's,
// in USD over the run and as a share of Karpenter's (0 when that is 0).
type optimizeDifference struct {
	CostSaved        float64 `json:"costSaved"`
	CostSavedPercent float64 `json:"costSavedPercent"`
}

// difference is what Karpenter saves over the Cluster Autoscaler: the
// Cluster Autoscaler's figure less Karpenter's, so that a positive value is
// in Karpenter's favour (less money, less waiting, more of the nodes used).
type difference struct {
	// CostSaved is in USD over the run; CostSavedPercent is it as a share
	// of the Cluster Autoscaler's cost (0 when that is 0).
	CostSaved        float64 `json:"costSaved"`
	CostSavedPercent float64 `json:"costSavedPercent"`
	// PendingTimeSaved compares the pending-time percentiles.
	PendingTimeSaved pendingDifference `json:"pendingTimeSaved"`
	PeakNodes        int               `json:"peakNodesSaved"`
	// UtilizationGained is Karpenter's requested-over-allocatable share
	// less the Cluster Autoscaler's, in points of a share (0.1 = 10 points).
	UtilizationGained utilizationDifference `json:"utilizationGained"`
}

type pendingDifference struct {
	P50 metav1.Duration `json:"p50"`
	P90 metav1.Duration `json:"p90"`
	P99 metav1.Duration `json:"p99"`
	Max metav1.Duration `json:"max"`
}

type utilizationDifference struct {
	CPU    float64 `json:"cpu"`
	Memory float64 `json:"memory"`
}

func newCompareCommand() *cobra.Command {
	var opts compareOptions
	cmd := &cobra.Command{
		Use:   "compare -f SCENARIO [flags]",
		Short: "run a scenario under Karpenter and under the Cluster Autoscaler, and print them side by side",
		Long: `Compare runs one scenario twice with the same seed, cloud, kube-scheduler and workloads: once under
Karpenter's loop (the scenario's NodePools) and once under the Cluster Autoscaler model (its
clusterAutoscaler node groups, or one on-demand m5.xlarge group without them). It prints total cost,
peak and final nodes, pending-time percentiles, launches, disruptions and the requested-over-
allocatable utilization averaged over the samples, beside what Karpenter saves. -o json prints
{"karpenter": RESULT, "clusterAutoscaler": RESULT, "difference": {...}}, each RESULT as simulate
prints it; every saving in "difference" is the Cluster Autoscaler's figure less Karpenter's.
--optimize adds a third run, Karpenter's loop provisioning with the optimizing planner (simulate
--optimize), as a KARPENTER+OPTIMIZE column and "karpenterOptimized" and "optimizeSaved" (Karpenter's
cost less the optimized run's) in JSON.`,
		Example: `  # A day of traffic under both autoscalers
  karpsim compare -f testdata/scenarios/daily-traffic.yaml

  # Both results and the difference, as JSON, with another seed
  karpsim compare -f testdata/scenarios/default.yaml -o json --seed 7

  # What the optimizing planner would save over Karpenter's, beside both
  karpsim compare -f testdata/scenarios/optimize-batch.yaml --optimize`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.seedSet = cmd.Flags().Changed("seed")
			if opts.file == "" {
				return fmt.Errorf("%w: no -f given: compare needs a scenario (-f testdata/scenarios/default.yaml runs the built-in one)", errUsage)
			}
			if err := checkOutput(opts.output); err != nil {
				return err
			}
			if err := opts.limits.check(true); err != nil {
				return err
			}
			if err := checkCloud(opts.cloud); err != nil {
				return err
			}
			return runCompare(opts, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&opts.file, "filename", "f", "", "scenario `FILE` (YAML; see docs/simulation.md), or - for standard input")
	must(cmd.MarkFlagFilename("filename", "yaml", "yml"))
	addOutputFlag(cmd, &opts.output, "table", "wide", "json", "yaml")
	cmd.Flags().Uint64Var(&opts.seed, "seed", 0, "override the scenario's `SEED` for both runs")
	cmd.Flags().StringVar(&opts.report, "report", "", "also write the comparison's HTML report (see karpsim report) to `FILE`")
	cmd.Flags().BoolVar(&opts.optimize, "optimize", false, "also run Karpenter's loop with the optimizing planner (as simulate --optimize), in a KARPENTER+OPTIMIZE column")
	must(cmd.MarkFlagFilename("report", "html"))
	noCompletion(cmd, "seed")
	addCloudFlag(cmd, &opts.cloud)
	addInputLimitFlags(cmd, &opts.limits)
	addDurationLimitFlag(cmd, &opts.limits)
	return cmd
}

func runCompare(opts compareOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	sc, err := loadSimulateScenario(opts.file, opts.limits, stdin, stderr)
	if err != nil {
		return err
	}
	if opts.seedSet {
		sc.Seed = opts.seed
	}
	// The two runs share nothing: Run changes nothing it is given.
	var out comparison
	var errs [3]error
	var wg sync.WaitGroup
	for i, which := range simulator.Autoscalers() {
		wg.Go(func() {
			cfg := opts.limits.simulatorConfig()
			cfg.Snapshot.Cloud = opts.cloud
			cfg.Autoscaler, cfg.MeasureUtilization = which, true
			res, err := simulator.Run(context.Background(), sc, cfg)
			errs[i] = err
			if which == simulator.AutoscalerKarpenter {
				out.Karpenter = res
			} else {
				out.ClusterAutoscaler = res
			}
		})
	}
	if opts.optimize {
		wg.Go(func() {
			cfg := opts.limits.simulatorConfig()
			cfg.Snapshot.Cloud = opts.cloud
			cfg.MeasureUtilization, cfg.Planner = true, optimizingPlanner
			out.KarpenterOptimized, errs[2] = simulator.Run(context.Background(), sc, cfg)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			which := "karpenter+optimize"
			if i < len(simulator.Autoscalers()) {
				which = string(simulator.Autoscalers()[i])
			}
			return fmt.Errorf("%s (%s): %w", scenarioSource(opts.file), which, err)
		}
	}
	printWarnings(stderr, out.Karpenter.Warnings)
	printWarnings(stderr, out.ClusterAutoscaler.Warnings)
	out.Difference = compareResults(out.Karpenter, out.ClusterAutoscaler)
	if o := out.KarpenterOptimized; o != nil {
		printWarnings(stderr, o.Warnings)
		out.OptimizeSaved = &optimizeDifference{CostSaved: round4(out.Karpenter.TotalCost - o.TotalCost)}
		if out.Karpenter.TotalCost > 0 {
			out.OptimizeSaved.CostSavedPercent = math.Round((out.Karpenter.TotalCost-o.TotalCost)/out.Karpenter.TotalCost*1000) / 10
		}
	}
	if opts.report != "" {
		html, err := report.Compare(report.Comparison{Karpenter: out.Karpenter, ClusterAutoscaler: out.ClusterAutoscaler})
		if err != nil {
			return err
		}
		if err := os.WriteFile(opts.report, html, 0o644); err != nil {
			return err
		}
	}
	switch opts.output {
	case "json":
		return writeJSON(stdout, out)
	case "yaml":
		return writeYAML(stdout, out)
	default:
		return writeTable(stdout, opts.output, func(w io.Writer) error { return writeCompareTable(w, out, opts.output == "wide") })
	}
}

func compareResults(k, ca *simulator.Result) difference {
	d := difference{CostSaved: round4(ca.TotalCost - k.TotalCost), PeakNodes: peakNodes(ca) - peakNodes(k)}
	if ca.TotalCost > 0 {
		d.CostSavedPercent = math.Round((ca.TotalCost-k.TotalCost)/ca.TotalCost*1000) / 10
	}
	sub := func(a, b metav1.Duration) metav1.Duration { return metav1.Duration{Duration: a.Duration - b.Duration} }
	kp, cp := k.PendingTime, ca.PendingTime
	d.PendingTimeSaved = pendingDifference{P50: sub(cp.P50, kp.P50), P90: sub(cp.P90, kp.P90), P99: sub(cp.P99, kp.P99), Max: sub(cp.Max, kp.Max)}
	if k.Utilization != nil && ca.Utilization != nil {
		d.UtilizationGained = utilizationDifference{CPU: round4(k.Utilization.CPU - ca.Utilization.CPU),
			Memory: round4(k.Utilization.Memory - ca.Utilization.Memory)}
	}
	return d
}

// dollars prints an amount that may be negative: -$0.0700.
func dollars(v float64) string {
	if v < 0 {
		return fmt.Sprintf("-$%.4f", -v)
	}
	return fmt.Sprintf("$%.4f", v)
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// writeCompareTable prints the two runs in columns and what Karpenter
// saves, and with --optimize the optimized run in a last column, whose
// cost says what it saves over Karpenter's as a share only (wide: in
// dollars too).
func writeCompareTable(w io.Writer, c comparison, wide bool) error {
	k, ca, d, o := c.Karpenter, c.ClusterAutoscaler, c.Difference, c.KarpenterOptimized
	name := k.Scenario
	if name == "" {
		name = "(unnamed)"
	}
	fmt.Fprintf(w, "Scenario %s: %v from %s, seed %d\n\n", name, k.Duration.Duration, k.Start.UTC().Format(time.RFC3339), k.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// row prints a line; opt is the optimized run's cell, left out
	// without --optimize.
	row := func(format string, opt func(r *simulator.Result) string, args ...any) {
		line := fmt.Sprintf(format, args...)
		if o != nil {
			line += "\t" + opt(o)
		}
		fmt.Fprintln(tw, line)
	}
	row("\tKARPENTER\tCLUSTER AUTOSCALER\tKARPENTER SAVES", func(*simulator.Result) string { return "KARPENTER+OPTIMIZE" })
	row("total cost\t$%.4f\t$%.4f\t%s (%.1f%%)", func(r *simulator.Result) string {
		if !wide {
			return fmt.Sprintf("$%.4f (%.1f%% less)", r.TotalCost, c.OptimizeSaved.CostSavedPercent)
		}
		return fmt.Sprintf("$%.4f (%s, %.1f%% less than Karpenter)", r.TotalCost, dollars(c.OptimizeSaved.CostSaved), c.OptimizeSaved.CostSavedPercent)
	}, k.TotalCost, ca.TotalCost, dollars(d.CostSaved), d.CostSavedPercent)
	row("peak nodes (sampled)\t%d\t%d\t%d", func(r *simulator.Result) string { return fmt.Sprint(peakNodes(r)) }, peakNodes(k), peakNodes(ca), d.PeakNodes)
	row("final nodes\t%d ($%.4f/hour)\t%d ($%.4f/hour)\t", func(r *simulator.Result) string {
		return fmt.Sprintf("%d ($%.4f/hour)", r.Final.Nodes, r.Final.CostPerHour)
	}, k.Final.Nodes, k.Final.CostPerHour, ca.Final.Nodes, ca.Final.CostPerHour)
	row("launches\t%d (%d failed)\t%d (%d failed)\t", func(r *simulator.Result) string {
		return fmt.Sprintf("%d (%d failed)", r.Launches, r.LaunchFailures)
	}, k.Launches, k.LaunchFailures, ca.Launches, ca.LaunchFailures)
	kp, cp, dp := k.PendingTime, ca.PendingTime, d.PendingTimeSaved
	row("pods bound\t%d (%d still pending)\t%d (%d still pending)\t", func(r *simulator.Result) string {
		return fmt.Sprintf("%d (%d still pending)", r.PendingTime.Count, r.PendingTime.StillPending)
	}, kp.Count, kp.StillPending, cp.Count, cp.StillPending)
	for _, p := range []struct {
		name    string
		k, c, d metav1.Duration
		of      func(simulator.Percentiles) metav1.Duration
	}{
		{"pending p50", kp.P50, cp.P50, dp.P50, func(p simulator.Percentiles) metav1.Duration { return p.P50 }},
		{"pending p90", kp.P90, cp.P90, dp.P90, func(p simulator.Percentiles) metav1.Duration { return p.P90 }},
		{"pending p99", kp.P99, cp.P99, dp.P99, func(p simulator.Percentiles) metav1.Duration { return p.P99 }},
		{"pending max", kp.Max, cp.Max, dp.Max, func(p simulator.Percentiles) metav1.Duration { return p.Max }},
	} {
		row("%s\t%v\t%v\t%v", func(r *simulator.Result) string { return fmt.Sprint(p.of(r.PendingTime).Duration) }, p.name, p.k.Duration, p.c.Duration, p.d.Duration)
	}
	row("disruptions\t%s\t%s\t", func(r *simulator.Result) string { return disruptionsCell(r.DisruptionsByMethod) },
		disruptionsCell(k.DisruptionsByMethod), disruptionsCell(ca.DisruptionsByMethod))
	if k.Utilization != nil && ca.Utilization != nil {
		row("cpu requested / allocatable\t%.1f%%\t%.1f%%\t%+.1f points", func(r *simulator.Result) string { return utilizationCell(r, true) },
			k.Utilization.CPU*100, ca.Utilization.CPU*100, d.UtilizationGained.CPU*100)
		row("memory requested / allocatable\t%.1f%%\t%.1f%%\t%+.1f points", func(r *simulator.Result) string { return utilizationCell(r, false) },
			k.Utilization.Memory*100, ca.Utilization.Memory*100, d.UtilizationGained.Memory*100)
	}
	return tw.Flush()
}

func utilizationCell(r *simulator.Result, cpu bool) string {
	switch {
	case r.Utilization == nil:
		return "-"
	case cpu:
		return fmt.Sprintf("%.1f%%", r.Utilization.CPU*100)
	}
	return fmt.Sprintf("%.1f%%", r.Utilization.Memory*100)
}
