package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// manifestExtensions are the file name endings Load reads inside folders;
// files named explicitly are read whatever their name.
var manifestExtensions = []string{".yaml", ".yml", ".json"}

// Load reads the manifests in the given files and folders (recursively,
// .yaml, .yml and .json files in lexical order) into one Set, then checks
// the objects against each other: NodePools must name EC2NodeClasses that
// were given, and no two objects of a kind may share a name.
//
// The Set is never nil: it holds every object that could be decoded, even
// when the error is not nil. The error joins one *Error per problem, in
// input order; use errors.Is with the Err sentinels to tell them apart.
func Load(paths ...string) (*Set, error) {
	return LoadWith(paths)
}

// Stream is a stream of manifests held in memory, named Name in sources and
// errors.
type Stream struct {
	Name string
	Data []byte
}

// LoadWith reads the given files and folders as Load does, then the
// streams as Decode does, into one Set, and checks all their objects
// against each other: a NodePool in a stream may name an EC2NodeClass from
// a file.
func LoadWith(paths []string, streams ...Stream) (*Set, error) {
	inputs := make([]Input, 0, len(paths)+len(streams))
	for _, path := range paths {
		inputs = append(inputs, Input{Path: path})
	}
	for _, st := range streams {
		inputs = append(inputs, Input{Stream: st})
	}
	return LoadInputs(inputs...)
}

// Input is one source of manifests for LoadInputs: the file or folder at
// Path, or, when Path is empty, Stream. A command line that mixes files
// with standard input ("-f a.yaml -f -") is a list of Inputs.
type Input struct {
	Path   string
	Stream Stream
	// Reader, when not nil, is read in place of Stream.Data, as
	// LoadReader reads it, named Stream.Name: standard input is decoded
	// as it arrives.
	Reader io.Reader
}

// LoadInputs reads the inputs in the order given, files and folders as Load
// does and streams as Decode does, into one Set, and checks all their
// objects against each other, as LoadWith does. The Set keeps the order of
// the inputs.
func LoadInputs(inputs ...Input) (*Set, error) {
	return LoadLimited(Limits{}, inputs...)
}

// LoadLimited reads the inputs as LoadInputs does, within the given limits
// instead of the defaults. An input that holds no object karpsim reads (an
// empty file, only comments, only kinds karpsim skips) is an error: it is
// what a failed `kubectl get` or a wrong path leaves, and deciding on
// nothing would hide that.
func LoadLimited(lim Limits, inputs ...Input) (*Set, error) {
	l := newLoader()
	l.limits = lim
	for _, in := range inputs {
		before, errs, warnings := l.set.size(), l.errs.Len(), len(l.set.Warnings)
		name := in.Path
		switch {
		case in.Path == "" && in.Reader != nil:
			name = in.Stream.Name
			l.decodeReader(in.Stream.Name, in.Reader)
		case in.Path == "":
			name = in.Stream.Name
			l.decodeStream(in.Stream.Name, in.Stream.Data)
		default:
			l.readPath(in.Path)
		}
		if l.set.size() == before && l.errs.Len() == errs {
			l.fail(Source{File: name}, "", "", ErrEmpty, "no objects: it holds no manifest of a kind karpsim reads"+skipped(l.set.Warnings[warnings:]))
		}
	}
	return l.done()
}

// skipped names the first objects the warnings say were skipped, for the
// error about an input without any object karpsim reads.
func skipped(warnings []Warning) string {
	var names []string
	for _, w := range warnings {
		if w.Skipped() && w.Object != "" {
			names = append(names, w.Object)
		}
	}
	switch {
	case len(names) == 0:
		return ""
	case len(names) > 3:
		return fmt.Sprintf(" (it skipped %s and %d more)", strings.Join(names[:3], ", "), len(names)-3)
	default:
		return " (it skipped " + strings.Join(names, ", ") + ")"
	}
}

// readPath decodes the file at path, or every manifest file under the
// folder at path.
func (l *loader) readPath(path string) {
	files, err := manifestFiles(path)
	if err != nil {
		l.fail(Source{File: path}, "", "", ErrRead, err.Error())
	}
	for _, file := range files {
		f, size, err := openFile(file)
		if err != nil {
			l.fail(Source{File: file}, "", "", ErrRead, err.Error())
			continue
		}
		if l.tooLarge(file, size) {
			f.Close()
			continue
		}
		l.decodeReader(file, f)
		f.Close()
	}
}

// Decode reads one stream of manifests, named name in sources and errors,
// as Load reads one file, including the checks across objects. It does not
// modify data.
func Decode(name string, data []byte) (*Set, error) {
	l := newLoader()
	l.decodeStream(name, data)
	return l.done()
}

// DecodePart reads one stream as Decode does, for objects that join a set
// read before: a NodePool may name an EC2NodeClass the stream does not hold,
// which the caller resolves (the simulator's nodePool step uses a class the
// run already knows). Every other check is Decode's.
func DecodePart(name string, data []byte) (*Set, error) {
	l := newLoader()
	l.part = true
	l.decodeStream(name, data)
	return l.done()
}

