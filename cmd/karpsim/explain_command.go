package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/snapshot"
)

// newExplainCommand is `karpsim explain pod|node`: why a pod is pending
// and where it would go, why a node is or is not disrupted.
func newExplainCommand(env environment) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain pod|node NAME [flags]",
		Short: "say why a pod is pending and what Karpenter would do for it, or why a node is or is not disrupted",
		Long: `Explain answers about one object, read from -f files or from a cluster (--kubeconfig, --context).
"explain pod NAMESPACE/NAME" prints every decision the provisioning plan takes about a pending pod: each
existing node, NodeClaim and NodePool tried and why it was refused or taken (as plan --explain).
"explain node NAME" prints what Karpenter's disruption controller would do with the node: the command
that deletes it, or what stops each method: a pod, PodDisruptionBudget, do-not-disrupt annotation,
budget, consolidateAfter, or the cheaper replacement that does not exist.`,
		Example: `  # Why a pod is pending, and which NodePool would take it
  karpsim explain pod ml/notebook -f testdata/plan/gpu/input.yaml

  # Why a node is not consolidated
  karpsim explain node ip-10-0-1-10.ec2.internal -f testdata/disrupt/do-not-disrupt-and-pdb/input.yaml

  # The same questions about a live cluster (read only)
  karpsim explain node ip-10-0-1-10.ec2.internal --kubeconfig ~/.kube/config --context prod`,
		Args:              cobra.NoArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(*cobra.Command, []string) error {
			return fmt.Errorf("%w: explain what? give pod NAMESPACE/NAME or node NAME", errUsage)
		},
	}
	cmd.AddCommand(newExplainPodCommand(env), newExplainNodeCommand(env))
	return cmd
}

