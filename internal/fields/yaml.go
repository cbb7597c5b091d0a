package fields

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxProblems bounds the problems Check reports for one document.
const maxProblems = 20

// Problem is a field of a YAML document that does not fit its Go type.
type Problem struct {
	// Line is the 1-based line of the field's key, or of its value when
	// it has no key (a list item).
	Line int
	// Path names the field as validation errors do: "steps[3].scale";
	// for an unknown field, which the message names, the object holding
	// it ("" at the top).
	Path string
	// Message says what is wrong, e.g. `unknown field "scael" (did you
	// mean scale?)` or `expected an integer, got the string "ten"`.
	Message string
}

// Check walks a parsed YAML document (the node yaml.Unmarshal fills)
// against the Go type it decodes into as encoding/json does (a field name
// matches in any letter case), and returns its unknown fields, each
// with the known field nearest to it, and the values of the wrong type, in
// document order, at most 20. Aliases are not followed. Values decoded by
// their own UnmarshalJSON (durations, quantities) are checked by decoding
// them.
func Check(doc *yaml.Node, t reflect.Type) []Problem {
	c := checker{}
	if doc != nil && doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	if doc != nil {
		c.walk(doc, t, "", doc.Line)
	}
	return c.problems
}

type checker struct{ problems []Problem }

func (c *checker) add(line int, path, format string, args ...any) {
	if len(c.problems) < maxProblems {
		c.problems = append(c.problems, Problem{Line: line, Path: path, Message: fmt.Sprintf(format, args...)})
	}
}

// walk checks node, found at path and line, against t.
func (c *checker) walk(node *yaml.Node, t reflect.Type, path string, line int) {
	t = deref(t)
	if t == nil || node.Kind == yaml.AliasNode || isNull(node) || t.Kind() == reflect.Interface {
		return
	}
	if opaque(t) {
		c.leaf(node, t, path, line)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if node.Kind != yaml.MappingNode {
			c.add(line, path, "expected an object, got %s", describe(node))
			return
		}
		for k := 0; k+1 < len(node.Content); k += 2 {
			key, value := node.Content[k], node.Content[k+1]
			if key.Tag == "!!merge" {
				continue
			}
			ft := field(t, key.Value)
			if ft == nil {
				ft = foldedField(t, key.Value)
			}
			if ft == nil {
				c.add(key.Line, path, "unknown field %q%s", key.Value, Hint(key.Value, Names(t)))
				continue
			}
			c.walk(value, ft, join(path, key.Value), key.Line)
		}
	case reflect.Map:
		if node.Kind != yaml.MappingNode {
			c.add(line, path, "expected an object, got %s", describe(node))
			return
		}
		for k := 0; k+1 < len(node.Content); k += 2 {
			key := node.Content[k]
			c.walk(node.Content[k+1], t.Elem(), path+"["+key.Value+"]", key.Line)
		}
	case reflect.Slice, reflect.Array:
		if node.Kind != yaml.SequenceNode {
			c.add(line, path, "expected a list, got %s", describe(node))
			return
		}
		for i, item := range node.Content {
			c.walk(item, t.Elem(), path+"["+strconv.Itoa(i)+"]", item.Line)
		}
	default:
		c.leaf(node, t, path, line)
	}
}

// foldedField is the field whose JSON name equals name but for letter
// case, which encoding/json (and so sigs.k8s.io/yaml) also decodes.
func foldedField(t reflect.Type, name string) reflect.Type {
	for _, known := range Names(t) {
		if strings.EqualFold(known, name) {
			return field(t, known)
		}
	}
	return nil
}

// leaf checks a value that is not made of fields by decoding it alone.
func (c *checker) leaf(node *yaml.Node, t reflect.Type, path string, line int) {
	var v any
	if err := node.Decode(&v); err != nil {
		return
	}
	data, err := json.Marshal(v)
	if err != nil {
		return
	}
	if err := json.Unmarshal(data, reflect.New(t).Interface()); err != nil {
		c.add(line, path, "%s", describeError(err, t, node))
	}
}

// describeError says why a value did not decode into a t.
func describeError(err error, t reflect.Type, node *yaml.Node) string {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	switch {
	case strings.HasPrefix(msg, "time: invalid duration"):
		return fmt.Sprintf("%q is not a duration (use e.g. 30s, 5m or 8h)", node.Value)
	case strings.HasPrefix(msg, "parsing time"):
		return fmt.Sprintf("%q is not a time (use RFC 3339, e.g. 2026-01-05T09:00:00Z)", node.Value)
	}
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && !opaque(t) {
		return fmt.Sprintf("expected %s, got %s", KindName(t), describe(node))
	}
	return msg
}

// KindName names a Go type for someone writing YAML or JSON: "a string",
// "an integer", "a list", "an object" and so on.
func KindName(t reflect.Type) string {
	if deref(t).String() == "intstr.IntOrString" {
		return "an integer or a string"
	}
	switch deref(t).Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number of 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	default:
		return "an object"
	}
}

// describe names a YAML value for messages.
func describe(node *yaml.Node) string {
	switch node.Kind {
	case yaml.MappingNode:
		return "an object"
	case yaml.SequenceNode:
		return "a list"
	}
	switch node.Tag {
	case "!!str":
		return fmt.Sprintf("the string %q", node.Value)
	case "!!bool":
		return node.Value
	case "!!int", "!!float":
		return "the number " + node.Value
	}
	return strconv.Quote(node.Value)
}

func isNull(node *yaml.Node) bool { return node.Kind == yaml.ScalarNode && node.Tag == "!!null" }

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// Line returns the line of the field at path (as Check writes paths:
// "variants[1].name", "steps[0]") in a parsed YAML document: the line of
// its key, or of the list item; 0 when the document has no such field.
func Line(doc *yaml.Node, path string) int {
	if doc != nil && doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	if doc == nil {
		return 0
	}
	node, line := doc, doc.Line
	for _, step := range Steps(path) {
		switch node.Kind {
		case yaml.MappingNode:
			found := false
			for k := 0; k+1 < len(node.Content); k += 2 {
				if node.Content[k].Value == step {
					node, line, found = node.Content[k+1], node.Content[k].Line, true
					break
				}
			}
			if !found {
				return 0
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(step)
			if err != nil || i < 0 || i >= len(node.Content) {
				return 0
			}
			node = node.Content[i]
			line = node.Line
		default:
			return 0
		}
	}
	return line
}
