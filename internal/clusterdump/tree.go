package clusterdump

import (
	"bufio"
	"strconv"
	"strings"
)

// obj is a JSON object whose keys keep the order they were added in, so that
// the YAML and JSON forms of a dump list fields in the same order.
type obj []field

type field struct {
	key   string
	value any
}

// list is a JSON array.
type list []any

// null is JSON null (kubectl prints "lastProbeTime: null").
type null struct{}

// writeYAML writes m as a block mapping at indent, the way kubectl (through
// sigs.k8s.io/yaml) prints: two-space indentation, sequences at the indent
// of their key. The first line of m is prefixed with first instead of the
// indentation, so that a mapping can start on a "- " line.
func writeYAML(w *bufio.Writer, m obj, indent int, first string) {
	pad := strings.Repeat(" ", indent)
	for i, f := range m {
		if i == 0 {
			w.WriteString(first)
		} else {
			w.WriteString(pad)
		}
		w.WriteString(yamlScalar(f.key))
		w.WriteByte(':')
		switch v := f.value.(type) {
		case obj:
			if len(v) == 0 {
				w.WriteString(" {}\n")
				continue
			}
			w.WriteByte('\n')
			writeYAML(w, v, indent+2, pad+"  ")
		case list:
			if len(v) == 0 {
				w.WriteString(" []\n")
				continue
			}
			w.WriteByte('\n')
			writeYAMLList(w, v, indent)
		default:
			w.WriteByte(' ')
			w.WriteString(fold(yamlScalarValue(v), indent+len(f.key)+2, pad+"  "))
			w.WriteByte('\n')
		}
	}
}

// fold breaks a quoted scalar at spaces past column 80, continuing on lines
// indented by pad, as kubectl's YAML printer does with long messages.
func fold(s string, column int, pad string) string {
	if len(s) == 0 || s[0] != '"' || column+len(s) <= 80 {
		return s
	}
	var b strings.Builder
	for len(s) > 0 {
		cut := strings.IndexByte(s[min(len(s), max(1, 80-column)):], ' ')
		if cut < 0 {
			b.WriteString(s)
			break
		}
		cut += min(len(s), max(1, 80-column))
		b.WriteString(s[:cut])
		b.WriteString("\n" + pad)
		s = s[cut+1:]
		column = len(pad)
	}
	return b.String()
}

func writeYAMLList(w *bufio.Writer, l list, indent int) {
	pad := strings.Repeat(" ", indent)
	for _, item := range l {
		switch v := item.(type) {
		case obj:
			if len(v) == 0 {
				w.WriteString(pad + "- {}\n")
				continue
			}
			writeYAML(w, v, indent+2, pad+"- ")
		case list:
			w.WriteString(pad + "- ")
			w.WriteString("[]\n") // nested lists do not occur in the dumps
		default:
			w.WriteString(pad + "- " + yamlScalarValue(v) + "\n")
		}
	}
}

func yamlScalarValue(v any) string {
	switch t := v.(type) {
	case string:
		return yamlScalar(t)
	case int:
		return strconv.Itoa(t)
	case bool:
		return strconv.FormatBool(t)
	case null:
		return "null"
	}
	panic("clusterdump: unexpected value")
}

// yamlScalar prints s plain when YAML reads it back as the same string, and
// double-quoted otherwise.
func yamlScalar(s string) string {
	if plainSafe(s) {
		return s
	}
	return strconv.Quote(s)
}

func plainSafe(s string) bool {
	if s == "" || s[len(s)-1] == ':' {
		return false
	}
	if !isLetter(s[0]) && s[0] != '/' && !notNumber(s) {
		return false
	}
	switch strings.ToLower(s) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n", "~":
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(isLetter(c) || c >= '0' && c <= '9' || strings.IndexByte("_./:-", c) >= 0) {
			return false
		}
	}
	return !strings.Contains(s, ": ")
}

// notNumber reports whether s, which starts with a digit, holds a letter
// that no YAML 1.1 or 1.2 number has (a quantity like 500m, a hex hash), so
// that it reads back as a string.
func notNumber(s string) bool {
	if s[0] < '0' || s[0] > '9' || strings.ContainsAny(s, ":._") {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return r >= 'a' && r <= 'z' && r != 'e' && r != 'x' && r != 'b' && r != 'o' || r >= 'A' && r <= 'Z' && r != 'E'
	}) >= 0
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// writeJSON writes v the way kubectl -o json does: four-space indentation.
func writeJSON(w *bufio.Writer, v any, indent int) {
	switch t := v.(type) {
	case obj:
		if len(t) == 0 {
			w.WriteString("{}")
			return
		}
		w.WriteString("{\n")
		for i, f := range t {
			w.WriteString(strings.Repeat(" ", indent+4))
			w.WriteString(strconv.Quote(f.key))
			w.WriteString(": ")
			writeJSON(w, f.value, indent+4)
			if i < len(t)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(strings.Repeat(" ", indent) + "}")
	case list:
		if len(t) == 0 {
			w.WriteString("[]")
			return
		}
		w.WriteString("[\n")
		for i, item := range t {
			w.WriteString(strings.Repeat(" ", indent+4))
			writeJSON(w, item, indent+4)
			if i < len(t)-1 {
				w.WriteByte(',')
			}
			w.WriteByte('\n')
		}
		w.WriteString(strings.Repeat(" ", indent) + "]")
	case string:
		w.WriteString(strconv.Quote(t))
	default:
		w.WriteString(yamlScalarValue(t))
	}
}
