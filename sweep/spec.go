// Package sweep runs many what-ifs at once: every scenario of a sweep file
// under every variant (a patch to the scenario and its manifests) and every
// seed, on a pool of workers, and gathers one summary per run and one row per
// scenario × variant, the same whatever the number of workers or the order
// runs finish in. A sweep can be split into shards (run index ≡ I mod N),
// run apart (on a Kubernetes Indexed Job, say) and merged back into the
// result the whole sweep gives.
//
// Parse a sweep file, read its scenarios, manifests and catalogs into
// Sources (sweep reads no file itself; cmd/karpsim reads the disk), and call
// Execute; Options.Shard runs one shard, and Merge (or MergeParts, from
// parts read back with ReadPart) joins them. The file format is in
// docs/simulation.md.
package sweep

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/internal/fields"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/simulator"
)

// Spec is a sweep file:
//
//	name: nodepool-designs
//	scenarios: [scenarios/daily-traffic.yaml, more-scenarios/]  # files, or folders of .yaml scenarios, inside the sweep's folder
//	seeds: [1, 2, 3]                                             # default: each scenario's own seed
//	variants:
//	- name: baseline                       # no change
//	- name: spot-only
//	  nodePools:                           # a JSON merge patch per NodePool name; "*" is every NodePool
//	    "*": {spec: {template: {spec: {requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [spot]}]}}}}
//	- name: storm
//	  interruptionsPerHour: 2              # spot interruption notices at random through the run
//	- name: double
//	  workloadScale: 2                     # replicas, traffic and arrival rates × 2
//	- name: small-catalog
//	  catalog: catalog.json                # instance types from a JSON catalog for every EC2NodeClass
//	- name: cluster-autoscaler
//	  autoscaler: cluster-autoscaler       # the scenario's clusterAutoscaler node groups instead of Karpenter
//	- name: shorter
//	  scenario: {duration: 12h}            # a JSON merge patch on the scenario itself
type Spec struct {
	Name string `json:"name,omitempty"`
	// Scenarios are scenario files or folders of them, relative to the
	// sweep file and inside its folder (the caller checks: this package
	// reads no file).
	Scenarios []string `json:"scenarios"`
	// Seeds each run every scenario × variant once; none means each
	// scenario's own seed.
	Seeds []uint64 `json:"seeds,omitempty"`
	// Variants default to one, "baseline", which changes nothing.
	Variants []Variant `json:"variants,omitempty"`
}

// Variant is one patch applied to every scenario. Its parts apply in the
// order of the fields: the scenario patch, then interruptions and workload
// scale, then NodePools and the catalog.
type Variant struct {
	Name string `json:"name"`
	// Scenario is a JSON merge patch (RFC 7386) on the scenario document:
	// any field (duration, cloud, steps…); a list given replaces the list.
	Scenario map[string]any `json:"scenario,omitempty"`
	// NodePools are JSON merge patches on the NodePools of the scenario's
	// manifests, by NodePool name; "*" patches every NodePool, before the
	// named ones. A name no NodePool has is an error.
	NodePools map[string]map[string]any `json:"nodePools,omitempty"`
	// InterruptionsPerHour adds random spot interruption notices from the
	// start to the end of the run, one node each.
	InterruptionsPerHour float64 `json:"interruptionsPerHour,omitempty"`
	// WorkloadScale multiplies every Deployment's replicas, the replicas
	// of scale and traffic steps and the rates of arrivals steps; replicas
	// are rounded to the nearest whole number. Zero means 1.
	WorkloadScale float64 `json:"workloadScale,omitempty"`
	// Autoscaler runs the variant under another autoscaler: karpenter (the
	// default) or cluster-autoscaler, with the scenario's clusterAutoscaler
	// section.
	Autoscaler string `json:"autoscaler,omitempty"`
	// Catalog is a JSON catalog file (the instance-types --catalog format)
	// whose instance types every EC2NodeClass gets, relative to the sweep
	// file and inside its folder.
	Catalog string `json:"catalog,omitempty"`
}

// Limits keep a sweep file from asking for more than a machine can run.
const (
	// MaxRuns bounds scenarios × variants × seeds.
	MaxRuns = 100_000
	// MaxWorkloadScale bounds a variant's workload scale.
	MaxWorkloadScale = 100
	// MaxInterruptionsPerHour is the simulator's own bound on notices.
	MaxInterruptionsPerHour = 3600
)

// ErrInvalid is wrapped by every error about a sweep file's content.
var ErrInvalid = errors.New("invalid sweep")

