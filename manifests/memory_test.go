package manifests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bloatedList writes a List of pods as kubectl prints it (kind after the
// items), each pod carrying about bloat × 8 KiB of managedFields, which
// karpsim does not read.
func bloatedList(t testing.TB, format string, pods, bloat int) []byte {
	t.Helper()
	fields := map[string]any{}
	for i := range bloat * 8192 / 32 {
		fields[fmt.Sprintf("f:example.com/label-%012d", i)] = map[string]any{}
	}
	items := make([]any, pods)
	for i := range items {
		items[i] = map[string]any{
			"apiVersion": "v1",
			"kind":       "Pod",
			"metadata": map[string]any{
				"name":      fmt.Sprintf("pod-%05d", i),
				"namespace": "default",
				"labels":    map[string]any{"app": "a"},
				"managedFields": []any{map[string]any{
					"apiVersion": "v1", "fieldsType": "FieldsV1", "manager": "kubectl", "operation": "Update",
					"fieldsV1": map[string]any{"f:metadata": map[string]any{"f:labels": fields}},
				}},
			},
			"spec": map[string]any{"containers": []any{map[string]any{
				"name": "c", "image": "i", "resources": map[string]any{"requests": map[string]any{"cpu": "100m"}},
			}}},
		}
	}
	list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""}}
	data, err := json.MarshalIndent(list, "", "    ")
	require.NoError(t, err)
	if format == "json" {
		return data
	}
	var b bytes.Buffer
	writeYAML(&b, list, 0, false)
	return b.Bytes()
}

// writeYAML prints a tree of maps, slices and strings in kubectl's block
// style (keys sorted, sequences not indented under their key).
func writeYAML(b *bytes.Buffer, v any, indent int, inItem bool) {
	pad := strings.Repeat(" ", indent)
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 || !inItem {
				b.WriteString(pad)
			}
			switch c := v[k].(type) {
			case map[string]any:
				if len(c) == 0 {
					fmt.Fprintf(b, "%s: {}\n", k)
					continue
				}
				fmt.Fprintf(b, "%s:\n", k)
				writeYAML(b, c, indent+2, false)
			case []any:
				fmt.Fprintf(b, "%s:\n", k)
				writeYAML(b, c, indent, false)
			default:
				fmt.Fprintf(b, "%s: %q\n", k, c)
			}
		}
	case []any:
		for _, item := range v {
			b.WriteString(pad + "- ")
			writeYAML(b, item, indent+2, true)
		}
	}
}

// heapAt reads a stream, and, once three quarters of it are read, collects
// garbage and notes the live heap: what reading and decoding hold then.
type heapAt struct {
	r       io.Reader
	read    int
	at      int
	heap    uint64
	sampled bool
}

func (h *heapAt) Read(p []byte) (int, error) {
	n, err := h.r.Read(p)
	h.read += n
	if !h.sampled && h.read >= h.at {
		h.sampled = true
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		h.heap = m.HeapAlloc
	}
	return n, err
}

// measuredFile is a file read through heapAt, which can still be read
// again at any offset, as the file can.
type measuredFile struct {
	*os.File
	h *heapAt
}

func (m measuredFile) Read(p []byte) (int, error) { return m.h.Read(p) }

// writeBloated writes bloatedList into a file of its own, and returns its
// path and size, so that the test does not hold it while it is decoded.
func writeBloated(t *testing.T, format string, pods, bloat int) (string, int) {
	t.Helper()
	data := bloatedList(t, format, pods, bloat)
	path := filepath.Join(t.TempDir(), fmt.Sprintf("bloat-%d.%s", bloat, format))
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path, len(data)
}

// decodeMeasured decodes a file with a loader on two workers, and returns
// the live heap three quarters through and what the reader held.
func decodeMeasured(t *testing.T, path string, size, pods int) (heap uint64, held int64) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	h := &heapAt{r: f, at: size * 3 / 4}
	l := newLoader()
	l.workers = 2
	l.decodeReader(path, measuredFile{File: f, h: h})
	set, err := l.done()
	require.NoError(t, err)
	require.Len(t, set.Pods, pods)
	require.True(t, h.sampled)
	return h.heap, l.held
}

