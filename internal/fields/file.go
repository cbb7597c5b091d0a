package fields

import (
	"bytes"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// File places problems in a YAML file, for errors that start with the
// file's name and the line at fault ("my.yaml:14: "). The zero File
// places nothing.
type File struct {
	// Name names the file; "" leaves it out ("line 14: ").
	Name string
	Data []byte
	// doc is Data parsed, on the first call that needs it; parsed is set
	// then, whether or not Data parsed.
	doc    *yaml.Node
	parsed bool
}

// Document is the file parsed, once; nil when it does not parse.
func (f *File) Document() *yaml.Node {
	if !f.parsed {
		f.parsed = true
		var doc yaml.Node
		if f.Data != nil && yaml.Unmarshal(f.Data, &doc) == nil {
			f.doc = &doc
		}
	}
	return f.doc
}

// Prefix starts an error about the field at path (as Check writes paths):
// "name:line: ", "name: ", "line N: " or "", as far as they are known.
func (f *File) Prefix(path string) string {
	line := 0
	if path != "" {
		line = Line(f.Document(), path)
	}
	return f.At(line)
}

// At starts an error about a line (0 for none) as Prefix does. A file
// written on one line (JSON a program made) has no line worth naming.
func (f *File) At(line int) string {
	if !bytes.Contains(bytes.TrimSpace(f.Data), []byte("\n")) {
		line = 0
	}
	switch {
	case f.Name != "" && line > 0:
		return f.Name + ":" + strconv.Itoa(line) + ": "
	case f.Name != "":
		return f.Name + ": "
	case line > 0:
		return "line " + strconv.Itoa(line) + ": "
	}
	return ""
}
