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

// stripManagedFieldsJSON returns a List item's JSON without its
// metadata.managedFields member (the item itself when it has none), and
// its apiVersion and kind when they are strings without escapes.
func stripManagedFieldsJSON(item []byte) (out []byte, apiVersion, kind string) {
	members, ok := jsonMembers(item)
	if !ok {
		return item, "", ""
	}
	out = item
	for _, m := range members {
		switch string(item[m.key:m.colon]) {
		case `"apiVersion"`:
			apiVersion = jsonStringValue(item[m.value:m.end])
		case `"kind"`:
			kind = jsonStringValue(item[m.value:m.end])
		case `"metadata"`:
			out = withoutMember(item, m, "managedFields")
		}
	}
	return out, apiVersion, kind
}

// withoutMember returns item without the member named name of the object
// that is item's member m.
func withoutMember(item []byte, m jsonMember, name string) []byte {
	if item[m.value] != '{' {
		return item
	}
	meta, ok := jsonMembers(item[m.value:m.end])
	if !ok {
		return item
	}
	for j, f := range meta {
		if string(item[m.value+f.key:m.value+f.colon]) != `"`+name+`"` {
			continue
		}
		from, to := f.key, f.end
		switch {
		case j+1 < len(meta):
			to = meta[j+1].key
		case j > 0:
			from = meta[j-1].end
		}
		from, to = from+m.value, to+m.value
		out := make([]byte, 0, len(item)-(to-from))
		return append(append(out, item[:from]...), item[to:]...)
	}
	return item
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
