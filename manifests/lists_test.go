package manifests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/internal/clusterdump"
)

// decodeWith decodes data with a loader set up by setup, and returns
// everything the result holds as text: the Set, each object's source, the
// warnings and the errors.
func decodeWith(t *testing.T, name string, data []byte, setup func(*loader)) string {
	t.Helper()
	l := newLoader()
	setup(l)
	l.decodeStream(name, data)
	if !l.reference {
		assert.NotZero(t, l.listItems, "%s was not decoded item by item", name)
	}
	set, err := l.done()
	var b strings.Builder
	out, jerr := json.MarshalIndent(set, "", " ")
	require.NoError(t, jerr)
	b.Write(out)
	v := reflect.ValueOf(set).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() != reflect.Slice || v.Type().Field(i).Name == "Warnings" {
			continue
		}
		for j := range f.Len() {
			src, _ := set.SourceOf(f.Index(j).Interface())
			fmt.Fprintf(&b, "\n%s[%d] from %s", v.Type().Field(i).Name, j, src)
		}
	}
	fmt.Fprintf(&b, "\nerror: %v", err)
	return b.String()
}

// listInputs are List documents in YAML and JSON: kubectl dumps, and every
// scenario under testdata/ turned into a List.
func listInputs(t *testing.T) map[string][]byte {
	inputs := map[string][]byte{}
	for _, f := range []clusterdump.Format{clusterdump.YAML, clusterdump.JSON} {
		var buf bytes.Buffer
		require.NoError(t, clusterdump.PendingPods(&buf, f, 60, 7))
		inputs["pods."+f.String()] = buf.Bytes()
	}
	files, _ := filepath.Glob("../testdata/*/*/input.yaml")
	require.NotEmpty(t, files)
	for _, file := range files {
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		if _, err := Decode(file, data); err != nil {
			continue
		}
		var items []any
		for _, doc := range bytes.Split(data, []byte("\n---\n")) {
			j, err := yaml.YAMLToJSON(doc)
			require.NoError(t, err)
			var item any
			require.NoError(t, json.Unmarshal(j, &item))
			if item != nil {
				items = append(items, item)
			}
		}
		list := map[string]any{"apiVersion": "v1", "kind": "List", "items": items}
		j, _ := json.MarshalIndent(list, "", "    ")
		y, _ := yaml.Marshal(list)
		inputs[file+".json"] = j
		inputs[file+".yaml"] = y
	}
	return inputs
}

// The item-by-item List path gives what the whole-document path gives, for
// any number of workers.
func TestListPathMatchesWholeDocuments(t *testing.T) {
	workerCounts := []int{1, 2, 5, 0} // 0: GOMAXPROCS
	if testing.Short() {
		workerCounts = []int{1, 3}
	}
	for name, data := range listInputs(t) {
		whole := decodeWith(t, name, data, func(l *loader) { l.reference = true })
		for _, workers := range workerCounts {
			got := decodeWith(t, name, data, func(l *loader) { l.workers = workers })
			if got != whole {
				t.Errorf("%s with %d workers differs from the whole document:\n%s", name, workers, firstDifference(got, whole))
			}
		}
	}
}

// Multi-document streams decode the same on any number of workers, and the
// same as on the reference path.
func TestDocumentsMatchReference(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*/*/input.yaml")
	seeds, _ := filepath.Glob("../testdata/seed-manifests/*.yaml")
	var cluster bytes.Buffer
	require.NoError(t, clusterdump.DisruptionCluster(&cluster, 30))
	inputs := map[string][]byte{"cluster.yaml": cluster.Bytes()}
	for _, f := range append(files, seeds...) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		inputs[f] = data
	}
	for name, data := range inputs {
		reference := decodeWith(t, name, data, func(l *loader) { l.reference, l.listItems = true, 1 })
		for _, workers := range []int{1, 2, 5, 0} { // 0: GOMAXPROCS
			got := decodeWith(t, name, data, func(l *loader) { l.workers, l.listItems = workers, 1 })
			if got != reference {
				t.Errorf("%s with %d workers differs from the reference path:\n%s", name, workers, firstDifference(got, reference))
			}
		}
	}
}

func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n  list path: %s\n  whole:     %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(al), len(bl))
}

// The managedFields kubectl prints are dropped without being decoded.
func TestManagedFieldsDropped(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, clusterdump.PendingPods(&buf, clusterdump.YAML, 2, 1))
	item := buf.Bytes()[bytes.Index(buf.Bytes(), []byte("- apiVersion")):bytes.Index(buf.Bytes(), []byte("kind: List"))]
	item = item[:bytes.Index(item[2:], []byte("\n- "))+3]
	lean := stripManagedFieldsYAML(item)
	assert.NotContains(t, string(lean), "managedFields")
	assert.NotContains(t, string(lean), "f:spec")
	assert.Contains(t, string(lean), "    name: ")
	assert.Contains(t, string(lean), "    ownerReferences:")
	set, err := Decode("pods.yaml", buf.Bytes())
	require.NoError(t, err)
	require.Len(t, set.Pods, 2)
	assert.Nil(t, set.Pods[0].ManagedFields)
	assert.Equal(t, "ReplicaSet", set.Pods[0].OwnerReferences[0].Kind)
}
