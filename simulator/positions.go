package simulator

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/karpsim/karpsim/internal/fields"
)

// placer places a scenario's problems in its file: each error starts with
// the file's name and the line of the field at fault ("my.yaml:14: "), and
// names a step by its index and what it does ("steps[3] (scale
// inflate)"). The zero placer, for a Scenario built in Go, names steps by
// index alone.
type placer struct{ fields.File }

func newPlacer(name string, data []byte) *placer {
	return &placer{fields.File{Name: name, Data: data}}
}

// stepError is an error about step i, at the line the step starts.
func (p *placer) stepError(i int, err error) error {
	where := stepIndex(i)
	return fmt.Errorf("%s%w: %s: %w", p.Prefix(where), ErrInvalidScenario, p.step(i), err)
}

// fieldError is a problem at a line with a field of the scenario: a step's
// field is named after the step ("steps[3] (scale inflate): scale.replicas").
func (p *placer) fieldError(line int, path, message string) error {
	var parts []string
	if rest, ok := strings.CutPrefix(path, "steps["); ok {
		if end := strings.IndexByte(rest, ']'); end > 0 {
			if i, err := strconv.Atoi(rest[:end]); err == nil {
				parts = append(parts, p.step(i))
				path = strings.TrimPrefix(rest[end+1:], ".")
			}
		}
	}
	if path != "" {
		parts = append(parts, path)
	}
	parts = append(parts, message)
	return fmt.Errorf("%s%w: %s", p.At(line), ErrInvalidScenario, strings.Join(parts, ": "))
}

// stepKinds are the fields of a step that say what it does.
var stepKinds = []string{"arrivals", "buffer", "interrupt", "kubernetesVersion", "nodeClass", "nodeCondition", "nodePool", "releaseAMI", "scale", "traffic"}

// step names step i: "steps[3]", with what it does when the YAML is at
// hand: "steps[3] (scale inflate)". A misspelt kind ("scael") is read as
// the kind it misspells.
func (p *placer) step(i int) string {
	name := stepIndex(i)
	if p.Data == nil {
		return name
	}
	item := nodeAt(p.Document(), "steps", i)
	if item == nil || item.Kind != yaml.MappingNode {
		return name
	}
	for k := 0; k+1 < len(item.Content); k += 2 {
		kind := item.Content[k].Value
		if !slices.Contains(stepKinds, kind) {
			kind = fields.Nearest(kind, stepKinds)
		}
		if kind == "" {
			continue
		}
		if target := stepTarget(kind, item.Content[k+1]); target != "" {
			return name + " (" + kind + " " + target + ")"
		}
		return name + " (" + kind + ")"
	}
	return name
}

// stepTarget is what a step of the kind acts on, as its YAML gives it.
func stepTarget(kind string, body *yaml.Node) string {
	key := map[string]string{"scale": "deployment", "traffic": "deployment", "arrivals": "deployment",
		"releaseAMI": "nodeClass", "kubernetesVersion": "nodeClass", "buffer": "name", "interrupt": "instanceType", "nodeCondition": "node"}[kind]
	// A nodeCondition step names a node or a NodePool.
	alt := map[string]string{"nodeCondition": "nodePool"}[kind]
	if body.Kind != yaml.MappingNode {
		return ""
	}
	for k := 0; k+1 < len(body.Content); k += 2 {
		field, value := body.Content[k].Value, body.Content[k+1]
		switch {
		case value.Kind != yaml.ScalarNode:
		case field == key, alt != "" && field == alt:
			return value.Value
		case field == "manifest":
			return manifestName(value.Value)
		}
	}
	return ""
}

// manifestName is the metadata.name of the (first) object of a step's
// manifest, or "" when it has none.
func manifestName(manifest string) string {
	var obj struct {
		Metadata struct {
			Name string `yaml:"name"`
		} `yaml:"metadata"`
	}
	if yaml.NewDecoder(strings.NewReader(manifest)).Decode(&obj) != nil {
		return ""
	}
	return obj.Metadata.Name
}

// nodeAt is item i of the list at key of the top-level mapping of doc.
func nodeAt(doc *yaml.Node, key string, i int) *yaml.Node {
	if doc == nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	root := doc.Content[0]
	for k := 0; k+1 < len(root.Content); k += 2 {
		if root.Content[k].Value == key && root.Content[k+1].Kind == yaml.SequenceNode && i < len(root.Content[k+1].Content) {
			return root.Content[k+1].Content[i]
		}
	}
	return nil
}

// decodeError explains why the scenario did not decode: every unknown
// field (with the one it most likely misspells) and every value of the
// wrong type, each at its line; the decoder's own message when the YAML
// does not convert to JSON (it does not parse, or it aliases too much) or
// the walk finds nothing.
func (p *placer) decodeError(err error) error {
	if doc := p.Document(); doc != nil && !strings.HasPrefix(err.Error(), "error converting YAML to JSON") {
		problems := fields.Check(doc, reflect.TypeFor[Scenario]())
		if len(problems) > 0 {
			errs := make([]error, len(problems))
			for i, pr := range problems {
				errs[i] = p.fieldError(pr.Line, pr.Path, pr.Message)
			}
			return errors.Join(errs...)
		}
	}
	return fmt.Errorf("%s%w: %s", p.At(0), ErrInvalidScenario, cleanYAMLError(err))
}

// cleanYAMLError drops the layers sigs.k8s.io/yaml wraps around a
// decoder's message.
func cleanYAMLError(err error) string {
	msg := err.Error()
	for _, layer := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: ", "json: "} {
		msg = strings.TrimPrefix(msg, layer)
	}
	return msg
}
