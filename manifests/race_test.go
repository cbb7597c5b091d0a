package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tests here drive every way a streamed List or a stream of many
// documents can go wrong while its workers decode: problems the reader
// finds (a tiny exponent, an object over the limit, the stream failing or
// failing to be read again, too many objects) while the workers decode
// what came before, and problems the workers find (a field that does not
// decode, YAML that does not parse) while the reader cuts what comes after;
// early, late and many at once, on several workers and GOMAXPROCS. Run
// with -race (as .ci/run does), they catch the reader and the goroutine
// that adds results writing the loader at once; without it they still hold
// the errors to input order on any number of workers.

// racePiece is one document of a test stream, and the problem decoding it
// reports: its kind and List item (0 for the whole document), or no
// problem when kind is nil.
type racePiece struct {
	yaml, json string
	kind       error
	item       int
}

// raceObjectBytes is the object limit the streams are read with, so that
// an object over it is small.
const raceObjectBytes = 2048

func racePod(name, cpu string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: Pod\nmetadata:\n  name: %s\n  namespace: default\nspec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: %s\n", name, cpu)
}

func racePodJSON(name, cpu string) string {
	return fmt.Sprintf(`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": %q, "namespace": "default"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": %q}}}]}}`, name, cpu)
}

func raceItem(doc string) string {
	return "- " + strings.ReplaceAll(strings.TrimSuffix(doc, "\n"), "\n", "\n  ") + "\n"
}

var raceHuge = strings.Repeat("x", raceObjectBytes)

// racePieces returns the kinds of document a stream is made of: a good
// Pod, and each problem; their objects' names end in -0, which renamed
// replaces.
func racePieces() []racePiece {
	name := func(s string) string { return s + "-0" }
	list := func(items ...string) string {
		out := "apiVersion: v1\nkind: List\nitems:\n"
		for _, it := range items {
			out += raceItem(it)
		}
		return out
	}
	listJSON := func(items ...string) string {
		return `{"apiVersion": "v1", "kind": "List", "items": [` + strings.Join(items, ", ") + `]}`
	}
	good, goodJSON := racePod(name("good"), "1"), racePodJSON(name("good"), "1")
	return []racePiece{
		{yaml: good, json: goodJSON},
		// The workers' problems.
		{yaml: racePod(name("bad"), "lots"), json: racePodJSON(name("bad"), "lots"), kind: ErrDecode},
		{yaml: "apiVersion: v1\nkind: Pod\nmetadata: {name: [\n", kind: ErrMalformed},
		{yaml: list(racePod(name("l1"), "1"), racePod(name("l2"), "lots"), racePod(name("l3"), "1")),
			json: listJSON(racePodJSON(name("l1"), "1"), racePodJSON(name("l2"), "lots"), racePodJSON(name("l3"), "1")),
			kind: ErrDecode, item: 2},
		{yaml: list(racePod(name("y1"), "1")) + "- {a: [\n", kind: ErrMalformed},
		// The reader's problems.
		{yaml: racePod(name("tiny"), "1e-99999999"), json: racePodJSON(name("tiny"), "1e-99999999"), kind: ErrTooLarge},
		{yaml: racePod(name("huge"), "1") + "  annotations: {a: " + raceHuge + "}\n", kind: ErrTooLarge},
		{yaml: list(racePod(name("t1"), "1"), racePod(name("t2"), "1e-99999999")), kind: ErrTooLarge},
		{yaml: list(racePod(name("h1"), "1"), racePod(name("h2"), "1")+"  annotations: {a: "+raceHuge+"}\n"), kind: ErrTooLarge, item: 2},
	}
}

// raceStream is a stream of documents and the problems it must report, in
// order.
type raceStream struct {
	name   string
	data   []byte
	want   []string
	json   bool
	limits Limits
	// failAt, when not 0, is where reading the stream fails.
	failAt int
	// rereadFails is set when reading the stream again fails.
	rereadFails bool
}