// Parse reads a sweep file's content; unknown fields are refused, each with
// the field it most likely misspells. name names the file in errors, which
// start with it and the line at fault: "sweep.yaml:7: invalid sweep:
// variants[1].workloadScale: ...".
func Parse(name string, data []byte) (Spec, error) {
	file := &fields.File{Name: name, Data: data}
	var spec Spec
	if err := yaml.UnmarshalStrict(data, &spec); err != nil {
		// A document that does not convert to JSON keeps the decoder's
		// message: the YAML does not parse, or aliases too much.
		problems := fields.Check(file.Document(), reflect.TypeFor[Spec]())
		if strings.HasPrefix(err.Error(), "error converting YAML to JSON") {
			problems = nil
		}
		if len(problems) > 0 {
			errs := make([]error, len(problems))
			for i, p := range problems {
				msg := p.Message
				if p.Path != "" {
					msg = p.Path + ": " + msg
				}
				errs[i] = fmt.Errorf("%s%w: %s", file.At(p.Line), ErrInvalid, msg)
			}
			return Spec{}, errors.Join(errs...)
		}
		return Spec{}, fmt.Errorf("%s: %w: %w", name, ErrInvalid, err)
	}
	if err := spec.validate(file.Prefix); err != nil {
		return Spec{}, err
	}
	return spec, nil
}

// validate checks what can be checked without the scenarios. prefix starts
// an error about the field at a path (with the file and line).
func (s Spec) validate(prefix func(path string) string) error {
	var errs []error
	bad := func(path, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s%w: "+format, append([]any{prefix(path), ErrInvalid}, args...)...))
	}
	if len(s.Scenarios) == 0 {
		bad("scenarios", "scenarios: at least one scenario file or folder is needed")
	}
	for i, sc := range s.Scenarios {
		if sc == "" {
			bad(fmt.Sprintf("scenarios[%d]", i), "scenarios[%d]: empty path", i)
		}
	}
	seen := map[uint64]bool{}
	for i, seed := range s.Seeds {
		if seen[seed] {
			bad(fmt.Sprintf("seeds[%d]", i), "seeds[%d]: seed %d is listed twice", i, seed)
		}
		seen[seed] = true
	}
	names := map[string]bool{}
	for i, v := range s.Variants {
		where := fmt.Sprintf("variants[%d]", i)
		switch {
		case v.Name == "":
			bad(where, "%s.name: required", where)
		case names[v.Name]:
			bad(where+".name", "%s.name: %q is used twice", where, v.Name)
		}
		names[v.Name] = true
		if v.WorkloadScale < 0 || v.WorkloadScale > MaxWorkloadScale || v.WorkloadScale != v.WorkloadScale {
			bad(where+".workloadScale", "%s.workloadScale: %v is outside 0..%d", where, v.WorkloadScale, MaxWorkloadScale)
		}
		if v.InterruptionsPerHour < 0 || v.InterruptionsPerHour > MaxInterruptionsPerHour || v.InterruptionsPerHour != v.InterruptionsPerHour {
			bad(where+".interruptionsPerHour", "%s.interruptionsPerHour: %v is outside 0..%d", where, v.InterruptionsPerHour, MaxInterruptionsPerHour)
		}
		if _, err := simulator.ParseAutoscaler(v.Autoscaler); err != nil {
			bad(where+".autoscaler", "%s.autoscaler: %v", where, err)
		}
		for name, patch := range v.NodePools {
			if name == "" || patch == nil {
				bad(where+".nodePools", "%s.nodePools: a patch needs a NodePool name (or \"*\") and a body", where)
			}
		}
	}
	// Checked before the scenarios are read: each scenario only
	// multiplies the runs.
	if runs := max(len(s.Seeds), 1) * len(s.variants()); runs > MaxRuns {
		bad("", "%d variants × %d seeds = %d runs for each scenario, more than %d in all", len(s.variants()), max(len(s.Seeds), 1), runs, MaxRuns)
	}
	return manifests.JoinProblems(errs...)
}

// variants are the spec's variants, or the one baseline.
func (s Spec) variants() []Variant {
	if len(s.Variants) == 0 {
		return []Variant{{Name: "baseline"}}
	}
	return s.Variants
}

// nodePoolNames are the variant's NodePool patches in the order they apply:
// "*" first, then by name.
func (v Variant) nodePoolNames() []string {
	var names []string
	for name := range v.NodePools {
		if name != "*" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if _, ok := v.NodePools["*"]; ok {
		names = append([]string{"*"}, names...)
	}
	return names
}
