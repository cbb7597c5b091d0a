package manifests

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// FuzzDecode feeds arbitrary bytes to Decode: it must never panic, always
// return a Set, and report every problem as an *Error naming the stream.
func FuzzDecode(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(seeds, "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		f.Add(mustReadF(f, file))
	}
	for _, c := range badManifests {
		f.Add([]byte(c.yaml))
	}
	f.Add([]byte(`{"apiVersion":"v1","kind":"List","items":[{"kind":"Pod","apiVersion":"v1","metadata":{"name":"a"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode("fuzz.yaml", data)
		if s == nil {
			t.Fatal("Decode returned a nil Set")
		}
		for _, p := range problems(t, err) {
			if !strings.HasPrefix(p.Error(), "fuzz.yaml: ") {
				t.Fatalf("error does not name the stream: %v", p)
			}
		}
	})
}

func mustReadF(f *testing.F, path string) []byte {
	f.Helper()
	data, err := readFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return data
}

// FuzzBlockYAML holds the converters against sigs.k8s.io/yaml on arbitrary
// documents: whatever blockDocumentToJSON reads, the YAML parser reads the
// same, and a List is decoded the same item by item as on the reference
// path (its managedFields aside).
func FuzzBlockYAML(f *testing.F) {
	files, err := filepath.Glob(filepath.Join(seeds, "*.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, file := range files {
		f.Add(mustReadF(f, file))
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: a\n    labels: {app: x, n: \"1\"}\n    managedFields:\n    - manager: m\n  spec:\n    containers:\n    - name: c\n      resources: {requests: {cpu: 500m}}\n"))
	f.Add([]byte("a: 'x\n  y'\nb: \"p\\tq\"\nc: [1, -2, 0x3, 1.5, yes]\nd: 12ab-34\n"))
	f.Add([]byte(`{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a", "labels": {"x": "y"}}}, {"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n"}}], "metadata": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if j, _, _, ok := blockDocumentToJSON(data); ok {
			want, err := yaml.YAMLToJSONStrict(data)
			if err != nil {
				t.Fatalf("blockDocumentToJSON read what YAML refuses (%v):\n%q", err, data)
			}
			var a, b any
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(want, &a); err != nil {
				t.Skip()
			}
			if m, ok := a.(map[string]any); ok {
				dropManagedFields(m)
			}
			if err := sigsjson.UnmarshalCaseSensitivePreserveInts(j, &b); err != nil {
				t.Fatalf("blockDocumentToJSON wrote invalid JSON %q for\n%q", j, data)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("blockDocumentToJSON read\n%q\nas %s, YAML as %s", data, j, want)
			}
		}
		// Where managedFields are cut as text, what is inside them is not
		// parsed, so a syntax error there is not reported: such input is
		// left out of the comparison.
		if bytes.Contains(data, []byte("items")) && !bytes.Contains(data, []byte("managedFields")) {
			ref, fast := newLoader(), newLoader()
			ref.reference = true
			ref.decodeStream("fuzz.yaml", data)
			fast.decodeStream("fuzz.yaml", data)
			rs, rerr := ref.done()
			fs, ferr := fast.done()
			if fmt.Sprint(rerr) != fmt.Sprint(ferr) || len(rs.Pods) != len(fs.Pods) || len(rs.Warnings) != len(fs.Warnings) {
				t.Fatalf("the List path decodes\n%q\nwith %v, %d pods, %d warnings; the reference path with %v, %d pods, %d warnings",
					data, ferr, len(fs.Pods), len(fs.Warnings), rerr, len(rs.Pods), len(rs.Warnings))
			}
		}
	})
}
