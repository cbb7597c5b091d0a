package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/manifests"
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
	doc, err := toJSONValue(src.Scenario)
	if err != nil {
		return fail(err)
	}
	scenario, ok := doc.(map[string]any)
	if !ok {
		return fail(errors.New("the scenario is not a YAML mapping"))
	}
	if v.Scenario != nil {
		scenario, ok = mergePatch(scenario, deepCopy(v.Scenario)).(map[string]any)
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
		if name != "*" && !patched[name] {
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
			m["replicas"] = scaled(m["replicas"], scale)
		}
		if m, ok := step["traffic"].(map[string]any); ok {
			for _, key := range []string{"min", "max"} {
				if _, set := m[key]; set {
					m[key] = scaled(m[key], scale)
				}
			}
			if list, ok := m["replicas"].([]any); ok {
				for j := range list {
					list[j] = scaled(list[j], scale)
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

// scaled multiplies a replica count, rounding to the nearest whole number;
// what is not a number is left for the scenario's own checks to refuse.
func scaled(v any, scale float64) any {
	n, ok := v.(float64)
	if !ok {
		return v
	}
	return math.Round(n * scale)
}

// patchStream applies the variant's NodePool patches and workload scale to
// the documents of one stream (Lists' items included), noting which
// NodePools it patched. Untouched documents keep their bytes.
func patchStream(data []byte, v Variant, scale float64, patched map[string]bool) ([]byte, error) {
	if len(v.NodePools) == 0 && scale == 1 {
		return data, nil
	}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var out [][]byte
	changed := false
	for n := 1; ; n++ {
		raw, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		doc, err := toJSONValue(raw)
		if err != nil || doc == nil {
			// Not for the sweep to refuse: the simulator reads it as it is.
			out = append(out, raw)
			continue
		}
		next, touched, err := patchObject(doc, v, scale, patched)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		if !touched {
			out = append(out, raw)
			continue
		}
		y, err := yaml.Marshal(next)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		out = append(out, y)
		changed = true
	}
	if !changed {
		return data, nil
	}
	var b bytes.Buffer
	for i, doc := range out {
		if i > 0 {
			b.WriteString("---\n")
		}
		b.Write(doc)
		if len(doc) > 0 && doc[len(doc)-1] != '\n' {
			b.WriteByte('\n')
		}
	}
	return b.Bytes(), nil
}

// patchObject patches one object, or the items of a List.
func patchObject(doc any, v Variant, scale float64, patched map[string]bool) (any, bool, error) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return doc, false, nil
	}
	kind, _ := obj["kind"].(string)
	switch kind {
	case "List", "NodePoolList", "DeploymentList":
		items, _ := obj["items"].([]any)
		touched := false
		for i, item := range items {
			next, t, err := patchObject(item, v, scale, patched)
			if err != nil {
				return nil, false, fmt.Errorf("items[%d]: %w", i, err)
			}
			items[i], touched = next, touched || t
		}
		return obj, touched, nil
	case "NodePool":
		meta, _ := obj["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		touched := false
		for _, key := range v.nodePoolNames() {
			if key != "*" && key != name {
				continue
			}
			next, ok := mergePatch(obj, deepCopy(v.NodePools[key])).(map[string]any)
			if !ok {
				return nil, false, fmt.Errorf("NodePool %s: the patch does not leave an object", name)
			}
			obj, touched = next, true
			patched[name] = true
		}
		return obj, touched, nil
	case "Deployment":
		if scale == 1 {
			return obj, false, nil
		}
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			obj["spec"] = spec
		}
		replicas, set := spec["replicas"]
		if !set {
			replicas = 1.0 // the API server's default
		}
		spec["replicas"] = scaled(replicas, scale)
		return obj, true, nil
	}
	return obj, false, nil
}

// toJSONValue decodes YAML (or JSON) into the values encoding/json gives:
// maps, lists, strings, float64s, bools and nil.
func toJSONValue(data []byte) (any, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(j, &v); err != nil {
		return nil, err
	}
	return v, nil
}

// mergePatch applies a JSON merge patch (RFC 7386) to target: a mapping
// patches a mapping key by key, null deletes a key, anything else replaces.
// It may reuse target's and patch's values.
func mergePatch(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, pv := range p {
		if pv == nil {
			delete(t, k)
			continue
		}
		t[k] = mergePatch(t[k], pv)
	}
	return t
}

// deepCopy copies a JSON value, so that patching never shares a variant's
// maps between runs.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
