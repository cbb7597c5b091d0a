// Package fields explains why a document does not fit the Go type it is
// decoded into: which known field a misspelt one most likely meant, and,
// for a YAML document, the line and path of every field that is unknown or
// holds a value of the wrong type. It reads no file; callers hand it the
// parsed document.
package fields

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
)

// Names returns the JSON names of the fields of t, a struct or a pointer
// to one (the fields of inlined embedded structs included), sorted; nil
// for any other type.
func Names(t reflect.Type) []string {
	t = deref(t)
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var names []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case tag == "-":
		case f.Anonymous && tag == "":
			names = append(names, Names(f.Type)...)
		case !f.IsExported():
		case tag != "":
			names = append(names, tag)
		default:
			names = append(names, f.Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// Child returns the type of the value at step inside a value of type t:
// the struct field JSON calls step, or the element of a map, slice or
// array (step is then a key or an index); nil when there is none.
func Child(t reflect.Type, step string) reflect.Type {
	t = deref(t)
	if t == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Map, reflect.Slice, reflect.Array:
		return t.Elem()
	case reflect.Struct:
		return field(t, step)
	}
	return nil
}

// At returns the type of the value at the path of steps inside a value of
// type t, as Child does step by step.
func At(t reflect.Type, steps []string) reflect.Type {
	for _, s := range steps {
		if t = Child(t, s); t == nil {
			return nil
		}
	}
	return t
}

// Steps splits a field path as decoders and validation write it
// ("spec.containers[0].resources", "requests[cpu]") into its steps
// ("spec", "containers", "0", "resources").
func Steps(path string) []string {
	var steps []string
	for _, part := range strings.Split(path, ".") {
		for part != "" {
			open := strings.IndexByte(part, '[')
			if open < 0 {
				steps = append(steps, part)
				break
			}
			if open > 0 {
				steps = append(steps, part[:open])
			}
			end := strings.IndexByte(part[open:], ']')
			if end < 0 {
				steps = append(steps, part[open:])
				break
			}
			steps = append(steps, part[open+1:open+end])
			part = part[open+end+1:]
		}
	}
	return steps
}

func field(t reflect.Type, name string) reflect.Type {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && tag == "" {
			if ft := Child(f.Type, name); ft != nil && deref(f.Type).Kind() == reflect.Struct {
				return ft
			}
			continue
		}
		if tag == name || (tag == "" && f.IsExported() && f.Name == name) {
			return f.Type
		}
	}
	return nil
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// opaque reports whether values of t decode themselves (a quantity, a
// duration, a time), so that their insides are not fields.
func opaque(t reflect.Type) bool {
	t = deref(t)
	return t != nil && reflect.PointerTo(t).Implements(unmarshalerType)
}

// Nearest returns the candidate given most likely misspells: the nearest
// by edit distance (letter case ignored, a swap of two neighbours one
// edit), within one edit for every four letters of given and at least
// one; "" when none is that near. Ties go to the first in lexical order.
func Nearest(given string, candidates []string) string {
	limit := max(1, len(given)/4)
	best, bestDistance := "", limit+1
	lower := strings.ToLower(given)
	for _, c := range candidates {
		if c == given {
			continue
		}
		d := distance(lower, strings.ToLower(c))
		if d < bestDistance || (d == bestDistance && c < best) {
			best, bestDistance = c, d
		}
	}
	return best
}

// Hint is " (did you mean NAME?)" for the candidate nearest to given, or
// "" when none is near.
func Hint(given string, candidates []string) string {
	if near := Nearest(given, candidates); near != "" {
		return " (did you mean " + near + "?)"
	}
	return ""
}

// distance is the optimal string alignment distance between a and b, in
// bytes: insertions, deletions, substitutions and swaps of neighbours.
func distance(a, b string) int {
	rows := make([][]int, len(a)+1)
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(a)][len(b)]
}
