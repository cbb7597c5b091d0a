package manifests

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"
)

// blockYAMLToJSON converts one List item (a "- " entry) written in the
// block style kubectl prints to the JSON of its object, leaving out the
// object's metadata.managedFields, and returns the item's apiVersion and
// kind when they are plain strings. It reads only a subset of YAML: block
// mappings and sequences; plain, single- and double-quoted scalars, on one
// line or folded over several; flow collections on one line; comments. ok
// is false for anything else (block scalars, multi-line flow collections,
// anchors, tags, a plain scalar YAML 1.1 would read as a float, a
// timestamp or a yes/no boolean, a duplicate key, an error), and the
// caller then uses the full YAML parser: this converter exists for speed,
// and never decides what a document means where the full parser could
// decide otherwise.
func blockYAMLToJSON(item []byte) (out []byte, apiVersion, kind string, ok bool) {
	return convertBlock(item, true)
}

// blockDocumentToJSON converts a whole document (a mapping) as
// blockYAMLToJSON converts a List item.
func blockDocumentToJSON(doc []byte) (out []byte, apiVersion, kind string, ok bool) {
	return convertBlock(doc, false)
}

func convertBlock(data []byte, item bool) (out []byte, apiVersion, kind string, ok bool) {
	if !utf8.Valid(data) {
		return nil, "", "", false
	}
	c := blockConverter{lines: splitLines(data), out: make([]byte, 0, len(data))}
	first := c.nextContent(0)
	if first == len(c.lines) {
		return nil, "", "", false
	}
	text, col := c.lines[first].text, c.lines[first].indent
	if item {
		if !isDash(text) {
			return nil, "", "", false
		}
		text, col = afterDash(text, col)
	}
	if len(text) == 0 {
		return nil, "", "", false
	}
	next, ok := c.mapping(first, col, text, 0)
	if !ok || c.nextContent(next) < len(c.lines) {
		return nil, "", "", false
	}
	return c.out, c.apiVersion, c.kind, true
}

// blockLine is one line of a block: its indentation and the text after it,
// without the line break; blank is true for lines with nothing but white
// space, comment for lines holding only a comment.
type blockLine struct {
	indent         int
	text           []byte
	blank, comment bool
}

func splitLines(data []byte) []blockLine {
	lines := make([]blockLine, 0, bytes.Count(data, []byte("\n"))+1)
	for pos := 0; pos < len(data); {
		end := lineEnd(data, pos)
		line := bytes.TrimRight(data[pos:end], " \r\n")
		indent := 0
		for indent < len(line) && line[indent] == ' ' {
			indent++
		}
		text := line[indent:]
		lines = append(lines, blockLine{indent: indent, text: text, blank: len(text) == 0, comment: len(text) > 0 && text[0] == '#'})
		pos = end
	}
	return lines
}

type blockConverter struct {
	lines            []blockLine
	out              []byte
	apiVersion, kind string
	// metadataNext is set while the top-level metadata value is converted,
	// whose managedFields are left out.
	metadataNext bool
}

// nextContent returns the first line from i on with content.
func (c *blockConverter) nextContent(i int) int {
	for i < len(c.lines) && (c.lines[i].blank || c.lines[i].comment) {
		i++
	}
	return i
}

func isDash(text []byte) bool {
	return len(text) > 0 && text[0] == '-' && (len(text) == 1 || text[1] == ' ')
}

// afterDash returns what follows a "- " and the column it starts at.
func afterDash(text []byte, indent int) ([]byte, int) {
	i := 1
	for i < len(text) && text[i] == ' ' {
		i++
	}
	if i < len(text) && text[i] == '#' {
		return nil, indent + i
	}
	return text[i:], indent + i
}

// node converts the block node whose first text, at column col on line i,
// is text; parent is the indentation of the collection holding it. It
// returns the line after the node.
func (c *blockConverter) node(i, col int, text []byte, parent, depth int) (int, bool) {
	if isDash(text) {
		return c.sequence(i, col, text, depth)
	}
	if _, _, isKey := splitKey(text); isKey {
		return c.mapping(i, col, text, depth)
	}
	return c.scalar(i, text, parent)
}

