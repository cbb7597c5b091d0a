package manifests

import (
	"bytes"
	"errors"
	"io"
)

// A JSON stream is read as it arrives. The items of a List are handed to
// the workers as soon as each has been read, so that decoding overlaps
// reading and no item waits for the end of the stream; anything else (an
// object that is not a List, a List the cutting does not expect, a syntax
// error) sends the rest of the stream, from the start of that value, to
// decodeJSONFrom, which decodes values held in memory. kubectl prints a
// List's kind after its items, so that only at its end is a List known to
// be one: when it must go to decodeJSONFrom after all, the stream is read
// again from the List's start if it can be (rereadable), and nothing of
// the List is kept meanwhile; a stream that cannot be read again (a pipe)
// keeps the List's bytes until its end for that reason.

// jsonReader reads a JSON stream into buffers that are never written over:
// the items handed on point into them.
type jsonReader struct {
	r   io.Reader
	err error
	eof bool
	// read counts the bytes read so far.
	read int64
	// again, when not nil, reads the stream again, so that the bytes of
	// the value being cut need not be kept.
	again *rereader
	// bufAt is the offset of buf[0] in the stream, and valueAt that of the
	// value being cut.
	bufAt, valueAt int64
	// held is the most bytes held at once in buf and earlier.
	held int64

	// buf[pos:] is read and not yet cut; buf[keep:] must stay in one
	// piece when buf is replaced by a larger one.
	buf       []byte
	pos, keep int
	// value is where the value being cut starts, and earlier its bytes
	// that lay in buffers since replaced: value < 0 when no value is
	// being cut.
	value   int
	earlier [][]byte
	// line is the line of buf[lineAt].
	line, lineAt int
	// chunk is the least size of a buffer.
	chunk int
}

// jsonChunk is the size of the buffers a stream is read into.
const jsonChunk = 1 << 20

func newJSONReader(r io.Reader, chunk int, again *rereader) *jsonReader {
	if chunk <= 0 {
		chunk = jsonChunk
	}
	return &jsonReader{r: r, line: 1, value: -1, chunk: chunk, again: again}
}

// more reads more of the stream, and reports false at its end or on an
// error. Indexes into buf before keep may change.
func (j *jsonReader) more() bool {
	if j.eof || j.err != nil {
		return false
	}
	if len(j.buf) == cap(j.buf) {
		j.lineOf(j.keep)
		if j.value >= 0 {
			if j.again == nil {
				j.earlier = append(j.earlier, j.buf[j.value:j.keep])
			}
			j.value = j.keep
		}
		cur := j.buf[j.keep:]
		next := make([]byte, len(cur), max(j.chunk, 2*len(cur)))
		copy(next, cur)
		shift := j.keep
		j.buf, j.pos, j.keep, j.lineAt = next, j.pos-shift, 0, j.lineAt-shift
		j.bufAt += int64(shift)
		if j.value >= 0 {
			j.value -= shift
		}
		held := int64(cap(next))
		for _, e := range j.earlier {
			held += int64(len(e))
		}
		j.held = max(j.held, held)
	}
	n, err := io.ReadFull(j.r, j.buf[len(j.buf):cap(j.buf)])
	j.buf, j.read = j.buf[:len(j.buf)+n], j.read+int64(n)
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		j.eof = true
	case err != nil:
		j.err = err
	}
	return n > 0
}

// lineOf returns the line of buf[i], which must not be before lineAt.
func (j *jsonReader) lineOf(i int) int {
	j.line += bytes.Count(j.buf[j.lineAt:i], []byte("\n"))
	j.lineAt = i
	return j.line
}

// space skips white space, and reports whether anything follows it.
func (j *jsonReader) space() bool {
	for {
		if j.pos = skipSpace(j.buf, j.pos); j.pos < len(j.buf) {
			return true
		}
		if !j.more() {
			return false
		}
	}
}

// next cuts the value at pos, reading as much as it needs, and returns
// where it lies in buf; ok is false when the stream ends inside it. The
// indexes hold until the next call of next, space or more.
func (j *jsonReader) next() (start, end int, ok bool) {
	j.keep = j.pos
	for {
		if end, ok := valueEnd(j.buf, j.pos, j.eof); ok {
			start, j.pos = j.pos, end
			return start, end, true
		}
		if !j.more() {
			return 0, 0, false
		}
	}
}

// drain reads the stream to its end, keeping the value being cut and
// everything after it unless the stream can be read again.
func (j *jsonReader) drain() {
	if j.again == nil {
		for j.more() {
		}
		return
	}
	n, err := io.Copy(io.Discard, j.r)
	j.read += n
	if err != nil {
		j.err = err
	}
}

