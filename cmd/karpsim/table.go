package main

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// tableWidth is the most runes a line of -o table takes. -o wide prints
// every column, a row a line, however long, as kubectl does.
const tableWidth = 120

// writeTable prints what write prints, for -o table or -o wide. Trailing
// spaces go; with -o table, a line wider than tableWidth is folded at
// spaces, its continuation lines indented to where its last column starts,
// so that a free-text last column (a reason, a message) wraps under
// itself.
func writeTable(w io.Writer, output string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	width := tableWidth
	if output == "wide" {
		width = 0
	}
	var out bytes.Buffer
	text := buf.String()
	for len(text) > 0 {
		line, rest, newline := strings.Cut(text, "\n")
		text = rest
		line = strings.TrimRight(line, " ")
		if width > 0 {
			line = foldLine(line, width)
		}
		out.WriteString(line)
		if newline {
			out.WriteByte('\n')
		}
	}
	_, err := w.Write(out.Bytes())
	return err
}

// foldLine folds a line wider than width runes into lines of at most
// width, breaking at the last space that fits (or, in a word longer than
// a continuation line, at the width), each continuation indented as
// lastColumn says.
func foldLine(line string, width int) string {
	if utf8.RuneCountInString(line) <= width {
		return line
	}
	runes := []rune(line)
	indent := lastColumn(runes, width)
	var out strings.Builder
	start := 0
	for first := true; ; first = false {
		pad := 0
		if !first {
			pad = indent
		}
		room := width - pad
		if len(runes)-start <= room {
			out.WriteString(strings.Repeat(" ", pad) + string(runes[start:]))
			return out.String()
		}
		end := start + room
		cut := end
		// The first segment keeps what comes before the last column whole.
		low := start
		if first {
			low = indent
		}
		for i := end; i > low; i-- {
			if runes[i] == ' ' {
				cut = i
				break
			}
		}
		// A word too long for any line is cut where this line ends, not
		// moved whole to the next: "failed: /a/long/path" keeps its
		// first word with the path.
		if next := wordEnd(runes, cut+1); cut < end && next-(cut+1) > width-indent {
			cut = end
		}
		out.WriteString(strings.Repeat(" ", pad) + strings.TrimRight(string(runes[start:cut]), " ") + "\n")
		start = cut
		for start < len(runes) && runes[start] == ' ' {
			start++
		}
	}
}

// lastColumn is where the last column of a table line starts: after the
// last run of two or more spaces before width. A line with no such run, or
// whose last column would keep less than a third of the width, folds under
// its own indentation plus two.
func lastColumn(runes []rune, width int) int {
	lead := 0
	for lead < len(runes) && runes[lead] == ' ' {
		lead++
	}
	fallback := min(lead+2, width/2)
	col := -1
	for i := lead + 2; i < min(len(runes), width); i++ {
		if runes[i] != ' ' && runes[i-1] == ' ' && runes[i-2] == ' ' {
			col = i
		}
	}
	if col < 0 || width-col < width/3 {
		return fallback
	}
	return col
}

// wordEnd is the index of the first space at or after i, or the length.
func wordEnd(runes []rune, i int) int {
	for i < len(runes) && runes[i] != ' ' {
		i++
	}
	return i
}
