package manifests

import (
	"bytes"
	"fmt"
	"strconv"
)

// The default limits of one Load, Decode or LoadReader. They refuse what is absurd,
// not what is large and real: `kubectl get pods -A -o json` prints about
// 9.5 KB a pod, so a 1 GiB dump holds some 100,000 pods, and karpsim reads
// 20,000 of them in about two seconds. What passes a limit is refused with
// ErrTooLarge, naming the limit.
const (
	// MaxStreamBytes is the most karpsim reads from one file or stream:
	// 1 GiB.
	MaxStreamBytes = 1 << 30
	// MaxObjects is the most objects (List items included) karpsim reads in
	// one Load: 200,000.
	MaxObjects = 200_000
)

// MaxObjectBytes is the most one object's document, or one List item,
// may hold: 16 MiB. The API server stores no object over etcd's request
// limit, 1.5 MiB by default, and even printed as indented YAML with its
// managedFields a real object stays far below this; a larger one is
// refused before it is parsed, which would take several times its size.
const MaxObjectBytes = 16 << 20

// Limits are the bounds one load applies (LoadLimited); a zero field means
// its default, the constants above. Raise a limit for an input that is
// real and larger; lower one to refuse sooner.
//
// They are not the only limits on input: a load refuses numbers written
// with an exponent below MinExponent; the YAML and JSON decoders refuse
// more than 10,000 levels of nesting and YAML alias expansion past a
// fixed ratio to the document (a "billion laughs"); resources refuses
// requests past resources.MaxAmount; labels and annotations must keep
// Kubernetes' own lengths (apis.ValidateObjectMeta); snapshot expands
// workloads to at most snapshot.DefaultMaxPods pods; simulator runs at
// most simulator.DefaultMaxDuration of virtual time; sweep runs at most
// sweep.MaxRuns runs. docs/limits.md lists them all.
type Limits struct {
	// Bytes is the most read from one file or stream; MaxStreamBytes when 0.
	Bytes int64
	// Objects is the most objects, List items included, read in one load;
	// MaxObjects when 0.
	Objects int
	// ObjectBytes is the most one object's document or List item may
	// hold; MaxObjectBytes when 0.
	ObjectBytes int64
}

// DefaultLimits are the limits a load applies unless told otherwise.
func DefaultLimits() Limits {
	return Limits{Bytes: MaxStreamBytes, Objects: MaxObjects, ObjectBytes: MaxObjectBytes}
}

func (l Limits) maxBytes() int64 {
	if l.Bytes > 0 {
		return l.Bytes
	}
	return MaxStreamBytes
}

func (l Limits) maxObjects() int {
	if l.Objects > 0 {
		return l.Objects
	}
	return MaxObjects
}

func (l Limits) maxObjectBytes() int64 {
	if l.ObjectBytes > 0 {
		return l.ObjectBytes
	}
	return MaxObjectBytes
}

// objectTooLarge reports, with the document or item that is, an object
// larger than the limit.
func (l *loader) objectTooLarge(src Source, size int) bool {
	err := l.limits.objectTooLarge(src, size)
	if err != nil {
		l.errs.Add(err)
	}
	return err != nil
}

// objectTooLarge is the problem with an object of size bytes, or nil when
// it is within the limit.
func (l Limits) objectTooLarge(src Source, size int) *Error {
	if int64(size) <= l.maxObjectBytes() {
		return nil
	}
	return &Error{Source: src, Kind: ErrTooLarge, Message: fmt.Sprintf("%s: an object of more than %s: karpsim reads objects of at most %s (the API server stores none over 1.5 MiB)",
		src.where(), formatBytes(l.maxObjectBytes()), formatBytes(l.maxObjectBytes()))}
}

// admit counts n more objects, and reports, once, when the limit is passed.
func (l *loader) admit(src Source, n int) bool {
	l.objects += n
	if l.objects <= l.limits.maxObjects() {
		return true
	}
	if !l.overObjects {
		l.overObjects = true
		l.fail(src, "", "", ErrTooLarge, fmt.Sprintf("%s: more than %d objects: karpsim reads at most %d in one go (a dump of a real cluster has far fewer)",
			src.where(), l.limits.maxObjects(), l.limits.maxObjects()))
	}
	return false
}

// formatBytes writes a size the way the limits are stated: "1 GiB".
func formatBytes(n int64) string {
	for _, unit := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= unit.size && n%unit.size == 0 {
			return strconv.FormatInt(n/unit.size, 10) + " " + unit.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// MinExponent is the most negative decimal exponent a number may be
// written with ("1e-1000"). apimachinery rounds a quantity like
// "1e-99999999" in time quadratic in its exponent (minutes), and a YAML or
// JSON float reads it as 0; no real number needs more than this (the
// smallest float64 is about 1e-308). A document holding one is refused
// before anything parses it.
const MinExponent = -1000

// tinyExponent finds a number written with an exponent below MinExponent:
// digits, 'e' or 'E', '-', then digits, standing alone (not inside a word
// or a digest). It returns the number's offset and text.
func tinyExponent(data []byte) (int, []byte, bool) {
	maxDigits := len(strconv.Itoa(-MinExponent))
	for i := 1; i+2 < len(data); i++ {
		if (data[i] != 'e' && data[i] != 'E') || data[i+1] != '-' || !isDigit(data[i-1]) {
			continue
		}
		end := i + 2
		for end < len(data) && isDigit(data[end]) {
			end++
		}
		digits := bytes.TrimLeft(data[i+2:end], "0")
		if len(digits) < maxDigits || (len(digits) == maxDigits && string(digits) <= strconv.Itoa(-MinExponent)) {
			continue
		}
		start := i - 1
		for start > 0 && (isDigit(data[start-1]) || data[start-1] == '.') {
			start--
		}
		if start > 0 && (data[start-1] == '+' || data[start-1] == '-') {
			start--
		}
		// A value of its own, not part of a longer string (a UID's
		// "8955015e-2858-…", a name).
		if (start > 0 && !bytes.ContainsRune([]byte(" \t\r\n\"':[{,"), rune(data[start-1]))) ||
			(end < len(data) && !bytes.ContainsRune([]byte(" \t\r\n\"',]}#"), rune(data[end]))) {
			continue
		}
		return start, data[start:end], true
	}
	return 0, nil, false
}

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// refuseTinyExponent reports a document holding a number tinyExponent
// finds, naming its line.
func (l *loader) refuseTinyExponent(doc document) bool {
	err := tinyExponentError(doc)
	if err != nil {
		l.errs.Add(err)
	}
	return err != nil
}

// tinyExponentError is the problem with a document holding a number
// tinyExponent finds, naming its line, or nil when it holds none.
func tinyExponentError(doc document) *Error {
	at, number, found := tinyExponent(doc.data)
	if !found {
		return nil
	}
	line := doc.first + bytes.Count(doc.data[:at], []byte("\n"))
	shown := string(number)
	if len(shown) > 40 {
		shown = shown[:40] + "…"
	}
	return &Error{Source: doc.src, Kind: ErrTooLarge, Message: fmt.Sprintf("document %d: line %d: the number %s has an exponent below %d, which karpsim does not read (no real amount needs one; parsing it as a quantity takes minutes)",
		doc.src.Document, line, shown, MinExponent)}
}