// newRaceStream joins the pieces into a YAML or JSON stream. A stream
// that fails to be read at the middle of document failIn (from 1) reports
// the problems of the documents before it, then the failure; a JSON one
// only those of the Lists it streamed before the first other value, which
// is held with the rest of the stream to be decoded once it is read whole.
// A stream read with maxObjects reports the problems before the object
// past it, then that object's document.
func newRaceStream(name string, pieces []racePiece, asJSON bool, failIn, maxObjects int) raceStream {
	s := raceStream{name: name, json: asJSON, limits: Limits{ObjectBytes: raceObjectBytes, Objects: maxObjects}}
	var b bytes.Buffer
	streamed, held, objects := 0, false, 0
	for i, p := range pieces {
		start := b.Len()
		if asJSON {
			b.WriteString(p.json + "\n")
		} else {
			b.WriteString("---\n" + p.yaml)
		}
		if !held && !strings.Contains(p.json, `"kind": "List"`) {
			held, streamed = true, len(s.want)
		}
		if i+1 == failIn {
			s.failAt = (start + b.Len()) / 2
			if asJSON && held {
				s.want = s.want[:streamed]
			}
			s.want = append(s.want, raceWant(0, 0, ErrRead))
			break
		}
		if maxObjects > 0 {
			if objects += max(1, strings.Count(p.yaml, "\n- ")); objects > maxObjects {
				s.want = append(s.want, raceWant(i+1, 0, ErrTooLarge))
				break
			}
		}
		if p.kind != nil {
			s.want = append(s.want, raceWant(i+1, p.item, p.kind))
		}
		if p.kind == ErrRead {
			break
		}
	}
	s.data = b.Bytes()
	return s
}

func raceWant(doc, item int, kind error) string {
	if kind == ErrRead {
		return ErrRead.Error()
	}
	return fmt.Sprintf("document %d item %d: %v", doc, item, kind)
}

// raceStreams are the streams: problems early, late, all at once, mixed
// at random, with the stream failing early and late.
func raceStreams() []raceStream {
	var streams []raceStream
	for _, asJSON := range []bool{false, true} {
		var all []racePiece
		for _, p := range racePieces() {
			if !asJSON || p.json != "" {
				all = append(all, p)
			}
		}
		good, bad := all[0], all[1:]
		goods := func(n int) []racePiece {
			out := make([]racePiece, n)
			for i := range out {
				out[i] = renamed(good, i+1000)
			}
			return out
		}
		format := map[bool]string{false: "yaml", true: "json"}[asJSON]
		streams = append(streams,
			newRaceStream(format+" bad early", append(renamedAll(bad, 1), goods(40)...), asJSON, 0, 0),
			newRaceStream(format+" bad late", append(goods(40), renamedAll(bad, 1)...), asJSON, 0, 0),
		)
		var many []racePiece
		for i := range 6 {
			many = append(many, renamedAll(bad, i+1)...)
		}
		streams = append(streams, newRaceStream(format+" many bad at once", many, asJSON, 0, 0))
		for seed := range uint64(4) {
			rng := rand.New(rand.NewPCG(seed, 32))
			var mixed []racePiece
			for i := range 60 {
				p := good
				if rng.IntN(3) == 0 {
					p = bad[rng.IntN(len(bad))]
				}
				mixed = append(mixed, renamed(p, i+1))
			}
			streams = append(streams,
				newRaceStream(fmt.Sprintf("%s mixed %d", format, seed), mixed, asJSON, 0, 0),
				newRaceStream(fmt.Sprintf("%s mixed %d failing", format, seed), mixed, asJSON, 5+rng.IntN(50), 0))
			// Objects are counted, a List's items each, and refused past the
			// limit while the workers decode those before.
			var counted []racePiece
			for _, p := range mixed {
				if p.kind == nil || p.kind == ErrDecode {
					counted = append(counted, p)
				}
			}
			streams = append(streams, newRaceStream(fmt.Sprintf("%s mixed %d past the object limit", format, seed), counted, asJSON, 0, 10+rng.IntN(20)))
		}
		streams = append(streams, newRaceStream(format+" failing in the first", many, asJSON, 1, 0))
	}
	// A List too large to be held while it is cut is read again when it
	// must be decoded whole (an item does not parse), and reading it again
	// fails, while the workers decode what came before.
	var big strings.Builder
	big.WriteString("apiVersion: v1\nkind: List\nitems:\n- {a: [\n")
	for i := 0; big.Len() <= 2*slabSize; i++ {
		big.WriteString(raceItem(racePod(fmt.Sprintf("big-%d", i), "1")))
	}
	var before []racePiece
	for i := range 3 {
		before = append(before, renamedAll(racePieces()[1:], i+1)...)
	}
	s := newRaceStream("yaml List read again failing", append(before, racePiece{yaml: big.String(), kind: ErrRead}), false, 0, 0)
	s.rereadFails = true
	return append(streams, s)
}

