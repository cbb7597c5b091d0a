package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/advise"
	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
)

// adviseOptions are the flags of `karpsim advise`: plan's input flags, and
// the bounds of the search.
type adviseOptions struct {
	plan          planOptions
	top           int
	maxCandidates int
	// patch prints the diff of advice rank against the user's files.
	patch bool
	rank  int
}

func newAdviseCommand(env environment) *cobra.Command {
	var opts adviseOptions
	cmd := &cobra.Command{
		Use:   "advise [-f PATH]... | --kubeconfig PATH [--context NAME] [flags]",
		Short: "find NodePool changes that make Karpenter's own plan for the pending pods cheaper",
		Long: `Advise reads the same objects as plan and looks for NodePool edits under which Karpenter, by its
own rules, launches cheaper nodes for the pending pods. Each candidate is one simulation of Karpenter's
plan with the edited NodePools. The edits tried, per NodePool:

  cap-cpu, floor-cpu       karpenter.k8s.aws/instance-cpu Lt N or Gt N, below the largest or above
                           the smallest type Karpenter launched
  drop-size, -family,      instance-size, instance-family or instance-generation NotIn one value
  -generation              Karpenter launched
  add-category, add-family the cheapest categories or families per vCPU the pool's In list leaves out
  allow-newer-generations  no upper bound on instance-generation
  allow-arm64, allow-spot  arm64 or spot added to the pool's arch or capacity-type list
  prefer-nodepool          the pool's weight above every other pool's

then pairs of the five best edits and a greedy chain of up to three. An edit under which a pod Karpenter
schedules today would stay pending is never shown. A NodePool labelled or annotated
karpsim.dev/committed: "true" (committed capacity: reserved instances, a savings plan) is never edited,
and no advice makes Karpenter launch less on it than today. Each piece of advice prints Karpenter's
$/hour with it, the saving, and the diff to apply: against the file each NodePool was read from, with
its comments and layout kept and its path relative to the root of its git work tree, so that
'git apply' applies it there (or 'patch -p1'); a NodePool read from a cluster or standard input gets
the diff of its manifest as karpsim writes it. --patch prints only that diff, of the advice --rank
(default 1), for 'karpsim advise -f FILE --patch | git apply'; -o yaml prints the NodePools of that
advice whole, edited, for kubectl apply; -o json gives every advice's NodePools before and after and
the JSON merge patch (RFC 7386) between them. The lower bound is proven for the NodePools as they
are: edits that only narrow them save at most the gap to it; widening edits may go below it. Advice
assumes the pods' images run on the architectures it allows (allow-arm64, a family or category marked
arm64) and that they tolerate spot interruptions (allow-spot); a narrowed NodePool drifts existing
nodes it no longer admits. Without -f it advises on the built-in example, as plan does.`,
		Example: `  # NodePool changes that would make Karpenter cheaper on some manifests' pending pods
  karpsim advise -f testdata/advise/on-demand-fleet/input.yaml

  # The best 3, as JSON for tools
  karpsim advise -f testdata/advise/two-pools-weight/input.yaml --top 3 -o json

  # Apply the best advice to the file, in its git work tree
  karpsim advise -f testdata/advise/on-demand-fleet/input.yaml --patch | git apply`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := opts.check(); err != nil {
				return err
			}
			return runAdvise(env, opts, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	addFilenameFlag(cmd, &opts.plan.files, "(default: the built-in inflate example)")
	addOutputFlag(cmd, &opts.plan.output, "table", "wide", "json", "yaml")
	f := cmd.Flags()
	f.IntVar(&opts.top, "top", 5, "print at most `N` pieces of advice, cheapest first")
	f.IntVar(&opts.maxCandidates, "max-candidates", 64, "simulate at most `N` single edits of each family, narrowing and widening (each is one of Karpenter's solves), before combining the best")
	f.BoolVar(&opts.patch, "patch", false, "print only the unified diff of the advice --rank against the files its NodePools were read from, for git apply")
	f.IntVar(&opts.rank, "rank", 1, "the advice `N` (1 the cheapest) that --patch and -o yaml print")
	f.BoolVar(&opts.plan.ignorePreferences, "ignore-preferences", false, "drop preferred affinities and ScheduleAnyway spread constraints up front (Karpenter's PreferencePolicy=Ignore)")
	f.StringVar(&opts.plan.minValuesPolicy, "min-values-policy", "Strict", "Strict refuses a NodeClaim with fewer distinct values than a requirement's minValues; BestEffort launches it anyway (Karpenter's MinValuesPolicy)")
	f.StringVar(&opts.plan.region, "region", "", regionUsage)
	f.StringVar(&opts.plan.zones, "zones", "", "comma-separated zones of the offerings (default: the region's a, b and c)")
	addClusterFlags(cmd, &opts.plan.cluster)
	completeValues(cmd, "min-values-policy", "Strict", "BestEffort")
	noCompletion(cmd, "top", "max-candidates", "rank", "region", "zones")
	return cmd
}

func (opts adviseOptions) check() error {
	if err := opts.plan.check(); err != nil {
		return err
	}
	if opts.top < 1 {
		return fmt.Errorf("%w: --top %d: want at least 1", errUsage, opts.top)
	}
	if opts.maxCandidates < 1 {
		return fmt.Errorf("%w: --max-candidates %d: want at least 1", errUsage, opts.maxCandidates)
	}
	if opts.rank < 1 || opts.rank > opts.top {
		return fmt.Errorf("%w: --rank %d: want 1 to --top (%d)", errUsage, opts.rank, opts.top)
	}
	if opts.patch && (opts.plan.output == "json" || opts.plan.output == "yaml") {
		return fmt.Errorf("%w: --patch prints a diff: it takes no -o %s", errUsage, opts.plan.output)
	}
	return nil
}

func runAdvise(env environment, opts adviseOptions, stdin io.Reader, stdout, stderr io.Writer) error {
	set, snap, err := setAndSnapshot(env, opts.plan, "advise", stdin, stderr, func() (*manifests.Set, error) {
		fmt.Fprintln(stderr, "karpsim advise: no -f given: advising on the built-in example, the inflate Deployment (10 replicas of 1 CPU and 1Gi) on the default NodePool")
		return exampleSetFor(opts.plan.cluster.cloud)
	})
	if err != nil {
		return err
	}
	report, err := advise.Advise(snap.Input(planSchedulingOptions(opts.plan)), advise.Options{Top: opts.top, MaxCandidates: opts.maxCandidates})
	if err != nil {
		return fmt.Errorf("advise: %w", err)
	}
	if opts.patch || opts.plan.output == "yaml" {
		if len(report.Advice) < opts.rank {
			return fmt.Errorf("advise: no advice of rank %d: %d found", opts.rank, len(report.Advice))
		}
		pools, err := editedPools(set, report.Advice[opts.rank-1])
		if err != nil {
			return err
		}
		if opts.patch {
			diff, err := filePatch(pools)
			if err != nil {
				return fmt.Errorf("advise --patch: %w", err)
			}
			_, err = io.WriteString(stdout, diff)
			return err
		}
		for i, p := range pools {
			text, err := nodePoolYAML(p.after)
			if err != nil {
				return err
			}
			if i > 0 {
				fmt.Fprintln(stdout, "---")
			}
			if _, err := io.WriteString(stdout, text); err != nil {
				return err
			}
		}
		return nil
	}
	out, err := newAdviseOutput(set, report, stderr)
	if err != nil {
		return err
	}
	if opts.plan.output == "json" {
		return writeJSON(stdout, out)
	}
	return writeTable(stdout, opts.plan.output, func(w io.Writer) error { return writeAdviseTable(w, out) })
}

// adviseOutput is advise.Report as printed: dollars rounded to 1/10,000
// (the bound down, so that it stays a bound), percentages to 1/10, and
// each piece of advice with the NodePool diff to apply.
type adviseOutput struct {
	KarpenterPerHour  float64       `json:"karpenterPerHour"`
	ScheduledPods     int           `json:"scheduledPods"`
	LowerBoundPerHour float64       `json:"lowerBoundPerHour"`
	Candidates        int           `json:"candidates"`
	Rejected          int           `json:"rejected"`
	Advice            []adviceEntry `json:"advice"`
}

type adviceEntry struct {
	Rank          int           `json:"rank"`
	Edits         []advise.Edit `json:"edits"`
	PerHour       float64       `json:"perHour"`
	SavingPerHour float64       `json:"savingPerHour"`
	SavingPercent float64       `json:"savingPercent"`
	NodeClaims    int           `json:"nodeClaims"`
	// NodePools are the NodePools the advice changes, before and after,
	// with the merge patch between them.
	NodePools []adviceNodePool `json:"nodePools"`
	// Diff is the unified diff to apply: against the files the NodePools
	// were read from (filePatch), or, for NodePools read from elsewhere
	// or files karpsim cannot edit in place, of their manifests as karpsim
	// writes them, named nodepool/NAME.yaml.
	Diff string `json:"diff"`
}

func newAdviseOutput(set *manifests.Set, r advise.Report, stderr io.Writer) (adviseOutput, error) {
	out := adviseOutput{KarpenterPerHour: round(r.KarpenterPerHour, 1e4), ScheduledPods: r.ScheduledPods,
		LowerBoundPerHour: math.Floor(r.LowerBoundPerHour*1e4) / 1e4, Candidates: r.Candidates, Rejected: r.Rejected,
		Advice: []adviceEntry{}}
	warned := false
	for i, a := range r.Advice {
		pools, err := editedPools(set, a)
		if err != nil {
			return adviseOutput{}, err
		}
		entry := adviceEntry{Rank: i + 1, Edits: a.Edits, PerHour: round(a.PerHour, 1e4),
			SavingPerHour: round(a.SavingPerHour, 1e4), SavingPercent: round(a.SavingPercent, 10), NodeClaims: a.NodeClaims,
			NodePools: []adviceNodePool{}}
		for _, p := range pools {
			before, err := manifestTree(p.before)
			if err != nil {
				return adviseOutput{}, err
			}
			after, err := manifestTree(p.after)
			if err != nil {
				return adviseOutput{}, err
			}
			np := adviceNodePool{Name: p.name, Before: before, After: after, MergePatch: mergePatch(before, after)}
			if p.hasSource {
				np.File = p.src.File
			}
			entry.NodePools = append(entry.NodePools, np)
		}
		diff, err := filePatch(pools)
		if err != nil {
			if !warned && !errors.Is(err, errNotFromFile) {
				fmt.Fprintf(stderr, "karpsim advise: warning: %v: the diffs are of the NodePools as karpsim writes them\n", err)
				warned = true
			}
			diff, err = manifestDiff(pools)
			if err != nil {
				return adviseOutput{}, err
			}
		}
		entry.Diff = diff
		out.Advice = append(out.Advice, entry)
	}
	return out, nil
}

// manifestDiff is the unified diff of the NodePools' manifests as
// nodePoolYAML writes them, each named nodepool/NAME.yaml.
func manifestDiff(pools []editedPool) (string, error) {
	var diff strings.Builder
	for _, p := range pools {
		before, err := nodePoolYAML(p.before)
		if err != nil {
			return "", err
		}
		after, err := nodePoolYAML(p.after)
		if err != nil {
			return "", err
		}
		name := "nodepool/" + p.name + ".yaml"
		diff.WriteString(unifiedDiff("a/"+name, "b/"+name, before, after))
	}
	return diff.String(), nil
}

func round(v, scale float64) float64 { return math.Round(v*scale) / scale }

// nodePoolYAML renders a NodePool as a manifest to apply: its spec and
// metadata, without status or the fields the API server sets.
func nodePoolYAML(np *apis.NodePool) (string, error) {
	data, err := json.Marshal(np)
	if err != nil {
		return "", fmt.Errorf("NodePool %s: %w", np.Name, err)
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		return "", fmt.Errorf("NodePool %s: %w", np.Name, err)
	}
	delete(obj, "status")
	obj["apiVersion"], obj["kind"] = apis.Group+"/v1", apis.KindNodePool
	if meta, ok := obj["metadata"].(map[string]any); ok {
		for _, k := range []string{"creationTimestamp", "resourceVersion", "uid", "generation", "managedFields"} {
			delete(meta, k)
		}
	}
	out, err := yaml.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("NodePool %s: %w", np.Name, err)
	}
	return string(out), nil
}

// writeAdviseTable prints the plan's cost and bound, a table of the
// advice, and each piece's NodePool diff.
func writeAdviseTable(w io.Writer, out adviseOutput) error {
	fmt.Fprintf(w, "Karpenter's plan: $%.4f/hour, %s scheduled; lower bound $%.4f/hour\n",
		out.KarpenterPerHour, plural(out.ScheduledPods, "pod"), out.LowerBoundPerHour)
	fmt.Fprintf(w, "%s simulated, %d rejected because a pod would stay pending\n\n", plural(out.Candidates, "NodePool edit"), out.Rejected)
	if len(out.Advice) == 0 {
		_, err := fmt.Fprintln(w, "no edit tried makes Karpenter's plan cheaper")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\t$/HOUR\tSAVING $/HOUR\tSAVING\tNODES\tEDITS")
	for _, a := range out.Advice {
		for i, e := range a.Edits {
			if i == 0 {
				fmt.Fprintf(tw, "%d\t%.4f\t%.4f\t%.1f%%\t%d\t%s\n", a.Rank, a.PerHour, a.SavingPerHour, a.SavingPercent, a.NodeClaims, e)
			} else {
				fmt.Fprintf(tw, "\t\t\t\t\t%s\n", e)
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, a := range out.Advice {
		fmt.Fprintf(w, "\n# %d: $%.4f/hour (-%.1f%%)\n%s", a.Rank, a.PerHour, a.SavingPercent, a.Diff)
	}
	return nil
}
