package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/report"
	"github.com/karpsim/karpsim/simulator"
	"github.com/karpsim/karpsim/sweep"
)

func newReportCommand() *cobra.Command {
	var file, output, outputFile string
	cmd := &cobra.Command{
		Use:   "report [-f RESULT] [--output-file FILE] [flags]",
		Short: "turn a simulate, compare or sweep result into one self-contained HTML report with charts",
		Long: `Report reads the JSON (or YAML) result that 'karpsim simulate', 'compare' or 'sweep' prints and writes
one HTML file that needs nothing else to open, not even the network: for a simulation, the summary,
nodes by instance type and capacity type, nodes, pending pods, cost per hour and cost so far over
time, drawn from the run's events (not its samples), with a marker per disruption naming the
decision, a decision table filtered in the page, the nodes and their cost by NodePool, zone,
capacity type and instance type, and a row per node; for a comparison, what Karpenter saves and both
runs side by side on shared axes; for a sweep, each scenario's cost per variant (bars with their
min and max over seeds) and cost against pending p99. The kind of
result is recognised from its fields. The report goes to standard output, or to --output-file; -o is
the format, as in the other commands, and html is the only one. 'simulate', 'compare' and 'sweep'
also take --report FILE to write the report beside their own output.`,
		Example: `  # A simulation's report
  karpsim simulate -f testdata/scenarios/daily-traffic.yaml -o json | karpsim report --output-file daily-traffic.html

  # A sweep's report, from its merged parts
  karpsim sweep merge -o json testdata/sweeps/parts/nodepool-designs-0.json testdata/sweeps/parts/nodepool-designs-1.json testdata/sweeps/parts/nodepool-designs-2.json | karpsim report`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if output != "html" {
				return reportOutputError(output)
			}
			var data []byte
			var err error
			if file == stdinPath {
				data, err = readStdin(cmd.InOrStdin(), manifests.MaxStreamBytes, cmd.ErrOrStderr())
			} else {
				data, err = os.ReadFile(file)
			}
			if err != nil {
				return err
			}
			name := file
			if file == stdinPath {
				name = stdinName
			}
			html, err := renderReport(name, data)
			if err != nil {
				return err
			}
			return writeReportTo(outputFile, cmd.OutOrStdout(), html)
		},
	}
	cmd.Flags().StringVarP(&file, "filename", "f", stdinPath, "the result `FILE` (JSON or YAML from simulate, compare or sweep), or - for standard input")
	must(cmd.MarkFlagFilename("filename", "json", "yaml", "yml"))
	addOutputFlag(cmd, &output, "html")
	cmd.Flags().StringVar(&outputFile, "output-file", stdinPath, "write the report to `FILE` instead of standard output (- for standard output)")
	must(cmd.MarkFlagFilename("output-file", "html"))
	return cmd
}

// reportOutputError refuses an -o other than html, which is what -o FILE
// once meant: it names the flag that writes a file, with the file when -o
// was given one.
func reportOutputError(output string) error {
	file := "FILE"
	if strings.ContainsAny(output, "./"+string(filepath.Separator)) {
		file = output
	}
	return fmt.Errorf("%w: -o %q: -o is the output format, and report writes html only; to write the report to a file, give --output-file %s",
		errUsage, output, file)
}

// renderReport recognises the result and renders its report: a comparison
// holds karpenter and clusterAutoscaler, a sweep runs and rows, a
// simulation a timeline.
func renderReport(name string, data []byte) ([]byte, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(j, &fields); err != nil {
		return nil, fmt.Errorf("%s: not a karpsim result: %w", name, err)
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := fields[k]; !ok {
				return false
			}
		}
		return true
	}
	switch {
	case has("karpenter", "clusterAutoscaler"):
		var c report.Comparison
		if err := json.Unmarshal(j, &c); err != nil {
			return nil, fmt.Errorf("%s: comparison: %w", name, err)
		}
		return report.Compare(c)
	case has("runs", "rows"):
		var r sweep.Result
		if err := json.Unmarshal(j, &r); err != nil {
			return nil, fmt.Errorf("%s: sweep result: %w", name, err)
		}
		return report.Sweep(&r)
	case has("timeline", "samples"):
		var r simulator.Result
		if err := json.Unmarshal(j, &r); err != nil {
			return nil, fmt.Errorf("%s: simulation result: %w", name, err)
		}
		return report.Simulate(&r)
	}
	return nil, fmt.Errorf("%s: not a result of simulate, compare or sweep (-o json): no timeline, runs or karpenter field", name)
}

// writeReportTo writes the report to the file, or to stdout for "-".
func writeReportTo(file string, stdout io.Writer, html []byte) error {
	if file == "" || file == stdinPath {
		_, err := stdout.Write(html)
		return err
	}
	return os.WriteFile(file, html, 0o644)
}