// value converts what follows a key or a dash: inline text, or, when there
// is none, the block on the lines below (a sequence may sit at the key's
// own indentation).
func (c *blockConverter) value(i int, rest []byte, col, depth int, sameIndentSequence bool) (int, bool) {
	if len(rest) > 0 {
		return c.scalar(i, rest, col)
	}
	j := c.nextContent(i + 1)
	if j < len(c.lines) {
		l := c.lines[j]
		if l.indent > col || sameIndentSequence && l.indent == col && isDash(l.text) {
			return c.node(j, l.indent, l.text, col, depth+1)
		}
	}
	c.out = append(c.out, "null"...)
	return i + 1, true
}

func (c *blockConverter) sequence(i, col int, text []byte, depth int) (int, bool) {
	c.out = append(c.out, '[')
	for first := true; ; first = false {
		if !first {
			c.out = append(c.out, ',')
		}
		rest, restCol := afterDash(text, col)
		var next int
		var ok bool
		if _, _, isKey := splitKey(rest); isKey && len(rest) > 0 {
			next, ok = c.mapping(i, restCol, rest, depth+1)
		} else if isDash(rest) {
			return 0, false
		} else {
			next, ok = c.value(i, rest, col, depth, false)
		}
		if !ok {
			return 0, false
		}
		j := c.nextContent(next)
		if j < len(c.lines) && c.lines[j].indent == col && isDash(c.lines[j].text) {
			i, text = j, c.lines[j].text
			continue
		}
		if j < len(c.lines) && c.lines[j].indent > col {
			return 0, false
		}
		c.out = append(c.out, ']')
		return j, true
	}
}

func (c *blockConverter) mapping(i, col int, text []byte, depth int) (int, bool) {
	isMetadata := c.metadataNext
	c.metadataNext = false
	c.out = append(c.out, '{')
	var keys []string
	emitted := 0
	for {
		key, rest, isKey := splitKey(text)
		if !isKey {
			return 0, false
		}
		for _, k := range keys {
			if k == key {
				return 0, false
			}
		}
		keys = append(keys, key)
		var next int
		if isMetadata && key == "managedFields" && len(rest) == 0 {
			next = skipLines(c.lines, i+1, col)
		} else {
			if emitted > 0 {
				c.out = append(c.out, ',')
			}
			emitted++
			c.out = appendJSONString(c.out, key)
			c.out = append(c.out, ':')
			start := len(c.out)
			c.metadataNext = depth == 0 && key == "metadata"
			var ok bool
			next, ok = c.value(i, rest, col, depth, true)
			c.metadataNext = false
			if !ok {
				return 0, false
			}
			if depth == 0 {
				switch key {
				case "apiVersion":
					c.apiVersion = jsonStringValue(c.out[start:])
				case "kind":
					c.kind = jsonStringValue(c.out[start:])
				}
			}
		}
		j := c.nextContent(next)
		if j < len(c.lines) && c.lines[j].indent == col && !isDash(c.lines[j].text) {
			i, text = j, c.lines[j].text
			continue
		}
		if j < len(c.lines) && c.lines[j].indent > col {
			return 0, false
		}
		c.out = append(c.out, '}')
		return j, true
	}
}

// skipLines returns the line after the block value of a key at indent,
// from line i: the first line with content that is less indented, or as
// indented and not an entry of the value's sequence.
func skipLines(lines []blockLine, i, indent int) int {
	for ; i < len(lines); i++ {
		l := lines[i]
		if !l.blank && !l.comment && (l.indent < indent || l.indent == indent && !isDash(l.text)) {
			return i
		}
	}
	return i
}