// Files lists the files Load reads for a path: the path itself when it is
// a file, else every .yaml, .yml and .json file under the folder, in
// lexical order. A caller that reads the files itself (a sweep patching
// them) reads the same ones.
func Files(path string) ([]string, error) { return manifestFiles(path) }

func manifestFiles(path string) ([]string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	var files []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		ext := strings.ToLower(filepath.Ext(p))
		if !d.IsDir() && slices.Contains(manifestExtensions, ext) {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// document is one YAML document or JSON value of a stream.
type document struct {
	data []byte
	// first is the line of data's first byte; src.Line is the line of its
	// first content.
	first int
	src   Source
	// json is true when data is JSON, which needs no conversion from YAML.
	json bool
	// cut is the List data holds, when it was cut while the stream was.
	cut *listCut
	// streamed is the List a YAML document holds, whose items were handed
	// to the workers as they were read.
	streamed *yamlCut
}

// listCut is a List document cut into its items and the rest.
type listCut struct {
	header []byte
	items  [][]byte
}

var utf8BOM = []byte("\xef\xbb\xbf")

// decodeStream decodes every document of one stream held in memory.
func (l *loader) decodeStream(file string, data []byte) {
	l.decodeReader(file, bytes.NewReader(data))
}

func isJSON(file string, data []byte) bool {
	if strings.EqualFold(filepath.Ext(file), ".json") {
		return true
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[')
}

// documentMarker reports whether line starts or ends a document, and
// returns what follows a "---" on the same line.
func documentMarker(line []byte) (bool, []byte) {
	for _, marker := range [][]byte{[]byte("---"), []byte("...")} {
		if !bytes.HasPrefix(line, marker) {
			continue
		}
		rest := line[3:]
		if len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\r' || rest[0] == '\n' {
			if marker[0] == '.' {
				return true, nil
			}
			return true, rest
		}
	}
	return false, nil
}

// splitJSON cuts a stream of concatenated JSON values, the rest of a
// stream after before values, data starting on line first.
func (l *loader) splitJSON(file string, data []byte, before, first int) []document {
	var docs []document
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		start := dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return docs
		}
		offset := start + int64(len(data[start:])-len(bytes.TrimLeft(data[start:], " \t\r\n")))
		line := first + bytes.Count(data[:offset], []byte("\n"))
		src := Source{File: file, Document: before + len(docs) + 1, Line: line}
		if err != nil {
			var syntax *json.SyntaxError
			if errors.As(err, &syntax) {
				line = first + bytes.Count(data[:min(int(syntax.Offset), len(data))], []byte("\n"))
			}
			l.fail(src, "", "", ErrMalformed, fmt.Sprintf("document %d: line %d: %s", src.Document, line, strings.TrimPrefix(err.Error(), "json: ")))
			return docs
		}
		docs = append(docs, document{data: raw, first: line, src: src, json: true})
	}
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// parse turns a document into a generic JSON tree (maps, slices, strings,
// int64, float64, bool, nil). ok is false for empty documents and errors.
func (l *loader) parse(doc document) (map[string]any, bool) {
	j, err := doc.data, error(nil)
	if !doc.json {
		// Strict, as kubectl's default validation: a key given twice in
		// one map is refused, not read as its last value.
		j, err = yaml.YAMLToJSONStrict(doc.data)
	}
	if err != nil {
		l.fail(doc.src, "", "", ErrMalformed, l.yamlMessage(doc, err))
		return nil, false
	}
	var tree any
	if err := unmarshalTree(j, &tree); err != nil {
		l.fail(doc.src, "", "", ErrMalformed, fmt.Sprintf("%s: %s", doc.src.where(), err))
		return nil, false
	}
	switch t := tree.(type) {
	case nil:
		return nil, false
	case map[string]any:
		return t, true
	default:
		l.fail(doc.src, "", "", ErrMalformed, fmt.Sprintf("%s: not an object with apiVersion and kind, but %s", doc.src.where(), describeValue(tree)))
		return nil, false
	}
}

// unmarshalTree decodes JSON into a generic tree as the API server reads
// it: case-sensitively, integers kept as integers, and a key given twice in
// one object refused, as kubectl's default (strict) validation refuses it.
func unmarshalTree(data []byte, v any) error {
	strict, err := sigsjson.UnmarshalStrict(data, v, sigsjson.DisallowDuplicateFields)
	if err != nil {
		return err
	}
	if len(strict) > 0 {
		return strict[0]
	}
	return nil
}

// yamlMessage rewrites a YAML error's line numbers, which count from the
// start of the document, to lines of the file.
func (l *loader) yamlMessage(doc document, err error) string {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	msg = strings.TrimPrefix(msg, "yaml: ")
	msg = strings.ReplaceAll(msg, "\n ", "")
	msg = strings.TrimPrefix(msg, "unmarshal errors: ")
	msg = strings.TrimSpace(msg)
	hasLine := false
	msg = yamlLine.ReplaceAllStringFunc(msg, func(m string) string {
		n, _ := strconv.Atoi(strings.TrimPrefix(m, "line "))
		hasLine = true
		return "line " + strconv.Itoa(n+doc.first-1)
	})
	if hasLine {
		return fmt.Sprintf("document %d: %s", doc.src.Document, msg)
	}
	return fmt.Sprintf("%s: %s", doc.src.where(), msg)
}
