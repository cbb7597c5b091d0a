package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// This file edits an object inside a user's YAML file in place: it finds
// the object's node in the file's YAML tree (go.yaml.in/yaml/v3), works
// out which nodes an edit changes, and splices new text over just those,
// so that every other byte of the file (comments, indentation, quoting,
// key order, other documents) stays as the user wrote it. Nothing is
// re-serialized; what it cannot edit that way it refuses, with a reason.

// textEdit replaces data[start:end] with text.
type textEdit struct {
	start, end int
	text       string
}

// yamlFile is a file's text and the YAML tree of its documents.
type yamlFile struct {
	data      []byte
	lineStart []int // byte offset of each line, 0-based
	docs      []*yaml.Node
	edits     []textEdit
}

func parseYAMLFile(data []byte) (*yamlFile, error) {
	f := &yamlFile{data: data, lineStart: []int{0}}
	for i, b := range data {
		if b == '\n' {
			f.lineStart = append(f.lineStart, i+1)
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		if err != nil {
			return nil, err
		}
		f.docs = append(f.docs, &doc)
	}
}

// findObject returns the mapping node of the object of kind and name: a
// document's root, or an item of a List document's items.
func (f *yamlFile) findObject(kind, name string) (*yaml.Node, error) {
	var found []*yaml.Node
	var visit func(n *yaml.Node, depth int)
	visit = func(n *yaml.Node, depth int) {
		if n.Kind != yaml.MappingNode || depth > 4 {
			return
		}
		k := mapValue(n, "kind")
		if k != nil && k.Value == kind {
			if meta := mapValue(n, "metadata"); meta != nil {
				if nm := mapValue(meta, "name"); nm != nil && nm.Value == name {
					found = append(found, n)
				}
			}
			return
		}
		if items := mapValue(n, "items"); items != nil && items.Kind == yaml.SequenceNode {
			for _, item := range items.Content {
				visit(item, depth+1)
			}
		}
	}
	for _, d := range f.docs {
		if len(d.Content) == 1 {
			visit(d.Content[0], 0)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("no %s %s in the file", kind, name)
	case 1:
		return found[0], nil
	}
	return nil, fmt.Errorf("%d objects %s %s in the file", len(found), kind, name)
}

// mapValue is the value node of key in a mapping node, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// result applies the edits to the file's text.
func (f *yamlFile) result() []byte {
	edits := slices.Clone(f.edits)
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	out := slices.Clone(f.data)
	for _, e := range edits {
		out = slices.Concat(out[:e.start], []byte(e.text), out[e.end:])
	}
	return out
}

// offset is the byte offset of a node's 1-based line and column (yaml
// counts columns in characters).
func (f *yamlFile) offset(line, column int) (int, error) {
	if line < 1 || line > len(f.lineStart) {
		return 0, fmt.Errorf("line %d out of the file", line)
	}
	off := f.lineStart[line-1]
	for c := 1; c < column; c++ {
		if off >= len(f.data) || f.data[off] == '\n' {
			return 0, fmt.Errorf("line %d has no column %d", line, column)
		}
		_, size := utf8.DecodeRune(f.data[off:])
		off += size
	}
	return off, nil
}

// lineText is the text of a 1-based line, without its newline.
func (f *yamlFile) lineText(line int) string {
	start := f.lineStart[line-1]
	end := len(f.data)
	if line < len(f.lineStart) {
		end = f.lineStart[line] - 1
	}
	return strings.TrimSuffix(string(f.data[start:end]), "\r")
}

// lineEnd is the offset just past a 1-based line's newline (or the end of
// the file).
func (f *yamlFile) lineEnd(line int) int {
	if line < len(f.lineStart) {
		return f.lineStart[line]
	}
	return len(f.data)
}

// scalarEnd is the offset where a one-line scalar node's text ends.
func (f *yamlFile) scalarEnd(n *yaml.Node) (int, error) {
	start, err := f.offset(n.Line, n.Column)
	if err != nil {
		return 0, err
	}
	text := f.data[start:f.lineEnd(n.Line)]
	switch n.Style {
	case yaml.DoubleQuotedStyle:
		for i := 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				i++
			case '"':
				return start + i + 1, nil
			case '\n':
				return 0, errors.New("a quoted value over several lines")
			}
		}
	case yaml.SingleQuotedStyle:
		for i := 1; i < len(text); i++ {
			if text[i] == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					i++
					continue
				}
				return start + i + 1, nil
			}
		}
	case 0, yaml.TaggedStyle:
		if n.Tag != "" && n.Style == yaml.TaggedStyle {
			return 0, errors.New("a tagged value")
		}
		if bytes.HasPrefix(text, []byte(n.Value)) {
			return start + len(n.Value), nil
		}
	}
	return 0, fmt.Errorf("line %d: a value karpsim cannot edit in place", n.Line)
}

