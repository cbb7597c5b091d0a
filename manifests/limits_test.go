package manifests

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/internal/clusterdump"
)

func TestLimitsRefuseTheAbsurd(t *testing.T) {
	var dump bytes.Buffer
	require.NoError(t, clusterdump.PendingPods(&dump, clusterdump.YAML, 5, 2))

	l := newLoader()
	l.limits = Limits{Bytes: 1 << 10}
	l.decodeReader("pods.yaml", bytes.NewReader(dump.Bytes()))
	_, err := l.done()
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.EqualError(t, err, "pods.yaml: more than 1 KiB: karpsim reads at most 1 KiB from one file or stream (a dump of a real cluster is far smaller)")

	for _, reference := range []bool{false, true} {
		l = newLoader()
		l.limits, l.reference = Limits{Objects: 4}, reference
		l.decodeReader("pods.yaml", bytes.NewReader(dump.Bytes()))
		set, err := l.done()
		assert.ErrorIs(t, err, ErrTooLarge)
		assert.EqualError(t, err, "pods.yaml: document 1 (line 1): more than 4 objects: karpsim reads at most 4 in one go (a dump of a real cluster has far fewer)")
		assert.Empty(t, set.Pods)
	}

	l = newLoader()
	l.limits = Limits{Objects: 2}
	l.decodeReader("objects.yaml", strings.NewReader("apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: c}\n"))
	set, err := l.done()
	assert.EqualError(t, err, "objects.yaml: document 3 (line 9): more than 2 objects: karpsim reads at most 2 in one go (a dump of a real cluster has far fewer)")
	assert.Len(t, set.Pods, 2)
}

// The defaults admit a real cluster's dump, and say what they are.
func TestDefaultLimits(t *testing.T) {
	assert.Equal(t, int64(1<<30), newLoader().limits.maxBytes())
	assert.Equal(t, 200_000, newLoader().limits.maxObjects())
	assert.Equal(t, "1 GiB", formatBytes(MaxStreamBytes))
}

// LoadReader reads standard input or a pipe as Load reads a file.
func TestLoadReader(t *testing.T) {
	var dump bytes.Buffer
	require.NoError(t, clusterdump.PendingPods(&dump, clusterdump.JSON, 7, 2))
	set, err := LoadReader("-", bytes.NewReader(dump.Bytes()))
	require.NoError(t, err)
	require.Len(t, set.Pods, 7)
	src, _ := set.SourceOf(set.Pods[6])
	assert.Equal(t, "-:1 item 7", src.String())
}

// Every limit of a load can be lowered (and so raised) through Limits, and
// what passes it is refused naming the file and the document or item.
func TestLoadLimited(t *testing.T) {
	pod := "apiVersion: v1\nkind: Pod\nmetadata: {name: %s, namespace: default}\nspec: {containers: [{name: c, image: x}]}\n"
	three := fmt.Sprintf(pod, "a") + "---\n" + fmt.Sprintf(pod, "b") + "---\n" + fmt.Sprintf(pod, "c")
	in := Input{Stream: Stream{Name: "pods.yaml", Data: []byte(three)}}

	set, err := LoadLimited(Limits{}, in)
	require.NoError(t, err)
	assert.Len(t, set.Pods, 3)

	_, err = LoadLimited(Limits{Objects: 2}, in)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorContains(t, err, "pods.yaml: document 3 (line 11): more than 2 objects")

	_, err = LoadLimited(Limits{Bytes: 100}, in)
	assert.EqualError(t, err, "pods.yaml: more than 100 bytes: karpsim reads at most 100 bytes from one file or stream (a dump of a real cluster is far smaller)")

	_, err = LoadLimited(Limits{ObjectBytes: 50}, in)
	assert.ErrorIs(t, err, ErrTooLarge)
	assert.ErrorContains(t, err, "pods.yaml: document 1 (line 1): an object of more than 50 bytes")

	list := "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a, namespace: default}\n  spec: {containers: [{name: c, image: x}]}\n"
	_, err = LoadLimited(Limits{ObjectBytes: 50}, Input{Stream: Stream{Name: "list.yaml", Data: []byte(list)}})
	assert.ErrorContains(t, err, "list.yaml: document 1 (line 1) item 1: an object of more than 50 bytes")

	long := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {a: " + strings.Repeat("x", 200<<10) + "}\n"
	_, err = LoadLimited(Limits{ObjectBytes: 100 << 10}, Input{Stream: Stream{Name: "long.yaml", Data: []byte(long)}})
	assert.EqualError(t, err, "long.yaml: line 4: longer than 100 KiB: karpsim reads objects of at most 100 KiB (the API server stores none over 1.5 MiB)")

	assert.Equal(t, Limits{Bytes: 1 << 30, Objects: 200_000, ObjectBytes: 16 << 20}, DefaultLimits())
}

