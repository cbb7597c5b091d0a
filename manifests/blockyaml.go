package manifests

import (
	"bytes"
	"sync"
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
	if !printable(data) {
		return nil, "", "", false
	}
	lines := linePool.Get().(*[]blockLine)
	defer func() { *lines = (*lines)[:0]; linePool.Put(lines) }()
	*lines = splitLines(*lines, data)
	c := blockConverter{lines: *lines, out: make([]byte, 0, len(data))}
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

// printable reports whether data is UTF-8 holding only characters YAML
// allows in a stream, with no line break but "\n" and "\r\n".
func printable(data []byte) bool {
	for i := 0; i < len(data); {
		b := data[i]
		if b < 0x80 {
			if b < 0x20 && b != '\t' && b != '\n' && b != '\r' || b == 0x7f || b == '\r' && (i+1 == len(data) || data[i+1] != '\n') {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1,
			r >= 0x80 && r <= 0x9f && r != 0x85,
			r >= 0xd800 && r <= 0xdfff,
			r == 0xfeff, r == 0xfffe, r == 0xffff:
			return false
		}
		i += size
	}
	return true
}

// blockLine is one line of a block: its indentation and the text after it,
// without the line break; blank is true for lines with nothing but white
// space, comment for lines holding only a comment.
type blockLine struct {
	indent         int
	text           []byte
	blank, comment bool
}

// linePool keeps the line tables of converted documents for the next.
var linePool = sync.Pool{New: func() any { return new([]blockLine) }}

// splitLines appends data's lines to lines.
func splitLines(lines []blockLine, data []byte) []blockLine {
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
	// nesting counts the collections open, up to maxBlockNesting.
	nesting int
}

// maxSimpleKey is the longest key YAML reads on one line with its value.
const maxSimpleKey = 1024

// maxBlockNesting is how deeply collections may nest for the converter;
// deeper ones (no Kubernetes object nests so deep) go to the YAML parser,
// which bounds them itself.
const maxBlockNesting = 64

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
	if c.nesting++; c.nesting > maxBlockNesting {
		return 0, false
	}
	defer func() { c.nesting-- }()
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
	if c.nesting++; c.nesting > maxBlockNesting {
		return 0, false
	}
	defer func() { c.nesting-- }()
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
		if !plainString(k) || bytes.Contains(k, []byte(" #")) || k[len(k)-1] == ' ' {
			return "", nil, false
		}
		key, after = string(k), text[n+1:]
	}
	if len(after) > 0 && after[0] != ' ' || len(text)-len(after) > maxSimpleKey {
		return "", nil, false
	}
	after = bytes.TrimLeft(after, " ")
	if len(after) > 0 && after[0] == '#' {
		after = nil
	}
	return key, after, true
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
	commented := false
	if n := bytes.Index(text, []byte(" #")); n >= 0 {
		text, commented = bytes.TrimRight(text[:n], " "), true
	}
	next := i + 1
	var folded []byte
	for next < len(c.lines) && !c.lines[next].blank && c.lines[next].indent > parent {
		if c.lines[next].comment || commented {
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
			if len(rest) > 0 && (rest[0] != '#' || len(rest) == len(line[n:])) {
				return 0, false
			}
			c.out = appendJSONString(c.out, b)
			return i + 1, true
		}
		// A folded line's trailing white space is dropped, unless escaped:
		// lines with escapes are left to the parser.
		if text[0] == '"' && bytes.IndexByte(line[from:], '\\') >= 0 {
			return 0, false
		}
		b = bytes.TrimRight(b, " \t")
		i++
		breaks := 0
		for i < len(c.lines) && c.lines[i].blank {
			breaks++
			i++
		}
		if i >= len(c.lines) || c.lines[i].indent <= parent || c.lines[i].text[0] == '\t' {
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
