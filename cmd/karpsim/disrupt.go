package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// disruptOptions are the flags of `karpsim disrupt`.
type disruptOptions struct {
	files      []string
	at         string
	output     string
	spotToSpot bool
	// gates is --feature-gates, awsGates --aws-feature-gates.
	gates, awsGates string
	// dra models dynamic resource allocation (--ignore-dra-requests=false).
	dra     bool
	cluster clusterOptions
	// region is --region: "" for the cloud's default.
	region string
	// simulationCost is --simulation-cost: with it, consolidation keeps
	// Karpenter's timeouts on a virtual clock (consolidation.Timeouts).
	simulationCost time.Duration
}

// maxSimulationCost bounds --simulation-cost: one simulation longer than
// the single-node budget can only time everything out.
const maxSimulationCost = time.Hour

// disruptResult is what `karpsim disrupt -o json` prints: the decision of
// consolidation.Evaluate and the expired NodeClaims.
type disruptResult struct {
	Commands   []consolidation.Command          `json:"commands"`
	Candidates []consolidation.CandidateVerdict `json:"candidates"`
	// Expiring are the NodeClaims that have expired: Karpenter deletes
	// them whatever the budgets, outside the disruption methods.
	Expiring []snapshot.Expired `json:"expiring"`
	// TimedOutNodePools are the NodePools single-node consolidation did not
	// reach before its timeout (with --simulation-cost).
	TimedOutNodePools []string `json:"timedOutNodePools,omitempty"`
}