// Memory does not grow with what karpsim does not read: a List whose pods
// carry eight times the managedFields is read from a file with the same
// live heap and the same buffers, because neither the List nor its
// managedFields are held (before, the whole List was held until its kind,
// printed last, said it was one).
func TestIgnoredFieldsNotHeld(t *testing.T) {
	if raceEnabled && testing.Short() {
		t.Skip("a measure of the heap, which the race detector changes (and a minute under it); decoding on many workers is raced by the other tests")
	}
	const pods = 300
	for _, format := range []string{"yaml", "json"} {
		t.Run(format, func(t *testing.T) {
			smallPath, small := writeBloated(t, format, pods, 1)
			largePath, large := writeBloated(t, format, pods, 8)
			require.Greater(t, large-small, 16<<20)
			heapSmall, heldSmall := decodeMeasured(t, smallPath, small, pods)
			heapLarge, heldLarge := decodeMeasured(t, largePath, large, pods)
			grew := int64(heapLarge) - int64(heapSmall)
			t.Logf("%s: input %.1f -> %.1f MiB, live heap %.1f -> %.1f MiB, reader held %.1f -> %.1f MiB", format,
				mib(small), mib(large), mib(int(heapSmall)), mib(int(heapLarge)), mib(int(heldSmall)), mib(int(heldLarge)))
			assert.Less(t, grew, int64(large-small)/4, "the live heap grew with the managedFields")
			// The buffers the reader holds at once: a chunk, or one item
			// and a chunk.
			assert.LessOrEqual(t, heldLarge, int64(4<<20))
		})
	}
}

func mib(n int) float64 { return float64(n) / (1 << 20) }

// A pipe cannot be read again: its Lists are held until they end, and
// decode as a file's do.
func TestPipeListsDecodeAsFiles(t *testing.T) {
	for _, format := range []string{"yaml", "json"} {
		data := bloatedList(t, format, 40, 1)
		name := "pods." + format
		set, err := Decode(name, data)
		require.NoError(t, err)
		file := describe(t, set, err)
		l := newLoader()
		l.readChunk = 4096
		l.decodeReader(name, iotest.HalfReader(bytes.NewReader(data)))
		set, err = l.done()
		assert.Equal(t, file, describe(t, set, err))
		assert.Equal(t, 40, l.listItems)
		assert.GreaterOrEqual(t, l.held, int64(len(data))*9/10, "a pipe's List is held whole")
	}
}

// yamlStreams are YAML Lists the cutting must give up on, or cut in
// unusual places; each decodes, from a file or a pipe, as the reference
// decodes it.
var yamlStreams = map[string]string{
	"kind last":             "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n\n# between\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\nkind: List\nmetadata:\n  resourceVersion: \"\"\n",
	"typed, kind last":      "apiVersion: v1\nitems:\n- metadata: {name: a}\n  spec: {containers: [{name: c}]}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\nkind: PodList\n",
	"indented items":        "apiVersion: v1\nkind: List\nitems:\n  - apiVersion: v1\n    kind: Node\n    metadata:\n      name: n\n  - apiVersion: v1\n    kind: Node\n    metadata: {name: m}\n",
	"tab before items":      "apiVersion: v1\nkind: List\nmetadata:\n\tname: x\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\n",
	"tab in an item":        "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n\tname: n\n",
	"items twice":           "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: m}\n",
	"not a dash":            "apiVersion: v1\nkind: List\nitems:\n  apiVersion: v1\n",
	"not a list":            "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nitems:\n- kind: Pod\n",
	"no apiVersion":         "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\n",
	"bad item":              "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: [n}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: m}\n",
	"tiny before items":     "apiVersion: v1\nkind: List\nitems:\n# 1e-99999\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\n",
	"tiny in header":        "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}\nkind: List\nx: 1e-99999\n",
	"tiny in item":          "apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n, labels: {a: 1e-99999}}\nkind: List\n",
	"bad item, tiny after":  "apiVersion: v1\nitems:\n- {bad: [}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n, labels: {a: 1e-99999}}\nkind: List\n",
	"documents around":      "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n--- \napiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: b}\nkind: List\n...\n---\napiVersion: v1\nkind: Node\nmetadata: {name: c}\n",
	"list after a marker":   "--- apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: b}\nkind: List\n",
	"no newline at the end": "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: n}",
	"empty items":           "apiVersion: v1\nkind: List\nitems:\n",
}

