package manifests

import (
	"bytes"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// karpsim reads no object's managedFields, the largest part of what kubectl
// prints for a pod: they are dropped before decoding, as text where the
// List path cuts items and from the tree everywhere else, so that they cost
// neither time nor memory, and are never reported. (Where they are cut as
// text, even a YAML syntax error inside them goes unsaid.)

// dropManagedFields removes metadata.managedFields from an object's tree.
func dropManagedFields(tree map[string]any) {
	if meta, ok := tree["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
	}
}

// stripManagedFieldsYAML returns a List item's YAML text (a "- " entry)
// without its metadata.managedFields block, or the text itself when it has
// none in block style.
func stripManagedFieldsYAML(item []byte) []byte {
	dash, _ := lineIndent(item)
	itemIndent := dash + 1
	for itemIndent < len(item) && item[itemIndent] == ' ' {
		itemIndent++
	}
	inMetadata, metaIndent := false, -1
	for pos := 0; pos < len(item); {
		end := lineEnd(item, pos)
		line := item[pos:end]
		indent, content := lineIndent(line)
		if pos == 0 {
			indent = itemIndent
		}
		switch {
		case !content:
		case indent == itemIndent:
			inMetadata = isBlockKey(line[indent:], "metadata")
			metaIndent = -1
		case inMetadata && indent < itemIndent:
			inMetadata = false
		case inMetadata:
			if metaIndent < 0 {
				metaIndent = indent
			}
			if indent == metaIndent && isBlockKey(line[indent:], "managedFields") {
				skip := skipBlock(item, end, indent)
				if next, content := lineIndent(item[skip:]); content && next > itemIndent && next < metaIndent {
					return item // malformed: left for the parser to say so
				}
				out := make([]byte, 0, len(item)-(skip-pos))
				return append(append(out, item[:pos]...), item[skip:]...)
			}
		}
		pos = end
	}
	return item
}

func lineEnd(data []byte, pos int) int {
	if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
		return pos + i + 1
	}
	return len(data)
}

// isBlockKey reports whether rest is "key:" with nothing after it but white
// space: a key whose value is a block below.
func isBlockKey(rest []byte, key string) bool {
	after, ok := bytes.CutPrefix(rest, []byte(key+":"))
	return ok && len(bytes.TrimSpace(after)) == 0
}

// skipBlock returns where the block value of a key at indent ends, reading
// from pos: at the first line with content that is less indented, or as
// indented and not a "- " entry of the value's sequence.
func skipBlock(data []byte, pos, indent int) int {
	for pos < len(data) {
		end := lineEnd(data, pos)
		line := data[pos:end]
		i, content := lineIndent(line)
		if content && (i < indent || i == indent && !isDashLine(line, i)) {
			return pos
		}
		pos = end
	}
	return pos
}

// leanJSON returns a List item's JSON without the white space between its
// tokens and without its metadata.managedFields, and its apiVersion and
// kind when they are strings without escapes, in one pass. kubectl's
// indented JSON is two thirds white space, and managedFields half of what
// is left, so the decoder after it reads a quarter of the bytes. ok is
// false when the item is not an object whose members can be cut; the
// caller then decodes the item as it is, and says what is wrong with it.
//
// Leaving out white space never makes invalid JSON valid: two numbers or
// literals it separated keep one space between them ("1 2" stays invalid),
// and any other two tokens stay as they were told apart.
func leanJSON(item []byte) (out []byte, apiVersion, kind string, ok bool) {
	out = make([]byte, 0, len(item)/3)
	var fields leanFields
	out, end, ok := fields.appendObject(out, item, skipSpace(item, 0), 0)
	if !ok || skipSpace(item, end) != len(item) {
		return nil, "", "", false
	}
	return out, fields.apiVersion, fields.kind, true
}

// leanFields collects what leanJSON reads on the way.
type leanFields struct{ apiVersion, kind string }