// splitKey splits "key: rest" into the key, as a string, and the rest
// without a trailing comment. isKey is false when text is not a mapping
// entry, or its key is not one this converter reads.
func splitKey(text []byte) (key string, rest []byte, isKey bool) {
	if len(text) == 0 {
		return "", nil, false
	}
	var after []byte
	switch text[0] {
	case '"', '\'':
		k, n, ok := quotedLine(text)
		if !ok || n >= len(text) || text[n] != ':' {
			return "", nil, false
		}
		key, after = k, text[n+1:]
	default:
		n := bytes.Index(text, []byte(": "))
		if n < 0 {
			if text[len(text)-1] != ':' {
				return "", nil, false
			}
			n = len(text) - 1
		}
		k := text[:n]
		if !plainString(k) || bytes.Contains(k, []byte(" #")) {
			return "", nil, false
		}
		key, after = string(k), text[n+1:]
	}
	if len(after) > 0 && after[0] != ' ' {
		return "", nil, false
	}
	after = bytes.TrimLeft(after, " ")
	if len(after) > 0 && after[0] == '#' {
		after = nil
	}
	return key, after, true
}

// quotedLine reads a quoted scalar that ends on its line, returning its
// value and the index after the closing quote.
func quotedLine(text []byte) (string, int, bool) {
	var b []byte
	b, n, ok := readQuoted(b, text, 0)
	if !ok || n < 0 {
		return "", 0, false
	}
	return string(b), n, true
}

// readQuoted appends the value of the quoted scalar text[0:] opens (or
// continues, from index from) to b, up to its closing quote or the end of
// the line. n is the index after the closing quote, or -1 when the scalar
// goes on to the next line.
func readQuoted(b, text []byte, from int) (_ []byte, n int, ok bool) {
	quote := text[0]
	i := from
	if i == 0 {
		i = 1
	}
	for i < len(text) {
		ch := text[i]
		switch {
		case ch == quote && quote == '\'' && i+1 < len(text) && text[i+1] == '\'':
			b = append(b, '\'')
			i += 2
		case ch == quote:
			return b, i + 1, true
		case ch == '\\' && quote == '"':
			if i+1 >= len(text) {
				return b, 0, false
			}
			r, size, ok := unescape(text[i+1:])
			if !ok {
				return b, 0, false
			}
			b = utf8.AppendRune(b, r)
			i += 1 + size
		default:
			b = append(b, ch)
			i++
		}
	}
	return b, -1, true
}

// unescape reads one escape of a double-quoted scalar (after the
// backslash): its rune and how many bytes it took.
func unescape(s []byte) (rune, int, bool) {
	switch s[0] {
	case '"', '\\', '/':
		return rune(s[0]), 1, true
	case 'n':
		return '\n', 1, true
	case 't':
		return '\t', 1, true
	case 'r':
		return '\r', 1, true
	case 'b':
		return '\b', 1, true
	case 'f':
		return '\f', 1, true
	case '0':
		return 0, 1, true
	case 'x', 'u', 'U':
		size := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[0]]
		if len(s) < 1+size {
			return 0, 0, false
		}
		v, err := strconv.ParseUint(string(s[1:1+size]), 16, 32)
		if err != nil || !utf8.ValidRune(rune(v)) {
			return 0, 0, false
		}
		return rune(v), 1 + size, true
	}
	return 0, 0, false
}

// scalar converts the scalar that starts with text on line i, folded over
// the following lines indented more than parent.
func (c *blockConverter) scalar(i int, text []byte, parent int) (int, bool) {
	switch text[0] {
	case '"', '\'':
		return c.quoted(i, text, parent)
	case '{', '[':
		n, ok := c.flow(text, 0)
		if !ok {
			return 0, false
		}
		if rest := bytes.TrimLeft(text[n:], " "); len(rest) > 0 && rest[0] != '#' {
			return 0, false
		}
		return i + 1, true
	}
	if n := bytes.Index(text, []byte(" #")); n >= 0 {
		text = bytes.TrimRight(text[:n], " ")
	}
	next := i + 1
	var folded []byte
	for next < len(c.lines) && !c.lines[next].blank && c.lines[next].indent > parent {
		if c.lines[next].comment {
			return 0, false
		}
		if folded == nil {
			folded = append([]byte(nil), text...)
		}
		folded = append(append(folded, ' '), c.lines[next].text...)
		next++
	}
	if folded != nil {
		if bytes.Contains(folded, []byte(" #")) {
			return 0, false
		}
		text = folded
	}
	if j := c.nextContent(next); j > next && j < len(c.lines) && c.lines[j].indent > parent {
		return 0, false
	}
	if bytes.Contains(text, []byte(": ")) || text[len(text)-1] == ':' || bytes.IndexByte(text, '\t') >= 0 {
		return 0, false
	}
	switch string(text) {
	case "~", "null", "Null", "NULL":
		c.out = append(c.out, "null"...)
		return next, true
	case "true", "True", "TRUE":
		c.out = append(c.out, "true"...)
		return next, true
	case "false", "False", "FALSE":
		c.out = append(c.out, "false"...)
		return next, true
	}
	if !c.plain(text) {
		return 0, false
	}
	return next, true
}