// renamed returns p naming its objects apart, so that no two objects of a
// stream share a name.
func renamed(p racePiece, n int) racePiece {
	suffix := fmt.Sprintf("-%d", n)
	p.yaml = strings.ReplaceAll(p.yaml, "-0\n", suffix+"\n")
	p.json = strings.ReplaceAll(p.json, `-0"`, suffix+`"`)
	return p
}

func renamedAll(ps []racePiece, n int) []racePiece {
	out := make([]racePiece, len(ps))
	for i, p := range ps {
		out[i] = renamed(p, n*100+i)
	}
	return out
}

// failingReader reads data up to failAt, then fails, as a pipe may.
type failingReader struct {
	data   []byte
	pos    int
	failAt int
}

var errRaceRead = errors.New("the disk went away")

func (r *failingReader) Read(p []byte) (int, error) {
	end := len(r.data)
	if r.failAt > 0 {
		end = r.failAt
	}
	if r.pos >= end {
		if r.failAt > 0 {
			return 0, errRaceRead
		}
		return 0, io.EOF
	}
	n := copy(p, r.data[r.pos:end])
	r.pos += n
	return n, nil
}

// rereadFailing is a stream read again, as a file is, where reading again
// fails: the file changed under karpsim.
type rereadFailing struct{ *bytes.Reader }

func (r rereadFailing) ReadAt([]byte, int64) (int, error) { return 0, errRaceRead }

// raceDecode decodes s on the given workers, as a pipe or as a file read
// again, and returns everything the result holds, and each problem as
// "document D item I: kind".
func raceDecode(t *testing.T, s raceStream, workers int, pipe bool) (string, []string) {
	var r io.Reader = &failingReader{data: s.data, failAt: s.failAt}
	switch {
	case s.rereadFails:
		r = rereadFailing{bytes.NewReader(s.data)}
	case !pipe && s.failAt == 0:
		r = bytes.NewReader(s.data)
	}
	name := s.name + map[bool]string{false: ".yaml", true: ".json"}[s.json]
	var problems []string
	out := decodeReaderWith(t, name, r, func(l *loader) { l.workers, l.limits, l.listItems = workers, s.limits, 1 }, func(err error) {
		for _, e := range unjoin(err) {
			var me *Error
			require.ErrorAs(t, e, &me)
			kind := me.Kind
			problems = append(problems, raceWant(me.Source.Document, me.Source.Item, kind))
		}
	})
	return out, problems
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// decodeReaderWith is decodeWith for a reader; check is given the error.
func decodeReaderWith(t *testing.T, name string, r io.Reader, setup func(*loader), check func(error)) string {
	t.Helper()
	l := newLoader()
	setup(l)
	l.decodeReader(name, r)
	set, err := l.done()
	check(err)
	out, jerr := json.Marshal(set)
	require.NoError(t, jerr)
	return fmt.Sprintf("%s\nerror: %v", out, err)
}

// Every problem of a stream is reported once, in input order, the same on
// any number of workers and GOMAXPROCS.
func TestStreamProblemsOnAnyWorkers(t *testing.T) {
	procs := []int{1, 2, 4, 8}
	workers := []int{1, 2, 3, 8, 0} // 0: GOMAXPROCS
	if testing.Short() {
		procs, workers = []int{1, 4}, []int{1, 3, 0}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, s := range raceStreams() {
		var first string
		for _, n := range procs {
			runtime.GOMAXPROCS(n)
			for _, w := range workers {
				for _, pipe := range []bool{false, true} {
					if pipe && s.rereadFails {
						continue
					}
					got, problems := raceDecode(t, s, w, pipe)
					// The first MaxProblems are spelled out, the rest counted;
					// of those, one of each kind not spelled out is kept
					// for errors.Is.
					shown := min(len(s.want), MaxProblems)
					require.Equal(t, s.want[:shown], problems[:min(len(problems), shown)], "%s on %d workers, GOMAXPROCS %d, pipe %v", s.name, w, n, pipe)
					for _, extra := range problems[min(len(problems), shown):] {
						require.Contains(t, s.want[shown:], extra, "%s: a kept problem is one past the first %d", s.name, shown)
					}
					if more := len(s.want) - MaxProblems; more > 0 {
						require.Contains(t, got, fmt.Sprintf("... and %d more problems", more), "%s", s.name)
					}
					if first == "" {
						first = got
					}
					require.Equal(t, first, got, "%s on %d workers, GOMAXPROCS %d, pipe %v", s.name, w, n, pipe)
				}
			}
		}
	}
}