// rest returns, once the stream is drained, the value being cut and
// everything after it: the stream's rest, for decodeJSONFrom.
func (j *jsonReader) rest() ([]byte, error) {
	if j.again != nil {
		return j.again.read(j.valueAt, j.read-j.valueAt)
	}
	parts := append(j.earlier, j.buf[j.value:])
	return bytes.Join(parts, nil), nil
}

// valueEnd returns the index after the JSON value at data[i:], and whether
// the value ends there: false when data ends inside it (a number or literal
// at the end of data ends there only when eof is set).
func valueEnd(data []byte, i int, eof bool) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch data[i] {
	case '"':
		return stringEnd(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			if !jsonStop[data[i]] {
				i++
				continue
			}
			switch data[i] {
			case '"':
				end, ok := stringEnd(data, i)
				if !ok {
					return end, false
				}
				i = end
				continue
			case '{', '[':
				depth++
			default:
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, false
	default:
		for i < len(data) && !jsonPlainEnd[data[i]] {
			i++
		}
		return i, i < len(data) || eof
	}
}

// stringEnd returns the index after the JSON string at data[i:], and
// whether it ends there.
func stringEnd(data []byte, i int) (int, bool) {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1, true
		}
	}
	return len(data), false
}

// decodeJSONReader decodes a JSON stream as it reads it.
func (l *loader) decodeJSONReader(file string, r io.Reader, again *rereader) {
	j := newJSONReader(r, l.readChunk, again)
	defer func() { l.noteHeld(j.held) }()
	mark, values := len(l.errs.shown), 0
	for j.space() {
		values++
		line := j.lineOf(j.pos)
		doc := document{first: line, src: Source{File: file, Document: values, Line: line}, json: true}
		j.value, j.keep, j.earlier, j.valueAt = j.pos, j.pos, nil, j.bufAt+int64(j.pos)
		if !l.reference && j.buf[j.pos] == '{' && l.streamList(j, doc) {
			j.value = -1
			continue
		}
		if j.err == nil {
			j.drain()
			if l.tooLarge(file, j.read) {
				return
			}
			rest, err := j.rest()
			if err != nil {
				l.fail(doc.src, "", "", ErrRead, err.Error())
				return
			}
			l.decodeJSONFrom(file, rest, mark, values-1, line)
		}
		break
	}
	if j.err != nil {
		l.fail(Source{File: file}, "", "", ErrRead, j.err.Error())
		return
	}
	l.tooLarge(file, j.read)
}

// streamList decodes the List object at the reader's position item by
// item as it reads it, and reports whether it did; false leaves the value,
// from its start, to decodeJSONFrom.
func (l *loader) streamList(j *jsonReader, doc document) bool {
	header := []byte{'{'}
	var p *items
	finish := func() bool { return p != nil && p.finish() }
	j.pos++
	for j.space() && j.buf[j.pos] == '"' {
		key, keyEnd, ok := j.next()
		if !ok {
			break
		}
		name := string(j.buf[key:keyEnd])
		if !j.space() || j.buf[j.pos] != ':' {
			break
		}
		j.pos++
		if !j.space() {
			break
		}
		if name == `"items"` && p == nil && j.buf[j.pos] == '[' {
			if p = l.streamItems(j, doc); p == nil {
				break
			}
		} else {
			if name == `"items"` {
				break
			}
			start, end, ok := j.next()
			if !ok {
				break
			}
			if len(header) > 1 {
				header = append(header, ',')
			}
			header = append(append(append(header, name...), ':'), j.buf[start:end]...)
		}
		if !j.space() {
			break
		}
		if c := j.buf[j.pos]; c == '}' {
			j.pos++
			return finish() && l.addStreamedList(doc, header, p)
		} else if c != ',' {
			break
		}
		j.pos++
	}
	finish()
	return false
}

// streamItems hands the items of the array at the reader's position to
// the workers as it reads them, and returns them once the array is read;
// nil means the array is not one of objects, or is empty.
func (l *loader) streamItems(j *jsonReader, doc document) *items {
	p := l.startItems(doc, "", "", true)
	j.pos++
	for j.space() && j.buf[j.pos] == '{' {
		start, end, ok := j.next()
		if !ok {
			break
		}
		if l.objects+p.n < l.limits.maxObjects() {
			p.submit(j.buf[start:end])
		} else {
			p.n++
		}
		if !j.space() {
			break
		}
		switch j.buf[j.pos] {
		case ']':
			j.pos++
			return p
		case ',':
			j.pos++
			continue
		}
		break
	}
	p.finish()
	return nil
}

// addStreamedList adds the items of a List read by streamList, once its
// header says it is one, and reports whether it did.
func (l *loader) addStreamedList(doc document, header []byte, p *items) bool {
	tree, ok := parseQuiet(append(header, '}'), true)
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
	if !p.redo(apiVersion, itemKind) {
		l.objects -= p.n
		return false
	}
	l.addItems(p)
	return true
}