// endLine is the last line a block node's text takes.
func endLine(n *yaml.Node) (int, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Style == yaml.LiteralStyle || n.Style == yaml.FoldedStyle || strings.Contains(n.Value, "\n") {
			return 0, fmt.Errorf("line %d: a value over several lines", n.Line)
		}
		return n.Line, nil
	case yaml.AliasNode:
		return 0, fmt.Errorf("line %d: an alias", n.Line)
	}
	last := n.Line
	for _, c := range n.Content {
		l, err := endLine(c)
		if err != nil {
			return 0, err
		}
		last = max(last, l)
	}
	return last, nil
}

// editNode records the text edits that turn node, whose value is before
// (a JSON tree: maps, slices, strings, float64, bool, nil), into after.
func (f *yamlFile) editNode(n *yaml.Node, before, after any) error {
	if reflect.DeepEqual(before, after) {
		return nil
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" {
		return fmt.Errorf("line %d: an anchor or alias", n.Line)
	}
	switch b := before.(type) {
	case map[string]any:
		a, ok := after.(map[string]any)
		if !ok || n.Kind != yaml.MappingNode {
			return fmt.Errorf("line %d: the value changes type", n.Line)
		}
		return f.editMapping(n, b, a)
	case []any:
		a, ok := after.([]any)
		if !ok || n.Kind != yaml.SequenceNode {
			return fmt.Errorf("line %d: the value changes type", n.Line)
		}
		return f.editSequence(n, b, a)
	}
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: the value changes type", n.Line)
	}
	if _, isMap := after.(map[string]any); isMap {
		return fmt.Errorf("line %d: the value changes type", n.Line)
	}
	if _, isList := after.([]any); isList {
		return fmt.Errorf("line %d: the value changes type", n.Line)
	}
	start, err := f.offset(n.Line, n.Column)
	if err != nil {
		return err
	}
	end, err := f.scalarEnd(n)
	if err != nil {
		return err
	}
	f.edits = append(f.edits, textEdit{start, end, renderScalar(after, n.Style)})
	return nil
}