// appendObject appends the object at data[i:] to out as leanJSON writes it;
// level is 0 for the item and 1 for its metadata, whose managedFields are
// left out. It returns the index after the object.
func (f *leanFields) appendObject(out, data []byte, i, level int) ([]byte, int, bool) {
	if i >= len(data) || data[i] != '{' {
		return out, i, false
	}
	out = append(out, '{')
	if i = skipSpace(data, i+1); i < len(data) && data[i] == '}' {
		return append(out, '}'), i + 1, true
	}
	written := 0
	for i < len(data) && data[i] == '"' {
		keyEnd := skipString(data, i)
		key := data[i:keyEnd]
		if i = skipSpace(data, keyEnd); i >= len(data) || data[i] != ':' {
			return out, i, false
		}
		value := skipSpace(data, i+1)
		var ok bool
		switch {
		case level == 1 && string(key) == `"managedFields"`:
			i = skipValue(data, value)
			ok = i > value
		default:
			if written > 0 {
				out = append(out, ',')
			}
			written++
			out = append(append(out, key...), ':')
			start := len(out)
			if level == 0 && string(key) == `"metadata"` && value < len(data) && data[value] == '{' {
				out, i, ok = f.appendObject(out, data, value, 1)
				break
			}
			out, i, ok = appendCompact(out, data, value)
			if level == 0 && string(key) == `"apiVersion"` {
				f.apiVersion = jsonStringValue(out[start:])
			} else if level == 0 && string(key) == `"kind"` {
				f.kind = jsonStringValue(out[start:])
			}
		}
		if !ok {
			return out, i, false
		}
		switch i = skipSpace(data, i); {
		case i < len(data) && data[i] == '}':
			return append(out, '}'), i + 1, true
		case i < len(data) && data[i] == ',':
			i = skipSpace(data, i+1)
		default:
			return out, i, false
		}
	}
	return out, i, false
}

// appendCompact appends the JSON value at data[i:] to out without white
// space between its tokens, and returns the index after it.
func appendCompact(out, data []byte, i int) ([]byte, int, bool) {
	if i >= len(data) {
		return out, i, false
	}
	switch c := data[i]; {
	case c == '"':
		end := skipString(data, i)
		return append(out, data[i:end]...), end, true
	case c != '{' && c != '[':
		end := i
		for end < len(data) && jsonPlain[data[end]] {
			end++
		}
		return append(out, data[i:end]...), end, end > i
	}
	depth := 0
	for i < len(data) {
		switch c := data[i]; {
		case c == '"':
			end := skipString(data, i)
			out, i = append(out, data[i:end]...), end
		case jsonPlain[c]:
			end := i + 1
			for end < len(data) && jsonPlain[data[end]] {
				end++
			}
			out, i = append(out, data[i:end]...), end
		case c == ' ' || c == '\n' || c == '\t' || c == '\r':
			end := skipSpace(data, i)
			if end < len(data) && len(out) > 0 && jsonPlain[out[len(out)-1]] && jsonPlain[data[end]] {
				out = append(out, ' ')
			}
			i = end
		case c == '{' || c == '[':
			depth++
			out, i = append(out, c), i+1
		case c == '}' || c == ']':
			depth--
			out, i = append(out, c), i+1
			if depth == 0 {
				return out, i, true
			}
		default:
			out, i = append(out, c), i+1
		}
	}
	return out, i, false
}

// interner keeps one copy of each string it is given, for the strings that
// repeat across thousands of objects: namespaces, label values, owners,
// images.
type interner map[string]string

func (in interner) str(s string) string {
	if c, ok := in[s]; ok {
		return c
	}
	in[s] = s
	return s
}

// strMap interns a map's values in place; its keys, short and few, are
// left alone rather than building the map again.
func (in interner) strMap(m map[string]string) map[string]string {
	for k, v := range m {
		m[k] = in.str(v)
	}
	return m
}

func (in interner) meta(m *metav1.ObjectMeta) {
	m.Namespace = in.str(m.Namespace)
	m.GenerateName = in.str(m.GenerateName)
	m.Labels = in.strMap(m.Labels)
	m.Annotations = in.strMap(m.Annotations)
	for i := range m.OwnerReferences {
		o := &m.OwnerReferences[i]
		o.APIVersion, o.Kind, o.Name = in.str(o.APIVersion), in.str(o.Kind), in.str(o.Name)
		o.UID = types.UID(in.str(string(o.UID)))
	}
}

func (in interner) pod(p *corev1.Pod) {
	in.meta(&p.ObjectMeta)
	p.Spec.NodeName = in.str(p.Spec.NodeName)
	p.Spec.SchedulerName = in.str(p.Spec.SchedulerName)
	p.Spec.ServiceAccountName = in.str(p.Spec.ServiceAccountName)
	p.Spec.DeprecatedServiceAccount = in.str(p.Spec.DeprecatedServiceAccount)
	for i := range p.Spec.Containers {
		c := &p.Spec.Containers[i]
		c.Name, c.Image = in.str(c.Name), in.str(c.Image)
	}
}