// A YAML List cut as it is read, from a file (read again when the List must
// be decoded whole) or from a pipe (held), decodes as the reference decodes
// it, in buffers of any size and on any number of workers.
func TestYAMLStreamMatchesReference(t *testing.T) {
	decode := func(name string, r io.Reader, setup func(*loader)) string {
		l := newLoader()
		setup(l)
		l.decodeReader(name, r)
		set, err := l.done()
		return describe(t, set, err)
	}
	for name, s := range yamlStreams {
		data := []byte(s)
		reference := decode(name+".yaml", bytes.NewReader(data), func(l *loader) { l.reference = true })
		for _, workers := range []int{1, 3} {
			setup := func(l *loader) { l.workers = workers }
			if got := decode(name+".yaml", bytes.NewReader(data), setup); got != reference {
				t.Errorf("%s read again on %d workers differs from the reference:\n%s", name, workers, firstDifference(got, reference))
			}
			if got := decode(name+".yaml", iotest.OneByteReader(bytes.NewReader(data)), setup); got != reference {
				t.Errorf("%s from a pipe on %d workers differs from the reference:\n%s", name, workers, firstDifference(got, reference))
			}
		}
	}
}

// The limits hold on Lists cut as they are read: an item over the object
// limit, or more items than the object limit, refuse the List, naming the
// item or the List, from a file as from a pipe; a number the loader refuses
// is said first, as the whole-document path says it.
func TestStreamedListLimits(t *testing.T) {
	pods := bloatedList(t, "yaml", 5, 1)
	tiny := []byte(yamlStreams["bad item, tiny after"])
	for _, tc := range []struct {
		data   []byte
		limits Limits
		want   string
	}{
		{pods, Limits{ObjectBytes: 4 << 10}, "pods.yaml: document 1 (line 1) item 1: an object of more than 4 KiB"},
		{pods, Limits{Objects: 3}, "pods.yaml: document 1 (line 1): more than 3 objects"},
		{tiny, Limits{Objects: 1}, "pods.yaml: document 1: line 6: the number 1e-99999 has an exponent below -1000"},
	} {
		for _, r := range []io.Reader{bytes.NewReader(tc.data), iotest.HalfReader(bytes.NewReader(tc.data))} {
			l := newLoader()
			l.limits = tc.limits
			l.decodeReader("pods.yaml", r)
			set, err := l.done()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, set.Pods)
			assert.Empty(t, set.Nodes)
		}
	}
}

// peakHeap reads a stream, collecting garbage and noting the live heap
// every sampleEvery bytes, and keeps the largest.
type peakHeap struct {
	*os.File
	read, next int
	peak       uint64
}

const sampleEvery = 4 << 20

func (p *peakHeap) Read(b []byte) (int, error) {
	n, err := p.File.Read(b)
	if p.read += n; p.read >= p.next {
		p.next = p.read + sampleEvery
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		p.peak = max(p.peak, m.HeapAlloc)
	}
	return n, err
}

// BenchmarkLoadIgnoredFields reads, from a file, a List of 1,000 pods whose
// managedFields (which karpsim does not read) are about 8 KiB a pod, and
// four times that, and reports the peak live heap (sampled after a
// collection every 4 MiB read, so its time is not the decoder's): it stays
// flat as the managedFields grow.
func BenchmarkLoadIgnoredFields(b *testing.B) {
	const pods = 1000
	for _, format := range []string{"yaml", "json"} {
		for _, bloat := range []int{1, 4} {
			data := bloatedList(b, format, pods, bloat)
			path := filepath.Join(b.TempDir(), "pods."+format)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
			size := len(data)
			data = nil
			b.Run(fmt.Sprintf("%s/bloat=%d", format, bloat), func(b *testing.B) {
				b.SetBytes(int64(size))
				var peak uint64
				var held int64
				for b.Loop() {
					f, err := os.Open(path)
					if err != nil {
						b.Fatal(err)
					}
					r := &peakHeap{File: f}
					l := newLoader()
					l.decodeReader(path, r)
					set, err := l.done()
					f.Close()
					if err != nil || len(set.Pods) != pods {
						b.Fatalf("%d pods, %v", len(set.Pods), err)
					}
					peak, held = max(peak, r.peak), max(held, l.held)
				}
				b.ReportMetric(mib(size), "input-MiB")
				b.ReportMetric(mib(int(peak)), "peak-heap-MiB")
				b.ReportMetric(mib(int(held)), "held-MiB")
			})
		}
	}
}
