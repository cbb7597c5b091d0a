package manifests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
)

// LoadReader reads one stream of manifests from r (standard input, a pipe,
// a file already open), named name in sources and errors, as Load reads one
// file, including the checks across objects. YAML is read one document at a
// time, and the items of a List are decoded in parallel, one item at a time.
func LoadReader(name string, r io.Reader) (*Set, error) {
	l := newLoader()
	l.decodeReader(name, r, 0)
	return l.done()
}

// readerBuffer is the size of the buffer documents are read through.
const readerBuffer = 1 << 16

// decodeReader decodes every document of one stream. sizeHint, when not 0,
// is the stream's length, so that a stream of one large document is read
// into one allocation.
func (l *loader) decodeReader(file string, r io.Reader, sizeHint int64) {
	br := bufio.NewReaderSize(io.LimitReader(r, l.limits.maxBytes()+1), readerBuffer)
	if json, err := startsLikeJSON(file, br); err != nil {
		l.fail(Source{File: file}, "", "", ErrRead, err.Error())
		return
	} else if json {
		l.decodeJSONReader(file, br)
		return
	}
	docs := &yamlReader{r: br, file: file, hint: min(sizeHint, l.limits.maxBytes()), maxLine: l.limits.maxObjectBytes()}
	p := l.startDocuments()
	defer func() { p.wait() }()
	for {
		doc, ok := docs.next()
		if docs.err != nil || docs.read > l.limits.maxBytes() || !ok {
			p.wait()
			if errors.Is(docs.err, errLongLine) {
				l.fail(Source{File: file}, "", "", ErrTooLarge, fmt.Sprintf("line %d: longer than %s: karpsim reads objects of at most %s (the API server stores none over 1.5 MiB)",
					docs.lineNo+1, formatBytes(docs.maxLine), formatBytes(docs.maxLine)))
			} else if docs.err != nil {
				l.fail(Source{File: file}, "", "", ErrRead, docs.err.Error())
			} else {
				l.tooLarge(file, docs.read)
			}
			return
		}
		if l.refuseTinyExponent(doc) {
			continue
		}
		if mayBeList(doc.data) {
			p.wait()
			handled := l.decodeListDocument(doc)
			p = l.startDocuments()
			if handled {
				continue
			}
		}
		if l.objects >= l.limits.maxObjects() {
			p.wait()
			l.admit(doc.src, 1)
			return
		}
		if !mayBeList(doc.data) && l.objectTooLarge(doc.src, len(doc.data)) {
			continue
		}
		l.objects++
		p.submit(doc)
	}
}

// mayBeList reports whether a YAML document has a top-level items key, so
// that it may be a List for decodeListDocument.
func mayBeList(data []byte) bool {
	return bytes.HasPrefix(data, []byte("items:")) || bytes.Contains(data, []byte("\nitems:"))
}

// documents decodes the documents of a stream on GOMAXPROCS workers, each
// into a loader of its own, and adds the results to the loader in input
// order. The loader must not be used by anyone else until wait returns.
type documents struct {
	jobs    chan docJob
	pending chan chan *loader
	merged  chan struct{}
}

type docJob struct {
	doc document
	out chan *loader
}

func (l *loader) startDocuments() *documents {
	workers := l.workerCount()
	p := &documents{
		jobs:    make(chan docJob, workers),
		pending: make(chan chan *loader, workers*listWindow),
		merged:  make(chan struct{}),
	}
	for range workers {
		go func() {
			for job := range p.jobs {
				job.out <- l.decodeWholeDocument(job.doc)
			}
		}()
	}
	go func() {
		for out := range p.pending {
			l.absorb(<-out)
		}
		close(p.merged)
	}()
	return p
}

func (p *documents) submit(doc document) {
	out := make(chan *loader, 1)
	p.pending <- out
	p.jobs <- docJob{doc: doc, out: out}
}

// wait decodes what was submitted and stops the workers; it may be called
// more than once.
func (p *documents) wait() {
	select {
	case <-p.merged:
		return
	default:
	}
	close(p.jobs)
	close(p.pending)
	<-p.merged
}

// decodeWholeDocument decodes one document that is not decoded item by
// item into a loader of its own. A document in the block style
// blockDocumentToJSON reads skips the YAML parser, and one of a core kind
// that decodes strictly the tree too.
func (l *loader) decodeWholeDocument(doc document) *loader {
	c := l.child()
	if !doc.json && !l.reference {
		if j, apiVersion, kind, ok := blockDocumentToJSON(doc.data); ok {
			if c.decodeStrict(doc.src, j, apiVersion, kind) {
				return c
			}
			var tree map[string]any
			if err := unmarshalTree(j, &tree); err == nil && tree != nil {
				c.decodeObject(doc.src, tree, "", "", 0)
				return c
			}
		}
	}
	if tree, ok := c.parse(doc); ok {
		c.decodeObject(doc.src, tree, "", "", 0)
	}
	return c
}