// plain converts a plain scalar other than null and the booleans.
func (c *blockConverter) plain(text []byte) bool {
	switch {
	case plainInt(text):
		c.out = append(c.out, text...)
	case plainString(text):
		c.out = appendJSONString(c.out, string(text))
	default:
		return false
	}
	return true
}

// flow converts a flow collection that ends on its line, starting at
// text[i], and returns the index after it. Its scalars are read as in block
// context; anything else (a multi-line collection, a plain key without ": ",
// an empty entry) is refused.
func (c *blockConverter) flow(text []byte, i int) (int, bool) {
	open := text[i]
	closing := byte(']')
	if open == '{' {
		closing = '}'
	}
	c.out = append(c.out, open)
	i = skipBlanks(text, i+1)
	if i < len(text) && text[i] == closing {
		c.out = append(c.out, closing)
		return i + 1, true
	}
	var keys []string
	for n := 0; ; n++ {
		if n > 0 {
			c.out = append(c.out, ',')
		}
		if open == '{' {
			key, end, ok := flowKey(text, i)
			if !ok || slices.Contains(keys, key) {
				return 0, false
			}
			keys = append(keys, key)
			c.out = appendJSONString(c.out, key)
			c.out = append(c.out, ':')
			i = skipBlanks(text, end)
		}
		var ok bool
		if i, ok = c.flowValue(text, i); !ok {
			return 0, false
		}
		i = skipBlanks(text, i)
		switch {
		case i < len(text) && text[i] == closing:
			c.out = append(c.out, closing)
			return i + 1, true
		case i < len(text) && text[i] == ',':
			i = skipBlanks(text, i+1)
			if i >= len(text) || text[i] == closing || text[i] == ',' {
				return 0, false
			}
		default:
			return 0, false
		}
	}
}

func skipBlanks(text []byte, i int) int {
	for i < len(text) && text[i] == ' ' {
		i++
	}
	return i
}

// flowKey reads the key of a flow mapping entry starting at text[i] and
// returns it and the index after its ": ".
func flowKey(text []byte, i int) (string, int, bool) {
	var key string
	var end int
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		k, n, ok := quotedLine(text[i:])
		if !ok {
			return "", 0, false
		}
		key, end = k, i+n
	} else {
		n := bytes.Index(text[i:], []byte(": "))
		if n < 0 {
			return "", 0, false
		}
		k := text[i : i+n]
		if !plainString(k) || bytes.ContainsAny(k, ",[]{}#") {
			return "", 0, false
		}
		key, end = string(k), i+n
	}
	if end+1 >= len(text) || text[end] != ':' || text[end+1] != ' ' {
		return "", 0, false
	}
	return key, end + 2, true
}

