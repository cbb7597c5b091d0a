package manifests

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	sigsjson "sigs.k8s.io/json"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/internal/fields"
)

// maxDecodeProblems bounds how many bad fields of one object are located
// before giving up on it.
const maxDecodeProblems = 20

// decodeTyped decodes a generic tree into a T, case-sensitively as the API
// server does. Fields that do not decode (a quantity like "lots", a string
// where a number belongs) are located one by one, reported with their path,
// and dropped, so that the rest of the object still decodes and every
// problem is found. It returns nil when the object cannot be decoded at
// all, and the paths of unknown fields, which were ignored.
func decodeTyped[T any](tree map[string]any) (*T, apis.FieldErrors, []string) {
	var problems apis.FieldErrors
	work := tree
	for attempt := 0; ; attempt++ {
		obj := new(T)
		strict, err := unmarshal(work, obj)
		if err == nil {
			return obj, problems, unknownFields(strict)
		}
		if attempt == maxDecodeProblems {
			return nil, append(problems, apis.FieldError{Message: "too many fields that do not decode; fix the ones above first"}), nil
		}
		if attempt == 0 {
			work = cloneTree(tree).(map[string]any)
		}
		path, leafErr := locate[T](work)
		if len(path) == 0 {
			return nil, append(problems, apis.FieldError{Message: cleanDecodeError(err.Error())}), nil
		}
		problems = append(problems, apis.FieldError{Path: typedPath(reflect.TypeFor[T](), path), Message: describeDecodeError(leafErr, valueAt(work, path))})
		removeAt(work, path)
	}
}

func unmarshal(tree any, into any) ([]error, error) {
	data, err := json.Marshal(tree)
	if err != nil {
		return nil, err
	}
	return sigsjson.UnmarshalStrict(data, into, sigsjson.DisallowUnknownFields)
}

func unknownFields(strict []error) []string {
	var paths []string
	for _, err := range strict {
		if fe, ok := err.(interface{ FieldPath() string }); ok {
			paths = append(paths, fe.FieldPath())
		} else {
			paths = append(paths, err.Error())
		}
	}
	return paths
}

// locate finds a field that keeps root from decoding into a T: it descends
// from the root into the first child that fails to decode on its own (with
// only the fields above it), until no child fails alone or the Go type
// there is a value rather than a container (a string, a number, a
// quantity). It returns the path (map keys and list indexes) and that
// field's decoding error.
func locate[T any](root map[string]any) ([]any, error) {
	var path []any
	var node any = root
	var found error
	t := reflect.TypeFor[T]()
	for isContainer(t) {
		descended := false
		for _, step := range children(node) {
			candidate := append(slices.Clone(path), step)
			if _, err := unmarshal(spine(root, candidate), new(T)); err != nil {
				path, node, found, descended = candidate, valueAt(root, candidate), err, true
				t = fields.Child(t, fmt.Sprint(step))
				break
			}
		}
		if !descended {
			break
		}
	}
	return path, found
}

func children(node any) []any {
	var steps []any
	switch n := node.(type) {
	case map[string]any:
		for _, k := range sortedKeys(n) {
			steps = append(steps, k)
		}
	case []any:
		for i := range n {
			steps = append(steps, i)
		}
	}
	return steps
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// isContainer reports whether values of t are decoded field by field (a
// plain struct, map, slice or array), so that a problem inside one lies in
// one of its children.
func isContainer(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || reflect.PointerTo(t).Implements(unmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map, reflect.Slice, reflect.Array:
		return true
	default:
		return false
	}
}

// spine copies node down the path only: each map or list on the way keeps
// just the next step; the last value is shared.
func spine(node any, path []any) any {
	if len(path) == 0 {
		return node
	}
	switch step := path[0].(type) {
	case string:
		return map[string]any{step: spine(node.(map[string]any)[step], path[1:])}
	default:
		return []any{spine(node.([]any)[step.(int)], path[1:])}
	}
}

func valueAt(node any, path []any) any {
	for _, step := range path {
		switch s := step.(type) {
		case string:
			node = node.(map[string]any)[s]
		default:
			node = node.([]any)[s.(int)]
		}
	}
	return node
}

// removeAt drops the value at path: map keys are deleted, list elements
// become null so that later indexes still name the same elements.
func removeAt(root any, path []any) {
	parent := valueAt(root, path[:len(path)-1])
	switch s := path[len(path)-1].(type) {
	case string:
		delete(parent.(map[string]any), s)
	default:
		parent.([]any)[s.(int)] = nil
	}
}

func cloneTree(node any) any {
	switch n := node.(type) {
	case map[string]any:
		out := make(map[string]any, len(n))
		for k, v := range n {
			out[k] = cloneTree(v)
		}
		return out
	case []any:
		out := make([]any, len(n))
		for i, v := range n {
			out[i] = cloneTree(v)
		}
		return out
	default:
		return n
	}
}

// typedPath writes a path through a value of type t the way validation
// errors do: struct fields joined by dots, list indexes and map keys in
// brackets, e.g. "spec.containers[0].resources.requests[cpu]".
func typedPath(t reflect.Type, path []any) string {
	var b strings.Builder
	for _, step := range path {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch s := step.(type) {
		case string:
			if t != nil && t.Kind() == reflect.Map {
				b.WriteString("[" + s + "]")
			} else {
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(s)
			}
		default:
			b.WriteString("[" + strconv.Itoa(s.(int)) + "]")
		}
		t = fields.Child(t, fmt.Sprint(step))
	}
	return b.String()
}

// describeDecodeError explains why value did not decode.
func describeDecodeError(err error, value any) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "quantities must match"):
		return fmt.Sprintf("%s is not a quantity (use e.g. \"500m\", \"2\" or \"1.5Gi\")", quoted(value))
	case strings.HasPrefix(msg, "time: invalid duration"):
		return fmt.Sprintf("%s is not a duration (use e.g. \"30s\", \"5m\" or \"8h\")", quoted(value))
	case strings.HasPrefix(msg, "parsing time"):
		return fmt.Sprintf("%s is not a time (use RFC 3339, e.g. \"2024-01-02T15:04:05Z\")", quoted(value))
	}
	if t, ok := targetType(err); ok {
		return fmt.Sprintf("expected %s, got %s", fields.KindName(t), describeValue(value))
	}
	return cleanDecodeError(msg)
}

func quoted(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return describeValue(v)
}

func cleanDecodeError(msg string) string { return strings.TrimPrefix(msg, "json: ") }

// targetType returns the Go type a JSON type error was decoding into. The
// decoder's error type is internal to sigs.k8s.io/json, so its Type field is
// read by reflection.
func targetType(err error) (reflect.Type, bool) {
	v := reflect.ValueOf(err)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil, false
	}
	f := v.Elem().FieldByName("Type")
	if !f.IsValid() || !f.CanInterface() {
		return nil, false
	}
	t, ok := f.Interface().(reflect.Type)
	return t, ok && t != nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
