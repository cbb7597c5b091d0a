package manifests

import (
	"path/filepath"
	"strings"
	"testing"
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
