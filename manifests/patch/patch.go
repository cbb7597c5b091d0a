// Package patch changes the objects of a stream of manifests by rules, as
// a sweep's variants and plantest's variants do: JSON merge patches (RFC
// 7386) on NodePools and EC2NodeClasses by name, objects dropped by kind
// and name (to be replaced by others), Deployments' replicas scaled.
// Documents the rules do not touch keep their bytes; changed ones are
// written again as YAML. It works on bytes and does no I/O.
package patch

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
)

// Rules say how to change a stream's objects.
type Rules struct {
	// Patches are JSON merge patches by kind (NodePool, EC2NodeClass…)
	// and object name; the name "*" patches every object of the kind,
	// before the named ones.
	Patches map[string]map[string]map[string]any
	// Drop names objects to leave out, "Kind/name".
	Drop map[string]bool
	// Scale multiplies every Deployment's replicas (1 when unset, the API
	// server's default), rounded to the nearest whole number; 0 and 1
	// leave them.
	Scale float64
}

func (r Rules) empty() bool {
	return len(r.Patches) == 0 && len(r.Drop) == 0 && (r.Scale == 0 || r.Scale == 1)
}

// names are the patches of a kind in the order they apply: "*" first,
// then by name.
func (r Rules) names(kind string) []string {
	var names []string
	for name := range r.Patches[kind] {
		if name != "*" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	if _, ok := r.Patches[kind]["*"]; ok {
		names = append([]string{"*"}, names...)
	}
	return names
}

// Stream applies the rules to the documents of one stream (Lists' items
// included), noting in touched each object ("Kind/name") it patched or
// dropped. Untouched documents keep their bytes; a document that is not
// YAML is passed on for the reader to refuse.
func Stream(data []byte, r Rules, touched map[string]bool) ([]byte, error) {
	if r.empty() {
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
		doc, err := ToJSON(raw)
		if err != nil || doc == nil {
			out = append(out, raw)
			continue
		}
		next, keep, changedDoc, err := object(doc, r, touched)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", n, err)
		}
		switch {
		case !keep:
			changed = true
		case !changedDoc:
			out = append(out, raw)
		default:
			y, err := yaml.Marshal(next)
			if err != nil {
				return nil, fmt.Errorf("document %d: %w", n, err)
			}
			out = append(out, y)
			changed = true
		}
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

// object applies the rules to one object, or the items of a List: the
// object, whether to keep it, and whether it changed.
func object(doc any, r Rules, touched map[string]bool) (any, bool, bool, error) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return doc, true, false, nil
	}
	kind, _ := obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	if items, isList := obj["items"].([]any); isList && (kind == "List" || len(kind) > 4 && kind[len(kind)-4:] == "List") {
		changed := false
		kept := items[:0:0]
		for i, item := range items {
			next, keep, c, err := object(item, r, touched)
			if err != nil {
				return nil, false, false, fmt.Errorf("items[%d]: %w", i, err)
			}
			if keep {
				kept = append(kept, next)
			}
			changed = changed || c || !keep
		}
		obj["items"] = kept
		return obj, true, changed, nil
	}
	if r.Drop[kind+"/"+name] {
		touched[kind+"/"+name] = true
		return nil, false, true, nil
	}
	changed := false
	for _, key := range r.names(kind) {
		if key != "*" && key != name {
			continue
		}
		next, ok := Merge(obj, DeepCopy(r.Patches[kind][key])).(map[string]any)
		if !ok {
			return nil, false, false, fmt.Errorf("%s %s: the patch does not leave an object", kind, name)
		}
		obj, changed = next, true
		touched[kind+"/"+name] = true
	}
	if kind == "Deployment" && r.Scale != 0 && r.Scale != 1 {
		spec, _ := obj["spec"].(map[string]any)
		if spec == nil {
			spec = map[string]any{}
			obj["spec"] = spec
		}
		replicas, set := spec["replicas"]
		if !set {
			replicas = 1.0 // the API server's default
		}
		spec["replicas"] = Scaled(replicas, r.Scale)
		changed = true
	}
	return obj, true, changed, nil
}

// Scaled multiplies a replica count, rounding to the nearest whole number;
// what is not a number is left for the reader's own checks to refuse.
func Scaled(v any, scale float64) any {
	n, ok := v.(float64)
	if !ok {
		return v
	}
	return math.Round(n * scale)
}

// ToJSON decodes YAML (or JSON) into the values encoding/json gives: maps,
// lists, strings, float64s, bools and nil.
func ToJSON(data []byte) (any, error) {
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

// Merge applies a JSON merge patch (RFC 7386) to target: a mapping patches
// a mapping key by key, null deletes a key, anything else replaces. It may
// reuse target's and patch's values.
func Merge(target, patch any) any {
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
		t[k] = Merge(t[k], pv)
	}
	return t
}

// DeepCopy copies a JSON value, so that patching never shares a rule's
// maps between runs.
func DeepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = DeepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopy(e)
		}
		return out
	}
	return v
}
