package manifests

import (
	"bytes"
	"slices"
	"strconv"
	"unicode/utf8"
)

// The scalars and one-line flow collections blockYAMLToJSON reads.

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
	case '"', '\\':
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

// plain converts a plain scalar other than null and the booleans.
func (c *blockConverter) plain(text []byte) bool {
	switch {
	case plainInt(text):
		c.out = append(c.out, text...)
	case plainString(text):
		c.out = appendJSONString(c.out, text)
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
	if c.nesting++; c.nesting > maxBlockNesting {
		return 0, false
	}
	defer func() { c.nesting-- }()
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
		if !plainString(k) || bytes.ContainsAny(k, ",[]{}#") || k[len(k)-1] == ' ' {
			return "", 0, false
		}
		key, end = string(k), i+n
	}
	if end+1 >= len(text) || text[end] != ':' || text[end+1] != ' ' || end-i > maxSimpleKey {
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
	// Indicators inside flow scalars read differently across parsers and
	// YAML versions: such scalars are left to the parser.
	if len(v) == 0 || bytes.ContainsAny(v, "?:!&*|>'\"%@`#\t") {
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
	if len(s) == 0 || bytes.IndexByte(s, '\t') >= 0 {
		return false
	}
	ch := s[0]
	switch {
	case ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch == '/':
		if len(s) > 5 {
			return true
		}
		for _, word := range []string{"y", "yes", "n", "no", "on", "off", "true", "false", "null"} {
			if bytes.EqualFold(s, []byte(word)) {
				return false
			}
		}
		return true
	case ch >= '0' && ch <= '9':
		if len(s) > 1 && s[0] == '0' && bytes.IndexByte([]byte("xXoObB"), s[1]) >= 0 {
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
func appendJSONString[S ~string | ~[]byte](b []byte, s S) []byte {
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
