package manifests

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// A List document of a YAML stream is cut into its items as the reader
// reaches them, and each item is handed to the workers once its last line
// is read, so that no more than the items in flight are held, whatever the
// List holds that karpsim does not read. kubectl prints a List's kind after
// its items (its keys are sorted), so the items are decoded provisionally,
// as a streamed JSON List's are. When the List must be decoded whole after
// all (it is not one, or holds what the item path leaves to the
// whole-document decoder, which locates problems by line), its bytes are
// read again from the stream when it can be read again (a file, data in
// memory, standard input redirected from a file); only a stream that
// cannot (a pipe) keeps a List's bytes until its end.

// rereader reads again the bytes of a stream, at offsets counted from
// where decoding started.
type rereader struct {
	at   io.ReaderAt
	base int64
}

// rereadable returns a rereader for r when r can be read again at any
// offset, or nil. A pipe's Seek fails, so standard input is read again only
// when it is a file.
func rereadable(r io.Reader) *rereader {
	at, isAt := r.(io.ReaderAt)
	s, isSeeker := r.(io.Seeker)
	if !isAt || !isSeeker {
		return nil
	}
	base, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil
	}
	return &rereader{at: at, base: base}
}

// read returns the n bytes at offset off of the stream.
func (r *rereader) read(off int64, n int64) ([]byte, error) {
	buf := make([]byte, n)
	m, err := r.at.ReadAt(buf, r.base+off)
	if int64(m) == n {
		return buf, nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return nil, fmt.Errorf("reading it again (did it change?): %w", err)
}

// yamlCut is the List a YAML document holds, cut as it is read with the
// rules of splitYAMLList: a top-level "items:" line, then "- " entries at
// one indentation, each an item, and the rest of the document the List's
// header.
type yamlCut struct {
	state int
	dash  int
	// item is where the item being read starts in the reader's slab, or -1.
	item   int
	header []byte
	items  int
	// bad is set when splitYAMLList would not cut the document; tiny when a
	// line the items and header leave out holds a number tinyExponent
	// refuses. Either sends the document down the whole-document path.
	bad, tiny bool
	// at is the document's offset in the stream, and size its length.
	at, size int64
}

const (
	cutFirst = iota // after "items:", before the first entry
	cutIn           // in the items
	cutAfter        // after the items
)

// listSink receives the items of a List document as yamlReader cuts them.
type listSink interface {
	// startList is called when the document at src starts its items.
	startList(src Source)
	// item receives the next item; data stays valid.
	item(data []byte)
	// abort drops the List being cut, on an error that ends the stream.
	abort()
}

// startCut starts cutting the current document, whose line at slab[pos:]
// is its top-level "items:" line, unless a line before it is indented
// with a tab (splitYAMLList would not cut it).
func (y *yamlReader) startCut(pos int) {
	for rest := y.slab[y.start:pos]; len(rest) > 0; {
		end := lineEnd(rest, 0)
		if indent, _ := lineIndent(rest[:end]); indent < end && rest[indent] == '\t' {
			return
		}
		rest = rest[end:]
	}
	y.cut = &yamlCut{state: cutFirst, item: -1, at: y.at, header: append([]byte(nil), y.slab[y.start:pos]...)}
	y.lists.startList(Source{File: y.file, Document: y.docs + 1, Line: y.content})
}

// cutLine moves the List being cut past the line at slab[pos:].
func (y *yamlReader) cutLine(pos int) {
	c, line := y.cut, y.slab[pos:]
	if c.bad {
		return
	}
	indent, content := lineIndent(line)
	switch {
	case len(line) > indent && line[indent] == '\t':
		c.bad = true
		c.item = -1
	case !content:
		switch c.state {
		case cutAfter:
			c.header = append(c.header, line...)
		case cutFirst:
			if _, _, found := tinyExponent(line); found {
				c.tiny = true
			}
		}
	case c.state == cutFirst:
		if !isDashLine(line, indent) {
			c.bad = true
			return
		}
		c.state, c.dash, c.item = cutIn, indent, pos
	case c.state == cutIn && (indent > c.dash || indent == c.dash && isDashLine(line, indent)):
		if indent == c.dash {
			y.emit(pos)
			c.item = pos
		}
	default:
		if c.state == cutIn {
			y.emit(pos)
			c.item, c.state = -1, cutAfter
		}
		if indent == 0 && isItemsKey(line) {
			c.bad = true
			return
		}
		c.header = append(c.header, line...)
	}
}

// emit hands the item that ends at slab[end] to the sink.
func (y *yamlReader) emit(end int) {
	y.cut.items++
	y.lists.item(y.slab[y.cut.item:end:end])
}

// endCut ends the List being cut with its document.
func (y *yamlReader) endCut() *yamlCut {
	c := y.cut
	if !c.bad && c.state == cutIn {
		y.emit(len(y.slab))
	}
	y.cut, c.size = nil, y.size
	return c
}

// streamedLists is decodeReader's listSink: it decodes the items of each
// List on the workers as they are cut, and adds them once the List ends.
type streamedLists struct {
	l    *loader
	docs **documents
	p    *items
	// tooLarge is the first item over the object limit, from 1, or 0;
	// tiny is set when an item not handed to the workers holds a number
	// tinyExponent refuses, as the whole-document path would first say.
	tooLarge, tooLargeSize int
	tiny                   bool
}

func (s *streamedLists) startList(src Source) {
	(*s.docs).wait()
	s.p = s.l.startItems(document{src: src}, "", "", true)
	s.tooLarge, s.tiny = 0, false
}

func (s *streamedLists) item(data []byte) {
	l, p := s.l, s.p
	if s.tooLarge == 0 && int64(len(data)) > l.limits.maxObjectBytes() {
		s.tooLarge, s.tooLargeSize = p.n+1, len(data)
	}
	if s.tooLarge == 0 && l.objects+p.n < l.limits.maxObjects() {
		// The worker scans it for a tiny exponent (items.tiny).
		p.submit(data)
		return
	}
	if _, _, found := tinyExponent(data); found {
		s.tiny = true
	}
	p.n++
}

func (s *streamedLists) abort() {
	if s.p != nil {
		s.p.finish()
		s.p = nil
	}
}

// end adds the items of the List in doc once it is read, as
// decodeListDocument would add them, and reports whether it did; false
// leaves doc to the whole-document path.
func (s *streamedLists) end(doc document, c *yamlCut) bool {
	l, p := s.l, s.p
	s.p = nil
	parsed := p.finish()
	if c.bad || c.tiny || s.tiny || p.tiny || c.items == 0 {
		return false
	}
	if _, _, found := tinyExponent(c.header); found {
		return false
	}
	tree, ok := parseQuiet(c.header, false)
	if !ok {
		return false
	}
	apiVersion, itemKind, isList := listHeader(tree)
	if !isList {
		return false
	}
	if !l.admit(doc.src, p.n) {
		return true
	}
	if s.tooLarge > 0 {
		src := doc.src
		src.Item = s.tooLarge
		l.objectTooLarge(src, s.tooLargeSize)
		return true
	}
	if !parsed || !p.redo(apiVersion, itemKind) {
		l.objects -= p.n
		return false
	}
	l.addItems(p)
	return true
}

// listHeader reads a List's apiVersion and kind from its header (the
// fields before items): a kind ending in List with an apiVersion is one,
// its items of the kind before "List" in that apiVersion, or of their own
// apiVersion and kind for a plain List.
func listHeader(tree map[string]any) (apiVersion, itemKind string, isList bool) {
	apiVersion, kind := stringField(tree, "apiVersion"), stringField(tree, "kind")
	if apiVersion == "" || !strings.HasSuffix(kind, "List") {
		return "", "", false
	}
	itemKind = strings.TrimSuffix(kind, "List")
	if itemKind == "" {
		apiVersion = ""
	}
	return apiVersion, itemKind, true
}