func newExplainPodCommand(env environment) *cobra.Command {
	var opts planOptions
	cmd := &cobra.Command{
		Use:   "pod NAMESPACE/NAME [-f PATH]... [flags]",
		Short: "why a pod is pending, and every decision the plan takes about it",
		Example: `  karpsim explain pod ml/notebook -f testdata/plan/gpu/input.yaml
  karpsim explain pod shop/web-0 --context prod`,
		Args:              exactlyOne("pod NAMESPACE/NAME"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.explain = args[0]
			if err := opts.check(); err != nil {
				return err
			}
			snap, err := planSnapshot(env, opts, "explain pod", cmd.InOrStdin(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			return runExplainPod(cmd.OutOrStdout(), cmd.ErrOrStderr(), snap, opts)
		},
	}
	addFilenameFlag(cmd, &opts.files, "(default: the built-in inflate example)")
	addOutputFlag(cmd, &opts.output, "table", "wide", "json", "yaml")
	f := cmd.Flags()
	f.BoolVar(&opts.ignorePreferences, "ignore-preferences", false, "as plan --ignore-preferences")
	f.StringVar(&opts.minValuesPolicy, "min-values-policy", "Strict", "as plan --min-values-policy: Strict or BestEffort")
	f.StringVar(&opts.region, "region", "", regionUsage)
	f.StringVar(&opts.zones, "zones", "", "comma-separated zones of the offerings (default: the region's a, b and c)")
	addClusterFlags(cmd, &opts.cluster)
	completeValues(cmd, "min-values-policy", "Strict", "BestEffort")
	noCompletion(cmd, "region", "zones")
	return cmd
}

func runExplainPod(stdout, stderr io.Writer, snap *snapshot.Snapshot, opts planOptions) error {
	in := snap.Input(planSchedulingOptions(opts))
	return explainPod(stdout, stderr, snap, in, opts.explain, opts.output)
}

func newExplainNodeCommand(env environment) *cobra.Command {
	var opts disruptOptions
	cmd := &cobra.Command{
		Use:   "node NAME [-f PATH]... [flags]",
		Short: "why Karpenter's disruption controller would or would not disrupt a node",
		Example: `  karpsim explain node ip-10-0-1-10.ec2.internal -f testdata/disrupt/do-not-disrupt-and-pdb/input.yaml
  karpsim explain node ip-10-0-1-10.ec2.internal --context prod`,
		Args:              exactlyOne("node NAME"),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			result, now, err := evaluateDisruption(env, opts, "explain node", cmd.InOrStdin(), cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			e, err := explainNode(result, args[0], now)
			if err != nil {
				return err
			}
			switch opts.output {
			case "json":
				return writeJSON(cmd.OutOrStdout(), e)
			case "yaml":
				return writeYAML(cmd.OutOrStdout(), e)
			}
			return writeTable(cmd.OutOrStdout(), opts.output, func(w io.Writer) error { return writeNodeExplanation(w, e) })
		},
	}
	addFilenameFlag(cmd, &opts.files, "(or --kubeconfig): Nodes, NodeClaims, Pods, PDBs, NodePools, EC2NodeClasses or AKSNodeClasses")
	addOutputFlag(cmd, &opts.output, "table", "wide", "json", "yaml")
	f := cmd.Flags()
	f.StringVar(&opts.at, "at", "", "evaluate at this RFC 3339 `TIME` (default: now for a cluster, the latest timestamp in the input for files)")
	f.BoolVar(&opts.spotToSpot, "spot-to-spot", false, "enable the SpotToSpotConsolidation feature gate")
	f.StringVar(&opts.gates, "feature-gates", "", featureGatesUsage)
	f.StringVar(&opts.awsGates, "aws-feature-gates", "", awsRepairFeatureGatesUsage)
	addRegionFlag(cmd, &opts.region)
	addClusterFlags(cmd, &opts.cluster)
	noCompletion(cmd, "at")
	return cmd
}

// nodeExplanation is what `explain node -o json` prints.
type nodeExplanation struct {
	Node     string    `json:"node"`
	NodePool string    `json:"nodePool"`
	At       time.Time `json:"at"`
	// Disruptable is true when the next command deletes the node.
	Disruptable bool `json:"disruptable"`
	// Reason is the node's verdict: what the command does with it, or what
	// stops each method.
	Reason string `json:"reason"`
	// Command is the command that deletes the node, if any.
	Command *consolidation.Command `json:"command,omitempty"`
	// Expired is set when the node's NodeClaim has expired: Karpenter
	// deletes it whatever the verdict.
	Expired *snapshot.Expired `json:"expired,omitempty"`
}

// explainNode picks one node's verdict, command and expiry from a
// disruption decision.
func explainNode(r disruptResult, name string, now time.Time) (nodeExplanation, error) {
	i := slices.IndexFunc(r.Candidates, func(v consolidation.CandidateVerdict) bool { return v.Node == name })
	if i < 0 {
		return nodeExplanation{}, missingNode(r, name)
	}
	v := r.Candidates[i]
	e := nodeExplanation{Node: v.Node, NodePool: v.NodePool, At: now.UTC(), Disruptable: v.Disruptable, Reason: v.Reason}
	for _, c := range r.Commands {
		if slices.Contains(c.Delete, name) || c.Reboot == name {
			e.Command = &c
			break
		}
	}
	for _, x := range r.Expiring {
		if x.Node == name {
			e.Expired = &x
			break
		}
	}
	return e, nil
}

// missingNode names a few of the nodes there are.
func missingNode(r disruptResult, name string) error {
	if len(r.Candidates) == 0 {
		return fmt.Errorf("explain node %s: no such node: the input has no node", name)
	}
	var names []string
	for _, v := range r.Candidates[:min(len(r.Candidates), 5)] {
		names = append(names, v.Node)
	}
	more := ""
	if len(r.Candidates) > len(names) {
		more = fmt.Sprintf(" and %d more", len(r.Candidates)-len(names))
	}
	return fmt.Errorf("explain node %s: no such node (nodes: %s%s)", name, strings.Join(names, ", "), more)
}

func writeNodeExplanation(w io.Writer, e nodeExplanation) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "Node %s\n", e.Node)
	fmt.Fprintf(tw, "  nodepool:\t%s\n", orDash(e.NodePool))
	fmt.Fprintf(tw, "  at:\t%s\n", e.At.Format(time.RFC3339))
	fmt.Fprintf(tw, "  disrupted:\t%s\n", yesNo(e.Disruptable))
	fmt.Fprintf(tw, "  why:\t%s\n", e.Reason)
	if c := e.Command; c != nil {
		fmt.Fprintf(tw, "  command:\t%s: %s\n", c.Method, c.Reason)
		if c.Reboot != "" {
			fmt.Fprintf(tw, "  reboots:\t%s\n", c.Reboot)
		} else {
			fmt.Fprintf(tw, "  deletes:\t%s\n", strings.Join(c.Delete, ", "))
		}
		fmt.Fprintf(tw, "  replacements:\t%s\n", replacementsCell(*c))
		fmt.Fprintf(tw, "  savings $/hour:\t%.4f\n", c.SavingsPerHour)
	}
	if x := e.Expired; x != nil {
		fmt.Fprintf(tw, "  expired:\tNodeClaim %s at %s: Karpenter deletes it whatever the budgets\n", x.NodeClaim, x.ExpiredAt.UTC().Format(time.RFC3339))
	}
	return tw.Flush()
}

// exactlyOne accepts one positional argument, named what in the error.
func exactlyOne(what string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		switch {
		case len(args) == 0:
			return fmt.Errorf("%w: give the %s", errUsage, what)
		case len(args) > 1:
			return fmt.Errorf("%w: unexpected argument %q: give one %s", errUsage, args[1], what)
		}
		return nil
	}
}
