package manifests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// LoadReader reads one stream of manifests from r (standard input, a pipe,
// a file already open), named name in sources and errors, as Load reads one
// file, including the checks across objects. YAML is read one document at a
// time, and the items of a List are decoded in parallel, one item at a time.
// A pipe's Lists are held until their end; a file's are not (see
// rereadable).
func LoadReader(name string, r io.Reader) (*Set, error) {
	l := newLoader()
	l.decodeReader(name, r)
	return l.done()
}

// readerBuffer is the size of the buffer documents are read through.
const readerBuffer = 1 << 16

// decodeReader decodes every document of one stream.
func (l *loader) decodeReader(file string, r io.Reader) {
	again := rereadable(r)
	br := bufio.NewReaderSize(io.LimitReader(r, l.limits.maxBytes()+1), readerBuffer)
	json, bom, err := startsLikeJSON(file, br)
	if err != nil {
		l.fail(Source{File: file}, "", "", ErrRead, err.Error())
		return
	}
	if again != nil {
		again.base += int64(bom)
	}
	if json {
		l.decodeJSONReader(file, br, again)
		return
	}
	p := l.startDocuments()
	lists := &streamedLists{l: l, docs: &p}
	docs := &yamlReader{r: br, file: file, maxLine: l.limits.maxObjectBytes(), again: again, lists: lists}
	if l.reference {
		docs.lists = nil
	}
	defer func() {
		p.wait()
		l.noteHeld(docs.peak)
	}()
	for {
		doc, ok := docs.next()
		if docs.err != nil || docs.read > l.limits.maxBytes() || !ok {
			lists.abort()
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
		streamed := doc.streamed != nil
		if streamed {
			handled := lists.end(doc, doc.streamed)
			p = l.startDocuments()
			if handled {
				continue
			}
			if doc.data == nil {
				if doc.data, err = again.read(doc.streamed.at, doc.streamed.size); err != nil {
					p.wait()
					l.fail(doc.src, "", "", ErrRead, err.Error())
					return
				}
			}
			doc.streamed = nil
		}
		// While documents are decoded, the reader adds nothing to the
		// loader itself: what it refuses takes the document's place.
		if err := tinyExponentError(doc); err != nil {
			p.refuse(err)
			continue
		}
		if !streamed && mayBeList(doc.data) {
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
		if !mayBeList(doc.data) {
			if err := l.limits.objectTooLarge(doc.src, len(doc.data)); err != nil {
				p.refuse(err)
				continue
			}
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
// order, on a goroutine of its own. That goroutine alone writes the
// loader's results (its Set, errors and strings) until wait returns: the
// reader reports a problem it finds with refuse, in the document's place,
// and leaves the loader alone meanwhile.
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

// refuse adds, in the place of a document not submitted, the problem the
// reader found with it.
func (p *documents) refuse(err error) {
	out := make(chan *loader, 1)
	refused := &loader{set: &Set{}}
	refused.errs.Add(err)
	out <- refused
	p.pending <- out
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
		at := len(l.errs.shown)
		l.splitJSON(file, data, before, first)
		l.errs.insertAt(mark, at)
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
// byte order mark, and returns its length.
func startsLikeJSON(file string, br *bufio.Reader) (json bool, bom int, err error) {
	if head, _ := br.Peek(len(utf8BOM)); bytes.Equal(head, utf8BOM) {
		bom, _ = br.Discard(len(utf8BOM))
	}
	if isJSON(file, nil) {
		return true, bom, nil
	}
	for n := 512; ; n *= 2 {
		head, err := br.Peek(n)
		trimmed := bytes.TrimLeft(head, " \t\r\n")
		if len(trimmed) > 0 {
			return trimmed[0] == '{' || trimmed[0] == '[', bom, nil
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, bufio.ErrBufferFull) {
				return false, bom, nil
			}
			return false, bom, err
		}
	}
}

// yamlReader cuts a YAML stream into documents at their markers ("---" and
// "..."), reading one document at a time, and drops documents with no
// content, numbering the others from 1. The items of a List document go to
// lists as they are read (yamlCut).
type yamlReader struct {
	r    *bufio.Reader
	file string
	// read counts the bytes read so far.
	read int64
	err  error
	// maxLine bounds a line: no object holds a longer one, and reading it
	// whole would hold it twice.
	maxLine int64
	// again, when not nil, reads the stream again: a List document is then
	// not kept while its items are cut.
	again *rereader
	// lists, when not nil, receives the items of List documents.
	lists listSink

	lineNo int
	docs   int
	// slab[start:] is the document being read, unless a List cut from a
	// stream read again dropped its start; first is the line of its first
	// byte and content the line of its first content, or 0. at is the
	// document's offset in the stream and size its length so far.
	slab           []byte
	start          int
	first, content int
	at, size       int64
	cut            *yamlCut
	dropped        bool
	done           bool
	// peak is the largest slab read into, for tests of what is held.
	peak int64
}

// next returns the next document with content; ok is false at the end of
// the stream or on a read error (in err). A List document cut into items
// has them handed to lists, and doc.streamed set; its data is nil when it was
// not kept.
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
		at := y.read - int64(len(line))
		if marker, rest := documentMarker(line); marker {
			doc, ok = y.flush(y.lineNo)
			y.at = y.read
			if len(bytes.TrimSpace(rest)) == 0 {
				y.first = y.lineNo + 1
			} else {
				y.at = y.read - int64(len(rest))
				y.add(rest)
			}
			if ok {
				return doc, true
			}
			continue
		}
		if y.size == 0 {
			y.at = at
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
		from := y.start
		if y.cut != nil && y.again != nil {
			// Only the item being read need stay in one piece: the
			// document is read again if it is needed whole.
			from = len(y.slab)
			if y.cut.item >= 0 {
				from = y.cut.item
			}
			y.dropped = y.dropped || from > y.start
		}
		cur := y.slab[from:]
		size := max(slabSize, 2*(len(cur)+len(line)))
		slab := make([]byte, len(cur), size)
		copy(slab, cur)
		if y.cut != nil && y.cut.item >= 0 {
			y.cut.item -= from
		}
		y.slab, y.start = slab, max(y.start-from, 0)
		y.peak = max(y.peak, int64(size))
	}
	pos := len(y.slab)
	y.slab = append(y.slab, line...)
	y.size += int64(len(line))
	if trimmed := bytes.TrimSpace(line); y.content == 0 && len(trimmed) > 0 && trimmed[0] != '#' {
		y.content = y.lineNo
	}
	switch {
	case y.cut != nil:
		y.cutLine(pos)
	case y.lists != nil && line[0] == 'i' && isItemsKey(line):
		y.startCut(pos)
	}
}

// flush ends the current document; next is the line the following one
// starts on.
func (y *yamlReader) flush(next int) (document, bool) {
	var cut *yamlCut
	if y.cut != nil {
		cut = y.endCut()
	}
	data := y.slab[y.start:len(y.slab):len(y.slab)]
	if y.dropped {
		data = nil
	}
	first, content := y.first, y.content
	y.start, y.first, y.content, y.size, y.dropped = len(y.slab), next, 0, 0, false
	if content == 0 {
		return document{}, false
	}
	y.docs++
	return document{data: data, first: first, src: Source{File: y.file, Document: y.docs, Line: content}, streamed: cut}, true
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
