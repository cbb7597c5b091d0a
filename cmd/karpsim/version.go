package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// The upstream releases whose behaviour karpsim's model follows. The newest
// upstream behaviour it reproduces is Karpenter v1.14's: the Balanced
// consolidation policy and candidates ordered by savings per unit of
// disruption cost (apis.ConsolidationPolicyBalanced, package
// consolidation). The AWS provider is released in step with Karpenter,
// under the same version.
const (
	karpenterRelease   = "v1.14"
	awsProviderRelease = "v1.14"
)

// versionInfo is what `karpsim version -o json` prints.
type versionInfo struct {
	// Version is the module version the binary was built from, "(devel)"
	// for a build of a checkout that Go could not stamp.
	Version string `json:"version"`
	// Revision, RevisionTime and Modified are the VCS state of that build,
	// when Go recorded it; Modified means uncommitted changes.
	Revision     string `json:"revision,omitempty"`
	RevisionTime string `json:"revisionTime,omitempty"`
	Modified     bool   `json:"modified,omitempty"`
	GoVersion    string `json:"goVersion"`
	Platform     string `json:"platform"`
	// APIVersions are the Karpenter API versions karpsim reads and writes;
	// v1beta1 objects are converted to them.
	APIVersions []string `json:"apiVersions"`
	// Karpenter and AWSProvider are the upstream releases the model
	// follows.
	Karpenter   string `json:"karpenter"`
	AWSProvider string `json:"awsProvider"`
	// Catalog describes the embedded EC2 instance-type facts.
	Catalog catalogInfo `json:"catalog"`
}

type catalogInfo struct {
	InstanceTypes int `json:"instanceTypes"`
	// SourceDate is the day the facts and their prices were taken.
	SourceDate string `json:"sourceDate"`
}

func newVersionCommand() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version [flags]",
		Short: "print karpsim's version, the Karpenter release it follows, and its catalog's size and date",
		Long: `Version prints the module version and VCS revision karpsim was built from ("(devel)" when Go could
not stamp a version), the Go version, the Karpenter API versions karpsim reads, the upstream Karpenter
and AWS provider release its model follows, and the size and source date of the embedded instance-type
catalog. 'karpsim --version' prints the same table.`,
		Example: `  # For a bug report
  karpsim version

  # For tools
  karpsim version -o json`,
		Args:              noArgs,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A table of two columns has nothing to widen.
			if output != "table" && output != "json" && output != "yaml" {
				return fmt.Errorf("%w: -o %q: want table, json or yaml", errUsage, output)
			}
			return writeVersion(cmd.OutOrStdout(), readVersion(), output)
		},
	}
	addOutputFlag(cmd, &output, "table", "json", "yaml")
	return cmd
}

// readVersion gathers the version of this binary.
func readVersion() versionInfo {
	build, _ := debug.ReadBuildInfo()
	return versionOf(build, len(instancetypes.EmbeddedFacts()))
}

// versionOf is the version of a binary with this build information (nil
// when the binary has none) and catalog size.
func versionOf(build *debug.BuildInfo, instanceTypes int) versionInfo {
	v := versionInfo{
		Version:     "(devel)",
		GoVersion:   runtime.Version(),
		Platform:    runtime.GOOS + "/" + runtime.GOARCH,
		APIVersions: []string{apis.GroupV1, apis.AWSGroupV1, apis.AzureGroupV1Beta1},
		Karpenter:   karpenterRelease,
		AWSProvider: awsProviderRelease,
		Catalog:     catalogInfo{InstanceTypes: instanceTypes, SourceDate: instancetypes.EmbeddedFactsDate},
	}
	if build == nil {
		return v
	}
	if build.Main.Version != "" {
		v.Version = build.Main.Version
	}
	if build.GoVersion != "" {
		v.GoVersion = build.GoVersion
	}
	for _, s := range build.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.RevisionTime = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// writeVersion prints v in the chosen format.
func writeVersion(w io.Writer, v versionInfo, output string) error {
	switch output {
	case "json":
		return writeJSON(w, v)
	case "yaml":
		return writeYAML(w, v)
	}
	revision := "unknown"
	if v.Revision != "" {
		revision = v.Revision
		if v.RevisionTime != "" {
			revision += " (" + v.RevisionTime + ")"
		}
		if v.Modified {
			revision += ", with uncommitted changes"
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "karpsim\t%s\n", v.Version)
	fmt.Fprintf(tw, "revision\t%s\n", revision)
	fmt.Fprintf(tw, "go\t%s %s\n", v.GoVersion, v.Platform)
	fmt.Fprintf(tw, "APIs\t%s\n", strings.Join(v.APIVersions, ", "))
	fmt.Fprintf(tw, "follows\tKarpenter %s and its AWS provider %s\n", v.Karpenter, v.AWSProvider)
	fmt.Fprintf(tw, "catalog\t%d EC2 instance types, facts and on-demand prices of %s\n", v.Catalog.InstanceTypes, v.Catalog.SourceDate)
	return tw.Flush()
}
