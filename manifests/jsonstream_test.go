package manifests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/internal/clusterdump"
)

// streams are JSON streams the streaming reader must give up on, or cut
// in unusual places, each decoded as the whole-stream reference decodes it.
var jsonStreams = map[string]string{
	"typed list, kind last": `{"apiVersion": "v1", "items": [{"metadata": {"name": "a"}, "spec": {"containers": [{"name": "c"}]}},
		{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "b"}}], "kind": "PodList", "metadata": {}}`,
	"not a list":           `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "items": [{"kind": "Pod"}]}`,
	"no apiVersion":        `{"items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}], "kind": "List"}`,
	"two items keys":       `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}], "items": []}`,
	"an item not object":   `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}, 3]}`,
	"no items":             `{"apiVersion": "v1", "kind": "List", "items": []}`,
	"several values":       `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}` + "\n" + `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}]} [1]`,
	"syntax error in item": "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"z\", \"labels\": {\"x\": 1}}}\n{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [\n{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}},\n{\"apiVersion\": \"v1\" \"kind\": \"Pod\"}]}",
	"syntax error after":   `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}]}` + "\n\n{\"a\": tru e}",
	"cut short":            `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}`,
	"numbers kept apart":   `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "generation": 1 2}}]}`,
	// managedFields is dropped unread by the lean pass, so a key it repeats
	// is not seen there (duplicate keys elsewhere are refused on both paths).
	"managedFields": `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"managedFields": [{"manager": "m"}], "name": "a"}}]}`,
}

// A JSON stream read as it arrives, cut across buffers of any size, decodes
// as the whole-stream reference decodes it.
func TestJSONStreamMatchesReference(t *testing.T) {
	inputs := map[string][]byte{}
	for name, s := range jsonStreams {
		inputs[name+".json"] = []byte(s)
	}
	for name, data := range listInputs(t) {
		if strings.HasSuffix(name, ".json") {
			inputs[name] = data
		}
	}
	chunks, workerCounts := []int{1, 7, 300, 0}, []int{1, 3, 0}
	if testing.Short() {
		// Still items cut across buffers, and decoded on several workers.
		chunks, workerCounts = []int{7, 0}, []int{1, 3}
	}
	for name, data := range inputs {
		reference := decodeWith(t, name, data, func(l *loader) { l.reference, l.listItems = true, 1 })
		for _, chunk := range chunks {
			for _, workers := range workerCounts {
				got := decodeWith(t, name, data, func(l *loader) { l.workers, l.readChunk, l.listItems = workers, chunk, 1 })
				if got != reference {
					t.Errorf("%s in %d-byte buffers on %d workers differs from the reference:\n%s", name, chunk, workers, firstDifference(got, reference))
				}
			}
		}
	}
}

// A List kubectl prints is decoded as it is read, item by item.
func TestJSONListStreamed(t *testing.T) {
	var dump bytes.Buffer
	require.NoError(t, clusterdump.PendingPods(&dump, clusterdump.JSON, 30, 3))
	l := newLoader()
	l.readChunk = 4096
	l.decodeReader("pods.json", &dump)
	set, err := l.done()
	require.NoError(t, err)
	assert.Len(t, set.Pods, 30)
	assert.Equal(t, 30, l.listItems)
}

// leanJSON keeps everything but white space and managedFields.
func TestLeanJSON(t *testing.T) {
	item := []byte(`{ "apiVersion" : "v1", "kind": "Pod",
	  "metadata": { "managedFields": [ { "f:x": {} } ], "name": "a b", "labels": { "x": "y" } },
	  "spec": { "priority": -5, "list": [ 1 , 2.5e3, true, null, "s\"t" ] } }`)
	lean, apiVersion, kind, ok := leanJSON(item)
	require.True(t, ok)
	assert.Equal(t, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"a b","labels":{"x":"y"}},"spec":{"priority":-5,"list":[1,2.5e3,true,null,"s\"t"]}}`, string(lean))
	assert.Equal(t, "v1", apiVersion)
	assert.Equal(t, "Pod", kind)

	for _, bad := range []string{`{"a": 1 2}`, `{"a": [tr ue]}`, `{"a" 1}`, `{"a": 1,}`, `[1]`, `{"a": {"b": 1}`} {
		lean, _, _, ok := leanJSON([]byte(bad))
		if ok {
			assert.False(t, json.Valid(lean), "%s became the valid %s", bad, lean)
		}
	}
}

func ExampleLoadReader() {
	set, err := LoadReader("<stdin>", strings.NewReader(`{"apiVersion": "v1", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "namespace": "default"}}], "kind": "List"}`))
	fmt.Println(len(set.Pods), err)
	src, _ := set.SourceOf(set.Pods[0])
	fmt.Println(src)
	// Output:
	// 1 <nil>
	// <stdin>:1 item 1
}

// FuzzJSONStream holds the streaming reader, in small buffers, against the
// whole-stream reference on arbitrary JSON (managedFields aside, whose
// syntax errors the lean pass does not see).
func FuzzJSONStream(f *testing.F) {
	for _, s := range jsonStreams {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.Contains(data, []byte("items")) || bytes.Contains(data, []byte("managedFields")) {
			t.Skip()
		}
		summary := func(setup func(*loader)) string {
			l := newLoader()
			setup(l)
			l.decodeStream("fuzz.json", data)
			set, err := l.done()
			return fmt.Sprintf("%v %d pods %d nodes %d warnings", err, len(set.Pods), len(set.Nodes), len(set.Warnings))
		}
		want := summary(func(l *loader) { l.reference = true })
		if got := summary(func(l *loader) { l.readChunk, l.workers = 5, 2 }); got != want {
			t.Fatalf("the stream decodes\n%q\nwith %s; the reference with %s", data, got, want)
		}
	})
}
