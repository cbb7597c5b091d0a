package manifests

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/equality"
)

// allObjects lists every object of a Set, in a fixed order.
func allObjects(s *Set) []any {
	var out []any
	v := reflect.ValueOf(s).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() != reflect.Slice || v.Type().Field(i).Name == "Warnings" {
			continue
		}
		for j := 0; j < f.Len(); j++ {
			out = append(out, f.Index(j).Interface())
		}
	}
	return out
}

// TestRoundTrip decodes every seed object, marshals it to JSON and decodes
// that again: the objects must be equal (quantities by value), and decoding
// adds no warning.
func TestRoundTrip(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(seeds, "*.yaml"))
	require.NoError(t, err)
	count := 0
	for _, file := range files {
		first, _ := Load(file)
		for i, obj := range allObjects(first) {
			t.Run(fmt.Sprintf("%s/%d", filepath.Base(file), i), func(t *testing.T) {
				data, err := json.Marshal(obj)
				require.NoError(t, err)
				second, err := Decode("roundtrip.json", data)
				for _, p := range problems(t, err) {
					require.True(t, errors.Is(p, ErrMissingReference) || errors.Is(p, ErrInvalid), "%v", p)
				}
				again := allObjects(second)
				require.Len(t, again, 1)
				// Quantities compare by value: "1000" comes back as "1k".
				if !equality.Semantic.DeepEqual(obj, again[0]) {
					assert.Equal(t, obj, again[0])
				}
				assert.Empty(t, second.Warnings)

				// From then on the JSON is canonical and objects are identical.
				data, err = json.Marshal(again[0])
				require.NoError(t, err)
				third, _ := Decode("roundtrip.json", data)
				assert.Equal(t, again, allObjects(third))
			})
			count++
		}
	}
	assert.Equal(t, 21, count)
}
