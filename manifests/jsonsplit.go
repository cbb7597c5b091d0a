package manifests

// Cutting JSON without decoding it: a List into its items, a stream into
// its values, an object into its members.

// jsonStop marks the bytes skipValue stops at inside a collection,
// jsonPlainEnd those that end a number or literal, and jsonPlain the bytes
// of numbers and literals (and of anything else that is not punctuation, a
// quote or white space).
var jsonStop, jsonPlainEnd, jsonPlain [256]bool

// splitJSONList cuts the JSON List object data starts with into its items
// and an object of its other members, in one pass, and returns where the
// object ends. ok is false when it is not an object whose items member is an
// array of objects.
func splitJSONList(data []byte) (header []byte, items [][]byte, end int, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, nil, 0, false
	}
	header = append(header, '{')
	found := false
	for i = skipSpace(data, i+1); i < len(data) && data[i] == '"'; i = skipSpace(data, i+1) {
		key := i
		colon := skipString(data, i)
		i = skipSpace(data, colon)
		if i >= len(data) || data[i] != ':' {
			return nil, nil, 0, false
		}
		value := skipSpace(data, i+1)
		if string(data[key:colon]) == `"items"` {
			if found {
				return nil, nil, 0, false
			}
			found = true
			if items, i, ok = jsonElements(data, value); !ok {
				return nil, nil, 0, false
			}
		} else {
			if i = skipValue(data, value); i == value {
				return nil, nil, 0, false
			}
			if len(header) > 1 {
				header = append(header, ',')
			}
			header = append(header, data[key:i]...)
		}
		i = skipSpace(data, i)
		if i < len(data) && data[i] == '}' {
			return append(header, '}'), items, i + 1, found && len(items) > 0
		}
		if i >= len(data) || data[i] != ',' {
			return nil, nil, 0, false
		}
	}
	return nil, nil, 0, false
}

// jsonElements returns the elements of the JSON array at data[i:], each an
// object, and the index after it, checking the array's own punctuation.
func jsonElements(data []byte, i int) ([][]byte, int, bool) {
	if i >= len(data) || data[i] != '[' {
		return nil, 0, false
	}
	var elems [][]byte
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return nil, i + 1, true
	}
	for i < len(data) && data[i] == '{' {
		end := skipValue(data, i)
		elems = append(elems, data[i:end])
		i = skipSpace(data, end)
		if i < len(data) && data[i] == ']' {
			return elems, i + 1, true
		}
		if i >= len(data) || data[i] != ',' {
			return nil, 0, false
		}
		i = skipSpace(data, i+1)
	}
	return nil, 0, false
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
	for c := range jsonPlain {
		jsonPlain[c] = !jsonStop[c] && !jsonPlainEnd[c] && c != ':'
	}
}

// skipString returns the index after the JSON string starting at i (the
// end of data when it is not closed).
func skipString(data []byte, i int) int {
	end, _ := stringEnd(data, i)
	return end
}

// skipValue returns the index after the JSON value starting at i, which
// must be valid JSON (it is checked where it is parsed): valueEnd's cut of
// data held whole.
func skipValue(data []byte, i int) int {
	end, _ := valueEnd(data, i, true)
	return end
}