// An input without any object karpsim reads is an error naming it; one
// with objects beside it is not.
func TestEmptyInputs(t *testing.T) {
	pod := Input{Stream: Stream{Name: "pod.yaml", Data: []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: default}\nspec: {containers: [{name: c, image: x}]}\n")}}
	for name, data := range map[string]string{
		"empty.yaml":    "",
		"comments.yaml": "# nothing\n---\n# still nothing\n...\n",
		"list.json":     `{"apiVersion": "v1", "kind": "List", "items": []}`,
	} {
		_, err := LoadLimited(Limits{}, pod, Input{Stream: Stream{Name: name, Data: []byte(data)}})
		assert.ErrorIs(t, err, ErrEmpty, name)
		assert.EqualError(t, err, name+": no objects: it holds no manifest of a kind karpsim reads", name)
	}
	skipped := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\n"
	var four []string
	for _, n := range []string{"a", "b", "c", "d"} {
		four = append(four, fmt.Sprintf(skipped, n))
	}
	_, err := LoadInputs(Input{Stream: Stream{Name: "cm.yaml", Data: []byte(strings.Join(four, "---\n"))}})
	assert.EqualError(t, err, "cm.yaml: no objects: it holds no manifest of a kind karpsim reads (it skipped ConfigMap/a, ConfigMap/b, ConfigMap/c and 1 more)")

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "empty.yaml"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pod.yaml"), pod.Stream.Data, 0o644))
	set, err := Load(dir)
	require.NoError(t, err, "a folder with one empty file and a pod")
	assert.Len(t, set.Pods, 1)
	_, err = Load(filepath.Join(dir, "empty.yaml"))
	assert.ErrorIs(t, err, ErrEmpty)
}

// A number written with an exponent past MinExponent is refused before it
// is parsed, wherever it stands; digests and words that hold one are not
// numbers.
func TestTinyExponent(t *testing.T) {
	for _, tc := range []struct {
		data string
		want string
	}{
		{"cpu: 1e-99999999\n", "1e-99999999"},
		{`{"cpu": "1.5E-1001"}`, "1.5E-1001"},
		{"cpu: -2e-0001001m\n", ""},
		{"cpu: -2e-0001001\n", "-2e-0001001"},
		{"cpu: 1e-1000\n", ""},
		{"cpu: 1e99999999\n", ""},
		{"image: x@sha256:1e-99999999abc\n", ""},
		{"name: v1e-99999999\n", ""},
		{"e-99999999\n", ""},
		{`uid: "8955015e-2858-4bcd-8123-0123456789ab"`, ""},
		{`uid: 0123abcd-4121-123e-456789012345`, ""},
		{"- 1e-5000\n", "1e-5000"},
		{"[1e-5000, 2]", "1e-5000"},
	} {
		_, number, found := tinyExponent([]byte(tc.data))
		assert.Equal(t, tc.want != "", found, tc.data)
		assert.Equal(t, tc.want, string(number), tc.data)
	}
	_, err := Decode("q.yaml", []byte("apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: default}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: \"1e-99999999\"}}\n"))
	assert.EqualError(t, err, "q.yaml: document 1: line 7: the number 1e-99999999 has an exponent below -1000, which karpsim does not read (no real amount needs one; parsing it as a quantity takes minutes)")
}

// Labels and annotations keep Kubernetes' rules on every kind, whichever
// path decoded the object.
func TestMetadataIsValidated(t *testing.T) {
	pod := func(meta string) string {
		return "apiVersion: v1\nkind: Pod\nmetadata: {name: a, namespace: default, " + meta + "}\nspec: {containers: [{name: c, image: x}]}\n"
	}
	for _, tc := range []struct{ meta, want string }{
		{"labels: {app: " + strings.Repeat("x", 64) + "}", `p.yaml: Pod/default/a: metadata.labels[app]: "` + strings.Repeat("x", 64) + `" is not a valid label value`},
		{`labels: {"bad key": x}`, `p.yaml: Pod/default/a: metadata.labels[bad key]: "bad key" is not a valid label key`},
		{`annotations: {"a/b/c": x}`, `p.yaml: Pod/default/a: metadata.annotations[a/b/c]: "a/b/c" is not a valid annotation key`},
		{"annotations: {a: " + strings.Repeat("x", 256<<10) + "}", "p.yaml: Pod/default/a: metadata.annotations: 262145 bytes in all, at most 262144 (256 KiB) are allowed"},
	} {
		for _, reference := range []bool{false, true} {
			l := newLoader()
			l.reference = reference
			l.decodeStream("p.yaml", []byte(pod(tc.meta)))
			_, err := l.done()
			assert.ErrorIs(t, err, ErrInvalid)
			assert.ErrorContains(t, err, tc.want)
		}
	}
	_, err := Decode("p.yaml", []byte(pod("labels: {app.kubernetes.io/name: web, tier: front-end_1.2}, annotations: {example.com/note: anything at all}")))
	assert.NoError(t, err)
}

// size counts every kind a Set holds.
func TestSetSizeCountsEveryKind(t *testing.T) {
	s := &Set{}
	v := reflect.ValueOf(s).Elem()
	kinds := 0
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Slice || v.Type().Field(i).Name == "Warnings" {
			continue
		}
		kinds++
		f.Set(reflect.Append(f, reflect.New(f.Type().Elem().Elem())))
	}
	assert.Equal(t, kinds, s.size())
}
