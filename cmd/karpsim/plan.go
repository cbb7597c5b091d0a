package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// exampleInflate is the seed guide's inflate Deployment scaled to 10
// replicas: what `karpsim plan` plans when given no file.
//
//go:embed example/inflate.yaml
var exampleInflate []byte

// planOptions are the flags of `karpsim plan`.
type planOptions struct {
	files             []string
	output            string
	explain           string
	ignorePreferences bool
	// lowerBound asks for a proven lower bound on any plan's cost.
	lowerBound bool
	// optimize looks for a cheaper plan than Karpenter's.
	optimize        bool
	minValuesPolicy string
	// dra models dynamic resource allocation (--ignore-dra-requests=false).
	dra     bool
	region  string
	zones   string
	offers  offeringFlags
	cluster clusterOptions
	// awsGates is --aws-feature-gates.
	awsGates string
}

func newPlanCommand(env environment) *cobra.Command {
	var opts planOptions
	cmd := &cobra.Command{
		Use:   "plan [-f PATH]... | --kubeconfig PATH [--context NAME] [flags]",
		Short: "show the NodeClaims Karpenter would launch for the pending pods of some manifests, and why",
		Long: `Plan reads NodePools, node classes (EC2NodeClasses or AKSNodeClasses), NodeClaims, Nodes, Pods,
DaemonSets, PodDisruptionBudgets and workload controllers, and prints what Karpenter would launch for the pending pods: new NodeClaims by
NodePool, instance type and capacity type, pods bound to existing nodes, and why each unschedulable pod
is unschedulable. Without -f, it plans the built-in example (inflate, 10 replicas, on the default
NodePool) and says so on standard error. With --kubeconfig or --context it reads the objects from the
cluster instead (list and watch only; it writes nothing), and takes instance types from the embedded EC2
model or --catalog, never from the cluster. Warnings go to standard error, each prefixed "warning: ".`,
		Example: `  # Plan for the pending pods of a live cluster (read only), and with a NodePool edit applied
  karpsim plan --kubeconfig ~/.kube/config --context prod
  karpsim plan --context prod --nodepool-file my-nodepool.yaml

  # Plan a file of manifests, as JSON
  karpsim plan -f testdata/plan/gpu/input.yaml -o json

  # Every decision about one pending pod (as karpsim explain pod)
  karpsim plan -f testdata/plan/gpu/input.yaml --explain ml/notebook`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			return runPlan(env, opts, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addFilenameFlag(cmd, &opts.files, "(default: the built-in inflate example)")
	addOutputFlag(cmd, &opts.output, "table", "wide", "json", "yaml")
	f := cmd.Flags()
	f.StringVar(&opts.explain, "explain", "", "explain the decisions about one pending `POD` (namespace/name, or name in namespace default) instead of printing the plan")
	f.BoolVar(&opts.optimize, "optimize", false, "print the cheapest plan found that obeys every constraint Karpenter's does and schedules as many pods: Karpenter's, or one packed by cost per pod and/or with NodePools narrowed to the types the bound's linear program buys (stderr and the optimization field say what changed)")
	f.BoolVar(&opts.lowerBound, "lower-bound", true, "prove a lower bound on the cost of any plan for the same pods and print how far this plan is above it (--lower-bound=false skips it)")
	f.BoolVar(&opts.ignorePreferences, "ignore-preferences", false, "drop preferred affinities and ScheduleAnyway spread constraints up front (Karpenter's PreferencePolicy=Ignore)")
	f.StringVar(&opts.minValuesPolicy, "min-values-policy", "Strict", "Strict refuses a NodeClaim with fewer distinct values than a requirement's minValues; BestEffort launches it anyway (Karpenter's MinValuesPolicy)")
	f.BoolVar(&opts.dra, "dra", false, "model dynamic resource allocation as Karpenter does with --ignore-dra-requests=false: GPU instance types offer their devices, pods' ResourceClaims request them (without it, Karpenter's default, pods that claim devices are unschedulable)")
	f.StringVar(&opts.region, "region", "", regionUsage)
	f.StringVar(&opts.zones, "zones", "", "comma-separated zones of the offerings (default: the region's a, b and c)")
	addOfferingFlags(cmd, &opts.offers)
	f.StringVar(&opts.awsGates, "aws-feature-gates", "", awsFeatureGatesUsage)
	addClusterFlags(cmd, &opts.cluster)
	completeValues(cmd, "min-values-policy", "Strict", "BestEffort")
	noCompletion(cmd, "explain", "region", "zones")
	return cmd
}

func runPlan(env environment, opts planOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	snap, err := planSnapshot(env, opts, "plan", stdin, stderr)
	if err != nil {
		return err
	}
	in := snap.Input(planSchedulingOptions(opts))
	if opts.explain != "" {
		return explainPod(stdout, stderr, snap, in, opts.explain, opts.output)
	}
	result := scheduling.Solve(in)
	base := result
	printWarnings(stderr, result.Warnings)
	var optimization *planOptimization
	if opts.optimize {
		o, err := optimize.Search(in, optimize.SolveOptions{})
		if err != nil {
			return fmt.Errorf("optimize: %w", err)
		}
		if o.Strategy == optimize.StrategyKarpenter {
			fmt.Fprintf(stderr, "optimize: no plan cheaper than Karpenter's ($%.4f/hour) was found: printing Karpenter's\n", o.KarpenterPerHour)
		} else {
			fmt.Fprintf(stderr, "optimize: found by %s\n", o.Strategy)
			for _, p := range o.NodePools {
				fmt.Fprintf(stderr, "optimize: NodePool %s narrowed to %d instance types (%s)\n", p.NodePool, len(p.InstanceTypes), strings.Join(p.InstanceTypes, ", "))
			}
			for _, e := range o.Edits {
				fmt.Fprintf(stderr, "optimize: Karpenter's own plan with NodePool %s\n", e)
			}
			fmt.Fprintf(stderr, "optimize: $%.4f/hour, $%.4f/hour less than Karpenter's plan\n", o.PerHour, o.Saving)
		}
		optimization = &planOptimization{KarpenterPerHour: o.KarpenterPerHour, PerHour: o.PerHour, SavingPerHour: o.Saving,
			Strategy: o.Strategy, NodePools: o.NodePools, Edits: o.Edits, Candidates: o.Candidates}
		result = o.Result
		printWarnings(stderr, newWarnings(result.Warnings, base.Warnings))
	}
	out := planOutput{Result: result, Summary: planSummary{Summary: result.Summary}, Optimization: optimization}
	if len(snap.Buffers) > 0 {
		// What the buffers cost is what the plan costs above the same plan
		// without them.
		without := in
		without.Pods = snap.Pending
		cost := math.Round((result.Summary.PricePerHour-scheduling.Solve(without).Summary.PricePerHour)*1e6) / 1e6
		out.Summary.BufferPricePerHour = &cost
	}
	if opts.lowerBound {
		b, err := optimize.LowerBound(in, result, optimize.BoundOptions{})
		if err != nil {
			return fmt.Errorf("lower bound: %w", err)
		}
		// Rounded down to 1/10,000 of a dollar: a bound must not grow.
		floor := math.Floor(b.PerHour*1e4) / 1e4
		out.Summary.LowerBoundPerHour = &floor
		out.gap = b.Gap
	}
	return writeResult(stdout, out, opts.output)
}

// planOutput is the plan as printed: the scheduler's Result, its summary
// with the lower bound beside it.
type planOutput struct {
	scheduling.Result
	Summary planSummary `json:"summary"`
	// Optimization says what --optimize found and weighed, and what it
	// saved; absent without --optimize.
	Optimization *planOptimization `json:"optimization,omitempty"`
	// gap is how far the plan is above the bound, (plan − bound) / bound.
	gap float64
}

// planOptimization is what --optimize did: Karpenter's plan's cost
// beside the one printed, how that one was found (optimize.Search), and
// every candidate weighed. It is printed whether or not a cheaper plan
// was found (Strategy "karpenter", no saving, when none was).
type planOptimization struct {
	KarpenterPerHour float64 `json:"karpenterPerHour"`
	PerHour          float64 `json:"perHour"`
	SavingPerHour    float64 `json:"savingPerHour"`
	// Strategy is how the printed plan was found, NodePools the
	// NodePools its search narrowed, with the types each kept.
	Strategy  string                  `json:"strategy"`
	NodePools []optimize.NarrowedPool `json:"nodePools,omitempty"`
	// Edits are the NodePool edits under which Karpenter's own plan is
	// the one printed (strategy "nodepool-edits"), as advise prints them.
	Edits      []optimize.Edit      `json:"edits,omitempty"`
	Candidates []optimize.Candidate `json:"candidates"`
}

// newWarnings are the warnings of the optimized plan that Karpenter's,
// already printed, did not give.
func newWarnings(optimized, printed []string) []string {
	var out []string
	for _, w := range optimized {
		if !slices.Contains(printed, w) {
			out = append(out, w)
		}
	}
	return out
}

type planSummary struct {
	scheduling.Summary
	// LowerBoundPerHour is a proven lower bound on the $/hour of the new
	// NodeClaims of any plan that schedules the same pods (package
	// optimize); absent with --lower-bound=false.
	LowerBoundPerHour *float64 `json:"lowerBoundPerHour,omitempty"`
	// BufferPricePerHour is what the CapacityBuffers' virtual pods add to
	// the plan's $/hour: its price less that of the plan without them;
	// absent without buffers.
	BufferPricePerHour *float64 `json:"bufferPricePerHour,omitempty"`
}

func planSchedulingOptions(opts planOptions) scheduling.Options {
	return scheduling.Options{IgnorePreferences: opts.ignorePreferences, MinValuesBestEffort: opts.minValuesPolicy == "BestEffort"}
}

// planSnapshot reads the objects the flags name (the cluster, the -f
// paths, or the built-in example) and builds the snapshot plan decides on.
func planSnapshot(env environment, opts planOptions, command string, stdin io.Reader, stderr io.Writer) (*snapshot.Snapshot, error) {
	return snapshotOrExample(env, opts, command, stdin, stderr, func() (*manifests.Set, error) {
		return loadPlanInput(nil, opts.cluster.cloud, stdin, stderr)
	})
}

// snapshotOrExample is planSnapshot with the objects read by example when
// no -f and no cluster is given.
func snapshotOrExample(env environment, opts planOptions, command string, stdin io.Reader, stderr io.Writer, example func() (*manifests.Set, error)) (*snapshot.Snapshot, error) {
	_, snap, err := setAndSnapshot(env, opts, command, stdin, stderr, example)
	return snap, err
}

// setAndSnapshot is snapshotOrExample with the objects read, which say
// where each came from.
func setAndSnapshot(env environment, opts planOptions, command string, stdin io.Reader, stderr io.Writer, example func() (*manifests.Set, error)) (*manifests.Set, *snapshot.Snapshot, error) {
	set, origin, err := loadObjects(env, opts.cluster, opts.files, command, stdin, stderr, example)
	if err != nil {
		return nil, nil, err
	}
	gates, err := parseAWSFeatureGates(opts.awsGates)
	if err != nil {
		return nil, nil, err
	}
	snapOpts := snapshot.Options{Region: opts.region, Zones: splitZones(opts.zones), Origin: origin, DRA: opts.dra, MaxPods: opts.cluster.limits.pods,
		NodeClassCEL: gates.nodeClassCEL}
	if snapOpts.Reservations, err = opts.offers.reservations(); err != nil {
		return nil, nil, err
	}
	snapOpts.ZonalShifts = splitZones(opts.offers.zonalShift)
	if snapOpts.PlacementGroupStrategy, err = opts.offers.placementGroupStrategy(); err != nil {
		return nil, nil, err
	}
	if err := catalogOptions(opts.cluster, &snapOpts, command, stderr); err != nil {
		return nil, nil, err
	}
	snap, err := snapshot.FromSet(set, snapOpts)
	if err != nil {
		return nil, nil, err
	}
	printWarnings(stderr, snap.Warnings)
	return set, snap, nil
}

// check refuses flag values that cannot mean anything.
func (opts planOptions) check() error {
	if err := checkFiles(opts.files); err != nil {
		return err
	}
	if err := opts.cluster.check(opts.files); err != nil {
		return err
	}
	if err := checkOutput(opts.output); err != nil {
		return err
	}
	if opts.minValuesPolicy != "Strict" && opts.minValuesPolicy != "BestEffort" {
		return fmt.Errorf("%w: --min-values-policy %q: want Strict or BestEffort", errUsage, opts.minValuesPolicy)
	}
	if opts.zones != "" && len(splitZones(opts.zones)) == 0 {
		return fmt.Errorf("%w: --zones %q names no zone", errUsage, opts.zones)
	}
	_, err := parseAWSFeatureGates(opts.awsGates)
	return err
}

// loadPlanInput reads the manifests, or the built-in example when no path
// was given.
func loadPlanInput(files []string, cloud string, stdin io.Reader, stderr io.Writer) (*manifests.Set, error) {
	if len(files) > 0 {
		return loadManifests(files, limitOptions{}, stdin, stderr)
	}
	fmt.Fprintln(stderr, "karpsim plan: no -f given: planning the built-in example, the inflate Deployment (10 replicas of 1 CPU and 1Gi) on the default NodePool")
	return exampleSetFor(cloud)
}

// exampleSet is the built-in example on AWS (see exampleSetFor).
func exampleSet() (*manifests.Set, error) { return exampleSetFor(provider.CloudAWS) }

// exampleSetFor is the built-in example: the inflate Deployment with karpsim's
// default NodePool and node class of the cloud (--cloud) given beside it,
// the objects a Set without NodePools gets, so that the example plans as a
// user's file of inflate alone would, with no warning that it gives no
// NodePool: the example is karpsim's, and stderr has said what it is. The
// defaults' own warnings are karpsim's concern too, and are dropped.
func exampleSetFor(cloud string) (*manifests.Set, error) {
	set, err := manifests.Decode("example/inflate.yaml", exampleInflate)
	if err != nil {
		return nil, err
	}
	defaults, err := manifests.Decode("karpsim's default NodePool", snapshot.DefaultManifestsFor(cloud))
	if err != nil {
		return nil, err
	}
	set.NodePools, set.EC2NodeClasses, set.AKSNodeClasses = defaults.NodePools, defaults.EC2NodeClasses, defaults.AKSNodeClasses
	return set, nil
}

func splitZones(s string) []string {
	var zones []string
	for _, z := range strings.Split(s, ",") {
		if z = strings.TrimSpace(z); z != "" {
			zones = append(zones, z)
		}
	}
	return zones
}

func printWarnings(w io.Writer, warnings []string) {
	for _, msg := range warnings {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
}

// writeResult prints the plan in the chosen format.
func writeResult(w io.Writer, r planOutput, output string) error {
	switch output {
	case "json":
		return writeJSON(w, r)
	case "yaml":
		return writeYAML(w, r)
	default:
		return writeTable(w, output, func(w io.Writer) error { return writePlanTable(w, r) })
	}
}

// writeJSON marshals v with two-space indentation, leaving <, > and &
// unescaped so that reasons read as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// writeYAML prints v as YAML with the field names of its JSON form.
func writeYAML(w io.Writer, v any) error {
	var buf bytes.Buffer
	if err := writeJSON(&buf, v); err != nil {
		return err
	}
	out, err := yaml.JSONToYAML(buf.Bytes())
	if err != nil {
		return err
	}
	_, err = w.Write(out)
	return err
}

// claimGroup is the new NodeClaims of one NodePool, instance type and
// capacity type.
type claimGroup struct {
	nodePool, instanceType, capacityType string
	count, pods, bufferPods              int
	zones                                []string
	price                                float64
}

// groupClaims groups the new NodeClaims, sorted by NodePool, instance type
// and capacity type.
func groupClaims(claims []scheduling.NodeClaim) []*claimGroup {
	var groups []*claimGroup
	for _, c := range claims {
		i := slices.IndexFunc(groups, func(g *claimGroup) bool {
			return g.nodePool == c.NodePool && g.instanceType == c.InstanceType && g.capacityType == c.CapacityType
		})
		if i < 0 {
			groups = append(groups, &claimGroup{nodePool: c.NodePool, instanceType: c.InstanceType, capacityType: c.CapacityType})
			i = len(groups) - 1
		}
		g := groups[i]
		g.count++
		g.pods += len(c.Pods)
		g.bufferPods += c.BufferPods
		g.price += c.PricePerHour
		if !slices.Contains(g.zones, c.Zone) {
			g.zones = append(g.zones, c.Zone)
		}
	}
	for _, g := range groups {
		slices.Sort(g.zones)
	}
	slices.SortFunc(groups, func(a, b *claimGroup) int {
		return cmpStrings(a.nodePool, b.nodePool, a.instanceType, b.instanceType, a.capacityType, b.capacityType)
	})
	return groups
}

// cmpStrings compares pairs of strings in turn: (a0, b0), then (a1, b1)…
func cmpStrings(pairs ...string) int {
	for i := 0; i+1 < len(pairs); i += 2 {
		if c := strings.Compare(pairs[i], pairs[i+1]); c != 0 {
			return c
		}
	}
	return 0
}

// writePlanTable prints the new NodeClaims grouped by NodePool and
// instance type, the bindings to existing nodes, a summary line, and the
// unschedulable pods with their reasons.
func writePlanTable(w io.Writer, r planOutput) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if len(r.NodeClaims) > 0 {
		fmt.Fprintln(tw, "NODEPOOL\tINSTANCE TYPE\tCAPACITY TYPE\tNODES\tPODS\tZONES\t$/HOUR")
		for _, g := range groupClaims(r.NodeClaims) {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%.4f\n", g.nodePool, orDash(g.instanceType), orDash(g.capacityType), g.count, withBuffer(g.pods, g.bufferPods), orDash(strings.Join(g.zones, ",")), g.price)
		}
		fmt.Fprintln(tw)
	}
	perNode := bindingsPerNode(r.Bindings)
	if len(perNode) > 0 {
		fmt.Fprintln(tw, "EXISTING NODE\tPODS")
		for _, n := range perNode {
			fmt.Fprintf(tw, "%s\t%s\n", n.node, withBuffer(n.pods, n.bufferPods))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := r.Summary
	fmt.Fprintf(w, "%s: %d scheduled on %s ($%.4f/hour) and %s; %d unschedulable\n",
		plural(s.Pods, "pod"), s.ScheduledPods, plural(s.NodeClaims, "new node"), s.PricePerHour, plural(len(perNode), "existing node"), s.UnschedulablePods)
	// A plan that launches nothing costs nothing to bound.
	if b := s.LowerBoundPerHour; b != nil && s.NodeClaims > 0 {
		if *b > 0 {
			fmt.Fprintf(w, "lower bound $%.4f/hour (plan is +%.0f%%)\n", *b, 100*r.gap)
		} else {
			fmt.Fprintf(w, "lower bound $%.4f/hour\n", *b)
		}
	}
	if s.BufferPods > 0 {
		fmt.Fprintf(w, "capacity buffers: %s placed of %d", plural(s.ScheduledBufferPods, "virtual pod"), s.BufferPods)
		if c := s.BufferPricePerHour; c != nil {
			fmt.Fprintf(w, ", costing $%.4f/hour", *c)
		}
		fmt.Fprintln(w)
	}
	if len(r.Unschedulable) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "UNSCHEDULABLE POD\tREASON")
		for _, u := range r.Unschedulable {
			fmt.Fprintf(tw, "%s\t%s\n", u.Pod, u.Reason)
		}
		return tw.Flush()
	}
	return nil
}

type nodePods struct {
	node             string
	pods, bufferPods int
}

// withBuffer is a pod count, with how many of them are buffer pods when
// any are: "5 (2 buffer)".
func withBuffer(pods, buffer int) string {
	if buffer == 0 {
		return fmt.Sprint(pods)
	}
	return fmt.Sprintf("%d (%d buffer)", pods, buffer)
}

// bindingsPerNode counts the pods bound to each existing node, by node name.
func bindingsPerNode(bindings []scheduling.Binding) []nodePods {
	var out []nodePods
	for _, b := range bindings {
		i := slices.IndexFunc(out, func(n nodePods) bool { return n.node == b.Node })
		if i < 0 {
			out = append(out, nodePods{node: b.Node})
			i = len(out) - 1
		}
		out[i].pods++
		if b.Buffer {
			out[i].bufferPods++
		}
	}
	slices.SortFunc(out, func(a, b nodePods) int { return strings.Compare(a.node, b.node) })
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
