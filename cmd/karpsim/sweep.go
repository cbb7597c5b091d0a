package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/report"
	"github.com/karpsim/karpsim/simulator"
	"github.com/karpsim/karpsim/sweep"
)

// sweepOptions are the flags of `karpsim sweep`.
type sweepOptions struct {
	file        string
	output      string
	workers     int
	shard       string
	keepResults bool
	outputFile  string
	report      string
	job         jobOptions
}

func newSweepCommand() *cobra.Command {
	var opts sweepOptions
	cmd := &cobra.Command{
		Use:   "sweep -f SWEEP [flags]",
		Short: "run every scenario of a sweep file under every variant and seed: cost, nodes and pending times side by side",
		Long: `Sweep runs the cartesian product of a sweep file's scenarios, variants (patches to the scenario and
its NodePools, spot interruptions, workload scale, a catalog) and seeds, on a pool of workers, and
prints one row per scenario × variant: cost mean over the seeds (-o wide adds its min and max), peak
nodes, pending p50 and p99, disruptions, and the cheapest variant of each scenario marked *. The output does not
depend on --workers or on the order runs finish in. A run that fails is reported on its row and the
others still run; the exit code is then 1.

--shard I/N runs only the runs whose index is I mod N and prints a partial result (JSON unless -o
yaml); 'karpsim sweep merge PARTS...' joins the parts into what the whole sweep prints.
--emit-job prints a ConfigMap holding the sweep (its file, scenarios, manifests and catalogs) and an
Indexed Job that runs one shard per completion index. The sweep file format is in docs/simulation.md.`,
		Example: `  # Three NodePool designs over the sweep's scenarios and seeds
  karpsim sweep -f testdata/nodepool-designs.sweep.yaml

  # Every run's summary as CSV, on two workers
  karpsim sweep -f testdata/nodepool-designs.sweep.yaml -o csv --workers 2

  # Shard 0 of 3, merged later with 'karpsim sweep merge'
  karpsim sweep -f testdata/nodepool-designs.sweep.yaml --shard 0/3 > part-0.json

  # An Indexed Job running the sweep in 4 shards on a cluster
  karpsim sweep -f testdata/nodepool-designs.sweep.yaml --emit-job --image ghcr.io/example/karpsim:v1 --parallelism 4`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.file == "" {
				return fmt.Errorf("%w: -f SWEEP is required", errUsage)
			}
			shard, err := parseShard(opts.shard)
			if err != nil {
				return err
			}
			if opts.job.emit {
				return runEmitJob(opts, cmd.OutOrStdout())
			}
			if !shard.whole() && !cmd.Flags().Changed("output") {
				opts.output = "json"
			}
			if err := checkSweepOutput(opts.output, !shard.whole()); err != nil {
				return err
			}
			return runSweep(opts, shard.Shard, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVarP(&opts.file, "filename", "f", "", "sweep `FILE` (YAML; see docs/simulation.md)")
	must(cmd.MarkFlagFilename("filename", "yaml", "yml", "json"))
	addOutputFlag(cmd, &opts.output, "table", "wide", "json", "yaml", "csv")
	cmd.Flags().IntVar(&opts.workers, "workers", runtime.NumCPU(), "runs at once (`N`; default: the number of CPUs); the output does not depend on it")
	// The default depends on the machine: the usage says what it is, so
	// that help and docs/cli read the same everywhere.
	cmd.Flags().Lookup("workers").DefValue = "0"
	noCompletion(cmd, "workers")
	cmd.Flags().StringVar(&opts.shard, "shard", "", "run only the runs whose index is I mod N (`I/N`) and print a partial result")
	noCompletion(cmd, "shard")
	cmd.Flags().BoolVar(&opts.keepResults, "keep-results", false, "keep every run's whole result (timeline and samples) in -o json|yaml, not only its summary")
	cmd.Flags().StringVar(&opts.outputFile, "output-file", "", "write the output to `FILE` instead of standard output (an Indexed Job's shard writes its part to a volume)")
	cmd.Flags().StringVar(&opts.report, "report", "", "also write the sweep's HTML report (see karpsim report) to `FILE`")
	must(cmd.MarkFlagFilename("report", "html"))
	addJobFlags(cmd, &opts.job)
	cmd.AddCommand(newSweepMergeCommand())
	return cmd
}

func newSweepMergeCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "merge PART... [flags]",
		Short: "join the partial results of a sweep's shards into the result of the whole sweep",
		Long: `Merge reads the partial results that 'karpsim sweep --shard I/N' printed (JSON or YAML files) and
prints what the whole sweep prints: every run must come exactly once, and all from the same sweep.`,
		Example: `  # Join three shards' parts into the sweep's table
  karpsim sweep merge testdata/sweeps/parts/nodepool-designs-0.json testdata/sweeps/parts/nodepool-designs-1.json testdata/sweeps/parts/nodepool-designs-2.json

  # The same, as every run's summary in JSON
  karpsim sweep merge -o json testdata/sweeps/parts/nodepool-designs-0.json testdata/sweeps/parts/nodepool-designs-1.json testdata/sweeps/parts/nodepool-designs-2.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkSweepOutput(output, false); err != nil {
				return err
			}
			var parts []sweep.Part
			for _, path := range args {
				data, err := os.ReadFile(path)
				if err != nil {
					return err
				}
				part, err := sweep.ReadPart(path, data)
				if err != nil {
					return err
				}
				parts = append(parts, sweep.Part{Name: path, Result: part})
			}
			res, err := sweep.MergeParts(parts)
			if err != nil {
				return err
			}
			return writeSweep(cmd.OutOrStdout(), res, output)
		},
	}
	addOutputFlag(cmd, &output, "table", "wide", "json", "yaml", "csv")
	return cmd
}

// shardFlag is a parsed --shard.
type shardFlag struct{ sweep.Shard }

func (s shardFlag) whole() bool { return s.Count == 0 }

// parseShard reads "I/N"; "" is the whole sweep.
func parseShard(s string) (shardFlag, error) {
	if s == "" {
		return shardFlag{}, nil
	}
	i, n, ok := strings.Cut(s, "/")
	index, err1 := strconv.Atoi(i)
	count, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || count < 1 || index < 0 || index >= count {
		return shardFlag{}, fmt.Errorf("%w: --shard %q: want I/N with 0 <= I < N", errUsage, s)
	}
	return shardFlag{sweep.Shard{Index: index, Count: count}}, nil
}

func checkSweepOutput(output string, partial bool) error {
	switch output {
	case "json", "yaml":
		return nil
	case "table", "wide", "csv":
		if partial {
			return fmt.Errorf("%w: -o %s: a shard prints a partial result for 'sweep merge': -o json or yaml", errUsage, output)
		}
		return nil
	}
	return fmt.Errorf("%w: -o %q: want table, wide, json, yaml or csv", errUsage, output)
}

// sweepInput is a sweep file with everything it names, read.
type sweepInput struct {
	spec     sweep.Spec
	sources  []sweep.Source
	catalogs map[string]instancetypes.Catalog
	// files are every file read, by path, for --emit-job's bundle.
	files []string
}

// readSweep reads the sweep file, its scenarios (a folder's .yaml and .yml
// files), their manifests and the variants' catalogs. Paths in the sweep
// file are relative to its folder and must stay inside it.
func readSweep(path string) (*sweepInput, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	spec, err := sweep.Parse(path, data)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	in := &sweepInput{spec: spec, catalogs: map[string]instancetypes.Catalog{}, files: []string{path}}
	for i, p := range spec.Scenarios {
		files, err := scenarioFilesWithin(dir, p)
		if err != nil {
			return nil, fmt.Errorf("%s: scenarios[%d]: %w", path, i, err)
		}
		for _, f := range files {
			src, read, err := readSource(f)
			if err != nil {
				return nil, err
			}
			in.sources = append(in.sources, src)
			in.files = append(in.files, read...)
		}
	}
	for _, v := range spec.Variants {
		if v.Catalog == "" || in.catalogs[v.Catalog] != nil {
			continue
		}
		file, err := manifests.Within(dir, v.Catalog)
		if err != nil {
			return nil, fmt.Errorf("%s: variant %s: catalog: %w", path, v.Name, err)
		}
		f, err := os.Open(file)
		if err != nil {
			return nil, fmt.Errorf("%s: variant %s: %w", path, v.Name, err)
		}
		catalog, err := instancetypes.ReadJSON(f, file)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: variant %s: %w", path, v.Name, err)
		}
		in.catalogs[v.Catalog] = catalog
		in.files = append(in.files, file)
	}
	return in, nil
}

// scenarioFilesWithin is scenarioFiles for a path the sweep file in dir
// names: the path and each file found must stay inside dir
// (manifests.Within), so that the sweep can be packed whole by --emit-job.
func scenarioFilesWithin(dir, p string) ([]string, error) {
	path, err := manifests.Within(dir, p)
	if err != nil {
		return nil, err
	}
	files, err := scenarioFiles(path)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := manifests.CheckWithin(dir, f); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// scenarioFiles is the file itself, or a folder's .yaml and .yml files in
// lexical order (not its subfolders').
func scenarioFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		ext := strings.ToLower(filepath.Ext(e.Name()))
		if !e.IsDir() && (ext == ".yaml" || ext == ".yml") {
			out = append(out, filepath.Join(path, e.Name()))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no .yaml scenario in the folder", path)
	}
	return out, nil
}

// readSource reads a scenario file and the manifest files it lists; it
// returns the paths it read.
func readSource(path string) (sweep.Source, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return sweep.Source{}, nil, err
	}
	sc, err := simulator.LoadScenario(path)
	if err != nil {
		return sweep.Source{}, nil, err
	}
	// Refused at load, before any run: a variant can only scale it up.
	if err := simulator.CheckWork(sc, simulator.Config{}); err != nil {
		return sweep.Source{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	src := sweep.Source{Path: path, Scenario: data}
	read := []string{path}
	for _, m := range sc.Manifests {
		files, err := manifests.Files(m)
		if err != nil {
			return sweep.Source{}, nil, fmt.Errorf("%s: manifests: %w", path, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return sweep.Source{}, nil, err
			}
			src.Manifests = append(src.Manifests, manifests.Stream{Name: f, Data: b})
			read = append(read, f)
		}
	}
	return src, read, nil
}

func runSweep(opts sweepOptions, shard sweep.Shard, stdout, stderr io.Writer) error {
	in, err := readSweep(opts.file)
	if err != nil {
		return err
	}
	if opts.workers < 1 {
		return fmt.Errorf("%w: --workers %d: want at least 1", errUsage, opts.workers)
	}
	o := sweep.Options{Workers: opts.workers, Shard: shard, Catalogs: in.catalogs, KeepResults: opts.keepResults}
	if isTerminal(stderr) {
		bar := newProgressBar(stderr, time.Now)
		o.Progress = bar.report
	}
	res, err := sweep.Execute(context.Background(), in.spec, in.sources, o)
	if err != nil {
		return fmt.Errorf("%s: %w", opts.file, err)
	}
	if opts.report != "" {
		html, err := report.Sweep(res)
		if err != nil {
			return err
		}
		if err := os.WriteFile(opts.report, html, 0o644); err != nil {
			return err
		}
	}
	out := stdout
	if opts.outputFile != "" {
		f, err := os.Create(opts.outputFile)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	if err := writeSweep(out, res, opts.output); err != nil {
		return err
	}
	if f, ok := out.(*os.File); ok && opts.outputFile != "" {
		if err := f.Close(); err != nil {
			return err
		}
	}
	if n := res.Failed(); n > 0 {
		return fmt.Errorf("%d of %d runs failed: see their rows", n, len(res.Runs))
	}
	return nil
}

func writeSweep(w io.Writer, res *sweep.Result, output string) error {
	switch output {
	case "json":
		return writeJSON(w, res)
	case "yaml":
		return writeYAML(w, res)
	case "csv":
		return writeSweepCSV(w, res)
	}
	return writeTable(w, output, func(w io.Writer) error { return writeSweepTable(w, res, output == "wide") })
}

// writeSweepTable prints one row per scenario × variant, the best of each
// scenario marked *; the cheapest and dearest run's cost only when wide.
func writeSweepTable(w io.Writer, res *sweep.Result, wide bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	name := res.Name
	if name == "" {
		name = "(unnamed)"
	}
	fmt.Fprintf(tw, "Sweep %s: %d runs, %d failed\n\n", name, len(res.Runs), res.Failed())
	// The cost range's columns, MIN and MAX, are wide only.
	rangeHeader := ""
	if wide {
		rangeHeader = "MIN\tMAX\t"
	}
	fmt.Fprintln(tw, "SCENARIO\tVARIANT\tRUNS\tCOST MEAN\t"+rangeHeader+"PEAK NODES\tPENDING P50\tP99\tDISRUPTIONS")
	for _, r := range res.Rows {
		mark := " "
		if r.Best {
			mark = "*"
		}
		if r.Failed == r.Runs {
			fmt.Fprintf(tw, "%s\t%s\t%d\tfailed: %s\n", r.Scenario, r.Variant, r.Runs, r.Error)
			continue
		}
		costRange := ""
		if wide {
			costRange = fmt.Sprintf("$%.2f\t$%.2f\t", r.CostMin, r.CostMax)
		}
		fmt.Fprintf(tw, "%s\t%s %s\t%d\t$%.2f\t%s%d\t%v\t%v\t%.2f\n", r.Scenario, mark, r.Variant, r.Runs,
			r.CostMean, costRange, r.PeakNodes, r.PendingP50.Duration, r.PendingP99.Duration, r.Disruptions)
		if r.Failed > 0 {
			// The last cell, so that the error widens no column.
			fmt.Fprintf(tw, "\t  %d of %d failed: %s\n", r.Failed, r.Runs, r.Error)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\n* the cheapest variant of the scenario (mean cost over seeds; variants with a failed run are not compared)")
	return err
}

// writeSweepCSV prints every run's summary, a row each, for spreadsheets.
func writeSweepCSV(w io.Writer, res *sweep.Result) error {
	cw := csv.NewWriter(w)
	header := []string{"index", "scenario", "variant", "seed", "total_cost", "peak_nodes", "final_nodes",
		"pending_p50_s", "pending_p90_s", "pending_p99_s", "pending_max_s", "still_pending", "launches", "disruptions", "error"}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, r := range res.Runs {
		row := []string{strconv.Itoa(r.Index), r.Scenario, r.Variant, strconv.FormatUint(r.Seed, 10)}
		if s := r.Summary; s != nil {
			row = append(row, strconv.FormatFloat(s.TotalCost, 'f', 4, 64), strconv.Itoa(s.PeakNodes), strconv.Itoa(s.FinalNodes),
				seconds(s.PendingP50.Duration), seconds(s.PendingP90.Duration), seconds(s.PendingP99.Duration), seconds(s.PendingMax.Duration),
				strconv.Itoa(s.StillPending), strconv.Itoa(s.Launches), strconv.Itoa(s.Disruptions), "")
		} else {
			row = append(row, slices.Repeat([]string{""}, 10)...)
			row = append(row, r.Error)
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func seconds(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) }

// progressBar redraws runs done of the total, the time so far and an
// estimate of the time left on a terminal.
type progressBar struct {
	w     io.Writer
	now   func() time.Time
	start time.Time
}

func newProgressBar(w io.Writer, now func() time.Time) *progressBar {
	return &progressBar{w: w, now: now, start: now()}
}

// report is a sweep.Options.Progress.
func (p *progressBar) report(done, total int) {
	elapsed := p.now().Sub(p.start)
	if done >= total {
		fmt.Fprint(p.w, "\r\033[K")
		return
	}
	const width = 30
	filled := width * done / total
	left := time.Duration(float64(elapsed) / float64(done) * float64(total-done))
	fmt.Fprintf(p.w, "\r\033[K[%s%s] %d/%d runs, %v elapsed, about %v left", strings.Repeat("#", filled),
		strings.Repeat(".", width-filled), done, total, elapsed.Truncate(time.Second), left.Truncate(time.Second))
}