func newDisruptCommand(env environment) *cobra.Command {
	var opts disruptOptions
	cmd := &cobra.Command{
		Use:   "disrupt -f PATH... | --kubeconfig PATH [--context NAME] [flags]",
		Short: "show what Karpenter's disruption controller would do next with a cluster's nodes, and why not with the others",
		Long: `Disrupt reads a cluster's Nodes, NodeClaims, Pods, PodDisruptionBudgets, NodePools and node classes
(EC2NodeClasses or AKSNodeClasses) and prints what Karpenter's disruption controller would do next: node repair
(with --feature-gates NodeRepair=true), emptiness, drift, multi-node and single-node consolidation under the
NodePools' budgets, each command with its replacements and savings; then a verdict for every node saying what
stops each method; then the expired NodeClaims.
It evaluates at --at, or else at the latest timestamp of the input, which it says on standard error.
With --kubeconfig or --context it reads the cluster instead (list and watch only; it writes nothing)
and evaluates now unless --at is given.`,
		Example: `  # What Karpenter would disrupt next in a live cluster (read only), now
  karpsim disrupt --kubeconfig ~/.kube/config --context prod

  # The same from a dump of the cluster
  kubectl get pods,nodes,pdb,nodepools.karpenter.sh,nodeclaims,ec2nodeclasses -A -o yaml | karpsim disrupt -f -

  # A cluster saved to a file, as JSON
  karpsim disrupt -f testdata/disrupt/empty-node/input.yaml -o json

  # The same cluster at another time, with spot-to-spot consolidation
  karpsim disrupt -f testdata/disrupt/empty-node/input.yaml --at 2026-03-03T18:00:00Z --spot-to-spot`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			return runDisrupt(env, opts, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addFilenameFlag(cmd, &opts.files, "(required): Nodes, NodeClaims, Pods, PDBs, NodePools, EC2NodeClasses or AKSNodeClasses")
	addOutputFlag(cmd, &opts.output, "table", "wide", "json", "yaml")
	f := cmd.Flags()
	f.StringVar(&opts.at, "at", "", "evaluate at this RFC 3339 `TIME` (default: the latest timestamp in the input, so that the output depends on the input alone)")
	f.BoolVar(&opts.spotToSpot, "spot-to-spot", false, "enable the SpotToSpotConsolidation feature gate: spot nodes may be replaced by cheaper spot nodes")
	f.StringVar(&opts.gates, "feature-gates", "", featureGatesUsage)
	f.StringVar(&opts.awsGates, "aws-feature-gates", "", awsRepairFeatureGatesUsage)
	f.BoolVar(&opts.dra, "dra", false, "model dynamic resource allocation as Karpenter does with --ignore-dra-requests=false: nodes and instance types offer their GPU devices, and pods' ResourceClaims request them wherever consolidation moves them")
	f.DurationVar(&opts.simulationCost, "simulation-cost", 0, "model Karpenter's consolidation timeouts (multi-node 1m, single-node 3m), taking each scheduling simulation to last `DURATION` (at most 1h; 0, the default, never times out)")
	addRegionFlag(cmd, &opts.region)
	addClusterFlags(cmd, &opts.cluster)
	noCompletion(cmd, "at")
	return cmd
}

func runDisrupt(env environment, opts disruptOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	result, now, err := evaluateDisruption(env, opts, "disrupt", stdin, stderr)
	if err != nil {
		return err
	}
	switch opts.output {
	case "json":
		return writeJSON(stdout, result)
	case "yaml":
		return writeYAML(stdout, result)
	default:
		return writeTable(stdout, opts.output, func(w io.Writer) error { return writeDisruptTable(w, result, now) })
	}
}

// evaluateDisruption reads the objects the flags name and decides what
// the disruption controller does at the time they say.
func evaluateDisruption(env environment, opts disruptOptions, command string, stdin io.Reader, stderr io.Writer) (disruptResult, time.Time, error) {
	set, origin, err := loadObjects(env, opts.cluster, opts.files, command, stdin, stderr, nil)
	if err != nil {
		return disruptResult{}, time.Time{}, err
	}
	now, err := disruptTime(opts.at, set, opts.cluster.live(), command, stderr)
	if err != nil {
		return disruptResult{}, time.Time{}, err
	}
	awsGates, err := parseAWSFeatureGates(opts.awsGates)
	if err != nil {
		return disruptResult{}, time.Time{}, err
	}
	snapOpts := snapshot.Options{Region: opts.region, Origin: origin, MaxPods: opts.cluster.limits.pods, DRA: opts.dra, NodeClassCEL: awsGates.nodeClassCEL}
	if err := catalogOptions(opts.cluster, &snapOpts, command, stderr); err != nil {
		return disruptResult{}, time.Time{}, err
	}
	d, err := snapshot.ForDisruption(set, snapOpts, now)
	if err != nil {
		return disruptResult{}, time.Time{}, err
	}
	printWarnings(stderr, d.Warnings)
	gates, err := parseFeatureGates(opts.gates)
	if err != nil {
		return disruptResult{}, time.Time{}, err
	}
	evalOpts := consolidation.Options{SpotToSpotConsolidation: opts.spotToSpot,
		Scheduling: scheduling.Options{DefaultSpread: d.DefaultSpread, DRA: d.DRA, Devices: d.Devices()}}
	if err := gates.apply(&evalOpts, opts.cluster.cloud, awsGates); err != nil {
		return disruptResult{}, time.Time{}, err
	}
	if opts.simulationCost > 0 {
		evalOpts.Timeouts = &consolidation.Timeouts{SimulationCost: opts.simulationCost}
	}
	decision := consolidation.Evaluate(d.Cluster, now, evalOpts)
	result := disruptResult{Commands: decision.Commands, Candidates: decision.Candidates, Expiring: d.Expired,
		TimedOutNodePools: decision.TimedOutNodePools}
	if result.Expiring == nil {
		result.Expiring = []snapshot.Expired{}
	}
	return result, now, nil
}

// check refuses flag values that cannot mean anything.
func (opts disruptOptions) check() error {
	if err := checkFiles(opts.files); err != nil {
		return err
	}
	if err := opts.cluster.check(opts.files); err != nil {
		return err
	}
	if err := checkOutput(opts.output); err != nil {
		return err
	}
	if _, err := parseFeatureGates(opts.gates); err != nil {
		return err
	}
	if _, err := parseAWSFeatureGates(opts.awsGates); err != nil {
		return err
	}
	if len(opts.files) == 0 && !opts.cluster.live() {
		return fmt.Errorf("%w: no -f or --kubeconfig given: disrupt needs the cluster's manifests, or the cluster", errUsage)
	}
	if opts.at != "" {
		if _, err := time.Parse(time.RFC3339, opts.at); err != nil {
			return fmt.Errorf("%w: --at %q: want an RFC 3339 time such as 2026-03-02T12:00:00Z", errUsage, opts.at)
		}
	}
	if opts.simulationCost < 0 || opts.simulationCost > maxSimulationCost {
		return fmt.Errorf("%w: --simulation-cost %v: want a duration from 0 to %v", errUsage, opts.simulationCost, maxSimulationCost)
	}
	return nil
}

// disruptTime is --at, or else for a live cluster the time now, or else
// the latest timestamp of the input, said on stderr; an input without any
// timestamp needs --at.
func disruptTime(at string, set *manifests.Set, live bool, command string, stderr io.Writer) (time.Time, error) {
	if at != "" {
		t, err := time.Parse(time.RFC3339, at)
		if err != nil {
			return time.Time{}, err
		}
		return t.UTC(), checkAt(t.UTC(), set)
	}
	if live {
		now := time.Now().UTC().Truncate(time.Second)
		fmt.Fprintf(stderr, "karpsim %s: no --at given: evaluating the cluster now, at %s\n", command, now.Format(time.RFC3339))
		return now, nil
	}
	earliest, latest := snapshot.TimeRange(set)
	if latest.IsZero() {
		return time.Time{}, fmt.Errorf("%w: the input has no timestamp to evaluate at: give --at", errUsage)
	}
	if err := checkTimeRange(earliest, latest); err != nil {
		return time.Time{}, err
	}
	fmt.Fprintf(stderr, "karpsim %s: no --at given: evaluating at %s, the latest timestamp in the input\n", command, latest.UTC().Format(time.RFC3339))
	return latest, nil
}

// maxEvaluationSpan bounds how far the time evaluated at may be from the
// input's earliest timestamp: a time.Duration saturates at 292 years, and
// a "2562047h47m16s left" printed from a saturated one is wrong.
const (
	maxEvaluationSpan = 100 * 365 * 24 * time.Hour
	spanYears         = "100 years"
)

// checkAt refuses --at before the objects of the input existed (before its
// earliest timestamp), or so far after it that durations would saturate.
func checkAt(at time.Time, set *manifests.Set) error {
	earliest, latest := snapshot.TimeRange(set)
	switch {
	case earliest.IsZero():
		return nil
	case at.Before(earliest):
		return fmt.Errorf("--at %s is before the objects existed: the input's earliest timestamp is %s", at.Format(time.RFC3339), earliest.Format(time.RFC3339))
	case at.Sub(earliest) > maxEvaluationSpan:
		return fmt.Errorf("--at %s is more than %s after the input's earliest timestamp, %s: the times karpsim prints would not fit", at.Format(time.RFC3339), spanYears, earliest.Format(time.RFC3339))
	}
	return checkTimeRange(earliest, latest)
}

// checkTimeRange refuses input whose timestamps lie so far apart that the
// durations between them would saturate.
func checkTimeRange(earliest, latest time.Time) error {
	if latest.Sub(earliest) > maxEvaluationSpan {
		return fmt.Errorf("the input's timestamps run from %s to %s, more than %s apart: the times karpsim prints would not fit; fix the timestamps",
			earliest.Format(time.RFC3339), latest.Format(time.RFC3339), spanYears)
	}
	return nil
}

// writeDisruptTable prints the commands, then a verdict per node, then the
// expired NodeClaims.
func writeDisruptTable(w io.Writer, r disruptResult, now time.Time) error {
	fmt.Fprintf(w, "At %s:\n\n", now.UTC().Format(time.RFC3339))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(r.Commands) == 0 {
		fmt.Fprintln(tw, "No disruption: no method found a command.")
	} else {
		fmt.Fprintln(tw, "METHOD\tREASON\tDELETE\tREPLACEMENTS\tSAVINGS $/HOUR")
		for _, c := range r.Commands {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.4f\n", c.Method, c.Reason, deleteCell(c), replacementsCell(c), c.SavingsPerHour)
		}
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "NODE\tNODEPOOL\tDISRUPTABLE\tREASON")
	for _, v := range r.Candidates {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", v.Node, orDash(v.NodePool), yesNo(v.Disruptable), v.Reason)
	}
	if len(r.TimedOutNodePools) > 0 {
		fmt.Fprintf(tw, "\nSingle-node consolidation timed out before reaching NodePools %s: Karpenter tries them first in its next pass.\n",
			strings.Join(r.TimedOutNodePools, ", "))
	}
	if len(r.Expiring) > 0 {
		fmt.Fprintln(tw)
		fmt.Fprintln(tw, "EXPIRED NODECLAIM\tNODE\tNODEPOOL\tEXPIRED AT")
		for _, e := range r.Expiring {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.NodeClaim, orDash(e.Node), orDash(e.NodePool), e.ExpiredAt.UTC().Format(time.RFC3339))
		}
	}
	return tw.Flush()
}

// deleteCell names the nodes a command deletes, or the node node repair
// reboots in place.
func deleteCell(c consolidation.Command) string {
	if c.Reboot != "" {
		return "(reboot) " + c.Reboot
	}
	return strings.Join(c.Delete, ",")
}

// replacementsCell lists a command's replacements: instance type, zone,
// capacity type and price of each.
func replacementsCell(c consolidation.Command) string {
	if len(c.Replacements) == 0 {
		return "-"
	}
	parts := make([]string, len(c.Replacements))
	for i, r := range c.Replacements {
		parts[i] = fmt.Sprintf("%s %s %s $%.4f", r.InstanceType, r.Zone, r.CapacityType, r.PricePerHour)
	}
	return strings.Join(parts, "; ")
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