// flowValue converts one value of a flow collection starting at text[i].
func (c *blockConverter) flowValue(text []byte, i int) (int, bool) {
	if i >= len(text) {
		return 0, false
	}
	switch text[i] {
	case '{', '[':
		return c.flow(text, i)
	case '"', '\'':
		v, n, ok := quotedLine(text[i:])
		if !ok {
			return 0, false
		}
		c.out = appendJSONString(c.out, v)
		return i + n, true
	}
	end := i
	for end < len(text) && bytes.IndexByte([]byte(",[]{}"), text[end]) < 0 {
		end++
	}
	v := bytes.TrimRight(text[i:end], " ")
	if len(v) == 0 || bytes.Contains(v, []byte(": ")) || bytes.Contains(v, []byte(" #")) || v[len(v)-1] == ':' {
		return 0, false
	}
	switch string(v) {
	case "~", "null", "Null", "NULL":
		c.out = append(c.out, "null"...)
	case "true", "True", "TRUE":
		c.out = append(c.out, "true"...)
	case "false", "False", "FALSE":
		c.out = append(c.out, "false"...)
	default:
		if !c.plain(v) {
			return 0, false
		}
	}
	return end, true
}

// quoted converts a quoted scalar, folded over the following lines: a line
// break becomes a space, each empty line a line break.
func (c *blockConverter) quoted(i int, text []byte, parent int) (int, bool) {
	var b []byte
	line := text
	from := 0
	for {
		var n int
		var ok bool
		b, n, ok = readQuoted(b, line, from)
		if !ok {
			return 0, false
		}
		if n >= 0 {
			rest := bytes.TrimLeft(line[n:], " ")
			if len(rest) > 0 && rest[0] != '#' {
				return 0, false
			}
			c.out = appendJSONString(c.out, string(b))
			return i + 1, true
		}
		if len(line) > 0 && line[len(line)-1] == '\\' {
			return 0, false
		}
		b = bytes.TrimRight(b, " ")
		i++
		breaks := 0
		for i < len(c.lines) && c.lines[i].blank {
			breaks++
			i++
		}
		if i >= len(c.lines) || c.lines[i].indent <= parent {
			return 0, false
		}
		if breaks == 0 {
			b = append(b, ' ')
		}
		for range breaks {
			b = append(b, '\n')
		}
		// The continuation is read as if the opening quote stood before it.
		line = append([]byte{text[0]}, c.lines[i].text...)
		from = 1
	}
}

// plainInt reports whether a plain scalar is a decimal integer that every
// YAML version reads the same way (no sign but minus, no leading zero, no
// underscores, small enough for int64).
func plainInt(s []byte) bool {
	if len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	if len(s) == 0 || len(s) > 18 || s[0] == '0' && len(s) > 1 {
		return false
	}
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			return false
		}
	}
	return true
}

// plainString reports whether a plain scalar is a string for YAML 1.1 and
// 1.2 alike: it starts with a letter or '/' and is no boolean or null word,
// or it starts with a digit, holds only letters, digits and dashes, is not
// a date, and has a letter no number has (a quantity like 500m or 1Gi, a
// hex hash, a UID).
func plainString(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	ch := s[0]
	switch {
	case ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '/':
		switch string(bytes.ToLower(s)) {
		case "y", "yes", "n", "no", "on", "off", "true", "false", "null":
			return false
		}
		return true
	case ch >= '0' && ch <= '9':
		if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'b') {
			return false
		}
		if len(s) > 4 && s[4] == '-' && bytes.IndexFunc(s[:4], func(r rune) bool { return r < '0' || r > '9' }) < 0 {
			return false // a date or timestamp
		}
		letter := false
		for _, ch := range s {
			switch {
			case ch >= '0' && ch <= '9', ch == '-':
			case ch == 'e' || ch == 'E':
			case ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z':
				letter = true
			default:
				return false
			}
		}
		return letter
	}
	return false
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch >= 0x20 && ch != '"' && ch != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch ch {
		case '"', '\\':
			b = append(b, '\\', ch)
		default:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[ch>>4], "0123456789abcdef"[ch&0xf])
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// jsonStringValue returns the string a JSON value written by
// appendJSONString holds, or "" when it is not a string without escapes.
func jsonStringValue(v []byte) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' || bytes.IndexByte(v[1:len(v)-1], '\\') >= 0 || bytes.IndexByte(v[1:len(v)-1], '"') >= 0 {
		return ""
	}
	return string(v[1 : len(v)-1])
}