// decodeJSONFrom decodes the rest of a stream of JSON values, held in
// memory, after the values it has before (line is the line data starts
// on), cutting one value at a time: a List is cut into its items in the
// same pass and checked as they are decoded; any other value is checked
// before it is decoded. A syntax error is reported as the whole-stream
// decoder reports it, before the problems of the values before it (those
// from the error mark on), and ends the stream.
func (l *loader) decodeJSONFrom(file string, data []byte, mark, before, line int) {
	first := line
	syntaxError := func() {
		at := len(l.errs)
		l.splitJSON(file, data, before, first)
		syntax := slices.Clone(l.errs[at:])
		l.errs = slices.Insert(l.errs[:at], mark, syntax...)
	}
	counted, values := 0, before
	for i := skipSpace(data, 0); i < len(data); i = skipSpace(data, i) {
		line += bytes.Count(data[counted:i], []byte("\n"))
		counted = i
		values++
		doc := document{first: line, src: Source{File: file, Document: values, Line: line}, json: true}
		if header, items, n, ok := splitJSONList(data[i:]); ok && !l.reference {
			doc.data, doc.cut = data[i:i+n], &listCut{header: header, items: items}
		} else if end := skipValue(data, i); end > i {
			doc.data = data[i:end]
		} else {
			syntaxError()
			return
		}
		i += len(doc.data)
		if l.refuseTinyExponent(doc) {
			continue
		}
		if l.decodeListDocument(doc) {
			continue
		}
		if doc.cut == nil && l.objectTooLarge(doc.src, len(doc.data)) {
			continue
		}
		if !json.Valid(doc.data) {
			syntaxError()
			return
		}
		if tree, ok := l.parse(doc); ok {
			l.decodeDocument(doc.src, tree)
		}
	}
}

// tooLarge reports, once, that a stream is over the size limit.
func (l *loader) tooLarge(file string, read int64) bool {
	if read <= l.limits.maxBytes() {
		return false
	}
	l.fail(Source{File: file}, "", "", ErrTooLarge, fmt.Sprintf("more than %s: karpsim reads at most %s from one file or stream (a dump of a real cluster is far smaller)",
		formatBytes(l.limits.maxBytes()), formatBytes(l.limits.maxBytes())))
	return true
}

// startsLikeJSON reports whether a stream is JSON: named .json, or starting
// (after a byte order mark and white space) with '{' or '['. It drops the
// byte order mark.
func startsLikeJSON(file string, br *bufio.Reader) (bool, error) {
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	if isJSON(file, nil) {
		return true, nil
	}
	for n := 512; ; n *= 2 {
		head, err := br.Peek(n)
		trimmed := bytes.TrimLeft(head, " \t\r\n")
		if len(trimmed) > 0 {
			return trimmed[0] == '{' || trimmed[0] == '[', nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull) {
				return false, nil
			}
			return false, err
		}
	}
}

// yamlReader cuts a YAML stream into documents at their markers ("---" and
// "..."), reading one document at a time, and drops documents with no
// content, numbering the others from 1.
type yamlReader struct {
	r    *bufio.Reader
	file string
	hint int64
	// read counts the bytes read so far.
	read int64
	err  error
	// maxLine bounds a line: no object holds a longer one, and reading it
	// whole would hold it twice.
	maxLine int64

	lineNo int
	docs   int
	// slab[start:] is the document being read; first is the line of its
	// first byte and content the line of its first content, or 0.
	slab           []byte
	start          int
	first, content int
	done           bool
}

// next returns the next document with content; ok is false at the end of
// the stream or on a read error (in err).
func (y *yamlReader) next() (doc document, ok bool) {
	if y.first == 0 {
		y.first = 1
	}
	for !y.done {
		line, err := y.readLine()
		if err != nil {
			y.err = err
			return document{}, false
		}
		if line == nil {
			y.done = true
			break
		}
		y.lineNo++
		if marker, rest := documentMarker(line); marker {
			doc, ok = y.flush(y.lineNo)
			if len(bytes.TrimSpace(rest)) == 0 {
				y.first = y.lineNo + 1
			} else {
				y.add(rest)
			}
			if ok {
				return doc, true
			}
			continue
		}
		y.add(line)
	}
	return y.flush(y.lineNo + 1)
}

// slabSize is the size of the buffers documents are read into, many small
// documents to a buffer.
const slabSize = 1 << 20

func (y *yamlReader) add(line []byte) {
	if len(y.slab)+len(line) > cap(y.slab) {
		cur := y.slab[y.start:]
		size := max(slabSize, 2*(len(cur)+len(line)))
		if y.hint > 0 {
			size = max(size, int(min(y.hint, 1<<31))+1)
			y.hint = 0
		}
		slab := make([]byte, len(cur), size)
		copy(slab, cur)
		y.slab, y.start = slab, 0
	}
	y.slab = append(y.slab, line...)
	if trimmed := bytes.TrimSpace(line); y.content == 0 && len(trimmed) > 0 && trimmed[0] != '#' {
		y.content = y.lineNo
	}
}

// flush ends the current document; next is the line the following one
// starts on.
func (y *yamlReader) flush(next int) (document, bool) {
	data := y.slab[y.start:len(y.slab):len(y.slab)]
	first, content := y.first, y.content
	y.start, y.first, y.content = len(y.slab), next, 0
	if content == 0 {
		return document{}, false
	}
	y.docs++
	return document{data: data, first: first, src: Source{File: y.file, Document: y.docs, Line: content}}, true
}

// errLongLine is readLine's error for a line over yamlReader.maxLine.
var errLongLine = errors.New("line too long")

// readLine returns the next line with its newline, or nil at the end.
func (y *yamlReader) readLine() ([]byte, error) {
	line, err := y.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		long := append([]byte(nil), line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			if y.maxLine > 0 && int64(len(long)) > y.maxLine {
				return nil, errLongLine
			}
			line, err = y.r.ReadSlice('\n')
			long = append(long, line...)
		}
		line = long
	}
	y.read += int64(len(line))
	if errors.Is(err, io.EOF) {
		if len(line) == 0 {
			return nil, nil
		}
		return line, nil
	}
	return line, err
}

// openFile opens a manifest file for decodeReader and returns its size.
func openFile(path string) (*os.File, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}
