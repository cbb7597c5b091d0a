package manifests

import "bytes"

// Cutting JSON without decoding it: a List into its items, a stream into
// its values, an object into its members.

// jsonMember locates one member of a JSON object: data[key:colon] is the
// quoted key (white space after it included), data[value:end] the value.
type jsonMember struct{ key, colon, value, end int }

// jsonStop marks the bytes skipValue stops at inside a collection, and
// jsonPlainEnd those that end a number or literal.
var jsonStop, jsonPlainEnd [256]bool

// splitJSONList cuts a JSON List object into its items and an object of its
// other members. ok is false when the value is not an object whose items
// member is an array of objects.
func splitJSONList(data []byte) (header []byte, items [][]byte, ok bool) {
	members, ok := jsonMembers(data)
	if !ok {
		return nil, nil, false
	}
	header = append(header, '{')
	found := false
	for _, m := range members {
		if string(data[m.key:m.colon]) != `"items"` {
			if len(header) > 1 {
				header = append(header, ',')
			}
			header = append(header, data[m.key:m.end]...)
			continue
		}
		if found {
			return nil, nil, false
		}
		found = true
		if items, ok = jsonElements(data[m.value:m.end]); !ok {
			return nil, nil, false
		}
	}
	return append(header, '}'), items, found && len(items) > 0
}

// splitJSONValues cuts a stream of concatenated JSON values without
// checking them: the List path checks what it cuts, and decodeJSON checks
// every other value.
func splitJSONValues(file string, data []byte) ([]document, bool) {
	var docs []document
	line, counted := 1, 0
	for i := skipSpace(data, 0); i < len(data); i = skipSpace(data, i) {
		end := skipValue(data, i)
		if end == i {
			return nil, false
		}
		line += bytes.Count(data[counted:i], []byte("\n"))
		counted = i
		src := Source{File: file, Document: len(docs) + 1, Line: line}
		docs = append(docs, document{data: data[i:end], first: line, src: src, json: true})
		i = end
	}
	return docs, true
}

// jsonMembers lists the members of the JSON object data. It checks the
// object's own punctuation; each key and value is checked where it is
// parsed.
func jsonMembers(data []byte) ([]jsonMember, bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	var members []jsonMember
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil, true
	}
	for i < len(data) && data[i] == '"' {
		m := jsonMember{key: i}
		i = skipString(data, i)
		m.colon = i
		i = skipSpace(data, i)
		if i >= len(data) || data[i] != ':' {
			return nil, false
		}
		m.value = skipSpace(data, i+1)
		m.end = skipValue(data, m.value)
		if m.end == m.value {
			return nil, false
		}
		members = append(members, m)
		i = skipSpace(data, m.end)
		if i < len(data) && data[i] == '}' {
			return members, true
		}
		if i >= len(data) || data[i] != ',' {
			return nil, false
		}
		i = skipSpace(data, i+1)
	}
	return nil, false
}

// jsonElements returns the elements of the JSON array data, each an
// object, checking the array's own punctuation.
func jsonElements(data []byte) ([][]byte, bool) {
	if len(data) == 0 || data[0] != '[' {
		return nil, false
	}
	var elems [][]byte
	i := skipSpace(data, 1)
	if i < len(data) && data[i] == ']' {
		return nil, true
	}
	for i < len(data) && data[i] == '{' {
		end := skipValue(data, i)
		elems = append(elems, data[i:end])
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ']' {
			return elems, true
		}
		if i >= len(data) || data[i] != ',' {
			return nil, false
		}
		i = skipSpace(data, i+1)
	}
	return nil, false
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

func init() {
	for _, c := range []byte(`"{}[]`) {
		jsonStop[c] = true
	}
	for _, c := range []byte(",}] \t\r\n") {
		jsonPlainEnd[c] = true
	}
}

// skipString returns the index after the JSON string starting at i.
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(data)
}

// skipValue returns the index after the JSON value starting at i, which
// must be valid JSON (it is checked where it is parsed).
func skipValue(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			if !jsonStop[data[i]] {
				i++
				continue
			}
			switch data[i] {
			case '"':
				i = skipString(data, i)
				continue
			case '{', '[':
				depth++
			default:
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(data)
	default:
		for i < len(data) && !jsonPlainEnd[data[i]] {
			i++
		}
		return i
	}
}
