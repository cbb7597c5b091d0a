package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/manifests/patch"
	"github.com/karpsim/karpsim/simulator"
)

// Source is one scenario as its files hold it, read by the caller.
type Source struct {
	// Path names the scenario in results and errors.
	Path string
	// Scenario is the scenario file's content.
	Scenario []byte
	// Manifests are the files the scenario's manifests list (see
	// manifests.Files), read, each named by its path. The scenario's
	// inline manifests are read from Scenario.
	Manifests []manifests.Stream
}

// Prepare applies a variant to a scenario with the given seed (0 keeps the
// scenario's own) and returns the scenario to run and its manifests, to be
// passed as simulator.Config.Manifests. Documents a variant does not touch
// are passed on as they were read; patched ones are written again as YAML.
// Neither the Source nor the Variant is changed.
func Prepare(src Source, v Variant, seed uint64) (simulator.Scenario, []manifests.Stream, error) {
	fail := func(err error) (simulator.Scenario, []manifests.Stream, error) {
		return simulator.Scenario{}, nil, fmt.Errorf("%s: variant %s: %w", src.Path, v.Name, err)
	}
	doc, err := patch.ToJSON(src.Scenario)
	if err != nil {
		return fail(err)
	}
	scenario, ok := doc.(map[string]any)
	if !ok {
		return fail(errors.New("the scenario is not a YAML mapping"))
	}
	if v.Scenario != nil {
		scenario, ok = patch.Merge(scenario, patch.DeepCopy(v.Scenario)).(map[string]any)
		if !ok {
			return fail(errors.New("scenario: the patch does not leave a mapping"))
		}
	}
	if seed != 0 {
		scenario["seed"] = seed
	}
	scale := v.WorkloadScale
	if scale == 0 {
		scale = 1
	}
	if err := scaleSteps(scenario, scale); err != nil {
		return fail(err)
	}
	if v.InterruptionsPerHour > 0 {
		steps, _ := scenario["steps"].([]any)
		scenario["steps"] = append(steps, map[string]any{"at": "0s", "interrupt": map[string]any{"perHour": v.InterruptionsPerHour}})
	}
	inline, _ := scenario["inline"].(string)
	delete(scenario, "inline")
	delete(scenario, "manifests")
	data, err := json.Marshal(scenario)
	if err != nil {
		return fail(err)
	}
	sc, err := simulator.ParseScenario(data)
	if err != nil {
		return fail(err)
	}
	streams := slices.Clone(src.Manifests)
	if inline != "" {
		streams = append(streams, manifests.Stream{Name: "inline", Data: []byte(inline)})
	}
	patched := map[string]bool{}
	for i, s := range streams {
		out, err := patchStream(s.Data, v, scale, patched)
		if err != nil {
			return fail(fmt.Errorf("%s: %w", s.Name, err))
		}
		streams[i].Data = out
	}
	for _, name := range v.nodePoolNames() {
		if name != "*" && !patched["NodePool/"+name] {
			return fail(fmt.Errorf("nodePools: the scenario has no NodePool %q", name))
		}
	}
	return sc, streams, nil
}

// scaleSteps multiplies the replicas of scale and traffic steps and the
// rates of arrivals steps.
func scaleSteps(scenario map[string]any, scale float64) error {
	if scale == 1 {
		return nil
	}
	steps, _ := scenario["steps"].([]any)
	for i, s := range steps {
		step, _ := s.(map[string]any)
		if m, ok := step["scale"].(map[string]any); ok {
			m["replicas"] = patch.Scaled(m["replicas"], scale)
		}
		if m, ok := step["traffic"].(map[string]any); ok {
			for _, key := range []string{"min", "max"} {
				if _, set := m[key]; set {
					m[key] = patch.Scaled(m[key], scale)
				}
			}
			if list, ok := m["replicas"].([]any); ok {
				for j := range list {
					list[j] = patch.Scaled(list[j], scale)
				}
			}
		}
		if m, ok := step["arrivals"].(map[string]any); ok {
			rate, ok := m["perHour"].(float64)
			if !ok {
				return fmt.Errorf("steps[%d].arrivals.perHour: not a number", i)
			}
			m["perHour"] = rate * scale
		}
	}
	return nil
}

// patchStream applies the variant's NodePool patches and workload scale to
// the documents of one stream (Lists' items included), by package patch's
// rules, noting which NodePools it patched ("NodePool/name"). Untouched
// documents keep their bytes.
func patchStream(data []byte, v Variant, scale float64, patched map[string]bool) ([]byte, error) {
	rules := patch.Rules{Scale: scale}
	if len(v.NodePools) > 0 {
		rules.Patches = map[string]map[string]map[string]any{"NodePool": v.NodePools}
	}
	return patch.Stream(data, rules, patched)
}