func (f *yamlFile) editMapping(n *yaml.Node, before, after map[string]any) error {
	keys := make([]string, 0, len(after))
	for k := range after {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for k := range before {
		if _, ok := after[k]; !ok {
			return fmt.Errorf("line %d: key %s would be removed", n.Line, k)
		}
	}
	var added []string
	for _, k := range keys {
		if reflect.DeepEqual(before[k], after[k]) {
			continue
		}
		child := mapValue(n, k)
		if child == nil {
			added = append(added, k)
			continue
		}
		if err := f.editNode(child, before[k], after[k]); err != nil {
			return err
		}
	}
	if len(added) == 0 {
		return nil
	}
	if n.Style&yaml.FlowStyle != 0 || len(n.Content) == 0 {
		return fmt.Errorf("line %d: a key to add to a flow mapping", n.Line)
	}
	last, err := endLine(n)
	if err != nil {
		return err
	}
	indent := strings.Repeat(" ", n.Content[0].Column-1)
	var text strings.Builder
	for _, k := range added {
		text.WriteString(indent + renderKey(k) + ":" + renderBlockValue(after[k], nil, n.Content[0].Column-1) + "\n")
	}
	at := f.lineEnd(last)
	if at == len(f.data) && (len(f.data) == 0 || f.data[len(f.data)-1] != '\n') {
		f.edits = append(f.edits, textEdit{at, at, "\n" + strings.TrimSuffix(text.String(), "\n")})
		return nil
	}
	f.edits = append(f.edits, textEdit{at, at, text.String()})
	return nil
}

// editSequence aligns the lists by their longest common run of equal
// elements: a stretch of changed elements of the same length is edited
// element by element, anything else removed and inserted.
func (f *yamlFile) editSequence(n *yaml.Node, before, after []any) error {
	if len(n.Content) != len(before) {
		return fmt.Errorf("line %d: the list does not hold the values read", n.Line)
	}
	type pair struct{ i, j int }
	// lcs[i][j]: longest common subsequence of before[i:] and after[j:].
	lcs := make([][]int, len(before)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(after)+1)
	}
	for i := len(before) - 1; i >= 0; i-- {
		for j := len(after) - 1; j >= 0; j-- {
			if reflect.DeepEqual(before[i], after[j]) {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var kept []pair
	for i, j := 0, 0; i < len(before) && j < len(after); {
		switch {
		case reflect.DeepEqual(before[i], after[j]):
			kept = append(kept, pair{i, j})
			i, j = i+1, j+1
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	kept = append(kept, pair{len(before), len(after)})
	pi, pj := 0, 0
	for _, k := range kept {
		removed, inserted := k.i-pi, k.j-pj
		if removed == inserted {
			for d := range removed {
				if err := f.editNode(n.Content[pi+d], before[pi+d], after[pj+d]); err != nil {
					return err
				}
			}
		} else {
			for d := range removed {
				if err := f.removeElement(n, pi+d); err != nil {
					return err
				}
			}
			if inserted > 0 {
				if err := f.insertElements(n, k.i, after[pj:k.j]); err != nil {
					return err
				}
			}
		}
		pi, pj = k.i+1, k.j+1
	}
	return nil
}

// removeElement removes the i-th element of a sequence.
func (f *yamlFile) removeElement(n *yaml.Node, i int) error {
	el := n.Content[i]
	if n.Style&yaml.FlowStyle != 0 {
		if el.Kind != yaml.ScalarNode || el.Line != n.Line {
			return fmt.Errorf("line %d: a flow list over several lines", n.Line)
		}
		start, err := f.offset(el.Line, el.Column)
		if err != nil {
			return err
		}
		end, err := f.scalarEnd(el)
		if err != nil {
			return err
		}
		// Take the comma after it (or, for the last, the one before).
		rest := f.data[end:]
		if j := bytes.IndexFunc(rest, func(r rune) bool { return r != ' ' }); j >= 0 && rest[j] == ',' {
			end += j + 1
			for end < len(f.data) && f.data[end] == ' ' {
				end++
			}
		} else if i > 0 {
			k := start - 1
			for k > 0 && f.data[k] == ' ' {
				k--
			}
			if f.data[k] == ',' {
				start = k
			}
		}
		f.edits = append(f.edits, textEdit{start, end, ""})
		return nil
	}
	first, last, err := f.elementLines(n, i)
	if err != nil {
		return err
	}
	f.edits = append(f.edits, textEdit{f.lineStart[first-1], f.lineEnd(last), ""})
	return nil
}

// elementLines are the first and last lines of a block sequence's i-th
// element: from its dash, which must start its line, to the line before
// the next element's dash, or the element's own last line.
func (f *yamlFile) elementLines(n *yaml.Node, i int) (int, int, error) {
	el := n.Content[i]
	line := f.lineText(el.Line)
	dash := strings.IndexByte(line, '-')
	if dash < 0 || strings.TrimSpace(line[:dash]) != "" {
		return 0, 0, fmt.Errorf("line %d: a list element that does not start its line", el.Line)
	}
	last, err := endLine(el)
	if err != nil {
		return 0, 0, err
	}
	if i+1 < len(n.Content) {
		last = n.Content[i+1].Line - 1
	}
	return el.Line, last, nil
}

// insertElements inserts values before the at-th element of a sequence
// (at its end when at is its length), styled as its first element.
func (f *yamlFile) insertElements(n *yaml.Node, at int, values []any) error {
	if len(n.Content) == 0 {
		return fmt.Errorf("line %d: an empty list", n.Line)
	}
	sibling := n.Content[0]
	if n.Style&yaml.FlowStyle != 0 {
		if n.Line != n.Content[len(n.Content)-1].Line {
			return fmt.Errorf("line %d: a flow list over several lines", n.Line)
		}
		parts := make([]string, len(values))
		for i, v := range values {
			parts[i] = renderFlow(v, sibling)
		}
		if at < len(n.Content) {
			start, err := f.offset(n.Content[at].Line, n.Content[at].Column)
			if err != nil {
				return err
			}
			f.edits = append(f.edits, textEdit{start, start, strings.Join(parts, ", ") + ", "})
			return nil
		}
		lastEl := n.Content[len(n.Content)-1]
		if lastEl.Kind != yaml.ScalarNode {
			return fmt.Errorf("line %d: a flow list of objects", n.Line)
		}
		end, err := f.scalarEnd(lastEl)
		if err != nil {
			return err
		}
		f.edits = append(f.edits, textEdit{end, end, ", " + strings.Join(parts, ", ")})
		return nil
	}
	dashLine := f.lineText(sibling.Line)
	dash := strings.IndexByte(dashLine, '-')
	if dash < 0 || strings.TrimSpace(dashLine[:dash]) != "" {
		return fmt.Errorf("line %d: a list element that does not start its line", sibling.Line)
	}
	var text strings.Builder
	for _, v := range values {
		text.WriteString(strings.Repeat(" ", dash) + "-" + renderElement(v, sibling, sibling.Column-1) + "\n")
	}
	var pos int
	if at < len(n.Content) {
		first, _, err := f.elementLines(n, at)
		if err != nil {
			return err
		}
		pos = f.lineStart[first-1]
	} else {
		_, last, err := f.elementLines(n, len(n.Content)-1)
		if err != nil {
			return err
		}
		pos = f.lineEnd(last)
		if pos == len(f.data) && (len(f.data) == 0 || f.data[len(f.data)-1] != '\n') {
			f.edits = append(f.edits, textEdit{pos, pos, "\n" + strings.TrimSuffix(text.String(), "\n")})
			return nil
		}
	}
	f.edits = append(f.edits, textEdit{pos, pos, text.String()})
	return nil
}

// renderElement is a new block list element after its dash: flow when
// its sibling is, else a block mapping whose keys start at column
// indent (0-based), or a scalar.
func renderElement(v any, sibling *yaml.Node, indent int) string {
	if m, ok := v.(map[string]any); ok && sibling.Kind == yaml.MappingNode && sibling.Style&yaml.FlowStyle == 0 {
		keys := orderedKeys(m, sibling)
		var b strings.Builder
		for i, k := range keys {
			if i == 0 {
				b.WriteString(" ")
			} else {
				b.WriteString("\n" + strings.Repeat(" ", indent))
			}
			b.WriteString(renderKey(k) + ":" + renderBlockValue(m[k], mapValue(sibling, k), indent))
		}
		return b.String()
	}
	return " " + renderFlow(v, sibling)
}

// renderBlockValue is a value after "key:" in a block mapping whose keys
// are at column indent: flow or a scalar on the same line, a block list
// or mapping below when its sibling (the same key elsewhere) is one.
func renderBlockValue(v any, sibling *yaml.Node, indent int) string {
	if sibling != nil && sibling.Style&yaml.FlowStyle == 0 {
		switch x := v.(type) {
		case []any:
			if sibling.Kind == yaml.SequenceNode && len(sibling.Content) > 0 && len(x) > 0 {
				col := sibling.Content[0].Column - 3 // the dash's column, 0-based
				var b strings.Builder
				for _, e := range x {
					b.WriteString("\n" + strings.Repeat(" ", max(col, indent)) + "-" + renderElement(e, sibling.Content[0], max(col, indent)+2))
				}
				return b.String()
			}
		case map[string]any:
			if sibling.Kind == yaml.MappingNode && len(sibling.Content) > 0 {
				col := sibling.Content[0].Column - 1
				var b strings.Builder
				for _, k := range orderedKeys(x, sibling) {
					b.WriteString("\n" + strings.Repeat(" ", col) + renderKey(k) + ":" + renderBlockValue(x[k], mapValue(sibling, k), col))
				}
				return b.String()
			}
		}
	}
	return " " + renderFlow(v, sibling)
}

// renderFlow is a value in flow style, scalars quoted as sibling's are.
func renderFlow(v any, sibling *yaml.Node) string {
	style := yaml.Style(0)
	if sibling != nil && sibling.Kind == yaml.ScalarNode {
		style = sibling.Style
	}
	switch x := v.(type) {
	case []any:
		var elem *yaml.Node
		if sibling != nil && sibling.Kind == yaml.SequenceNode && len(sibling.Content) > 0 {
			elem = sibling.Content[0]
		}
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = renderFlow(e, elem)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		keys := orderedKeys(x, sibling)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = renderKey(k) + ": " + renderFlow(x[k], mapValue(sibling, k))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return renderScalar(v, style)
}

// orderedKeys are the map's keys in the order sibling (a mapping) has
// them, then the rest sorted.
func orderedKeys(m map[string]any, sibling *yaml.Node) []string {
	var keys []string
	if sibling != nil && sibling.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(sibling.Content); i += 2 {
			if _, ok := m[sibling.Content[i].Value]; ok && !slices.Contains(keys, sibling.Content[i].Value) {
				keys = append(keys, sibling.Content[i].Value)
			}
		}
	}
	var rest []string
	for k := range m {
		if !slices.Contains(keys, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}

// plainSafe are the strings YAML reads back as the same string unquoted.
var plainSafe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9._/-]*$`)

// yamlWords are plain words YAML 1.1 or 1.2 reads as something else.
var yamlWords = []string{"true", "false", "yes", "no", "on", "off", "y", "n", "null"}

func renderKey(k string) string { return renderScalar(k, 0) }

// renderScalar writes a JSON scalar as YAML: numbers and booleans plain,
// strings in the quoting style given, plain only when YAML reads them back
// as the same string.
func renderScalar(v any, style yaml.Style) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case json.Number:
		return x.String()
	case string:
		switch {
		case style == yaml.SingleQuotedStyle:
			return "'" + strings.ReplaceAll(x, "'", "''") + "'"
		case style != yaml.DoubleQuotedStyle && plainSafe.MatchString(x) && !slices.Contains(yamlWords, strings.ToLower(x)):
			return x
		}
		out, _ := json.Marshal(x)
		return string(out)
	}
	out, _ := json.Marshal(v)
	return string(out)
}
