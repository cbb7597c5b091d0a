package manifests

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/internal/clusterdump"
)

// sigsItem converts an item the way the whole-document path does.
func sigsItem(t *testing.T, item []byte) (any, bool) {
	j, err := yaml.YAMLToJSONStrict(item)
	if err != nil {
		return nil, false
	}
	var seq []any
	require.NoError(t, sigsjson.UnmarshalCaseSensitivePreserveInts(j, &seq))
	require.Len(t, seq, 1)
	if m, ok := seq[0].(map[string]any); ok {
		dropManagedFields(m)
	}
	return seq[0], true
}

// checkBlockItem holds blockYAMLToJSON against sigs.k8s.io/yaml: where the
// fast converter answers, it answers the same.
func checkBlockItem(t *testing.T, item []byte) bool {
	t.Helper()
	got, _, _, ok := blockYAMLToJSON(item)
	want, wantOK := sigsItem(t, item)
	if !ok {
		return false
	}
	require.True(t, wantOK, "blockYAMLToJSON read what YAML refuses:\n%s", item)
	var tree any
	require.NoError(t, sigsjson.UnmarshalCaseSensitivePreserveInts(got, &tree), "%s", got)
	assert.Equal(t, want, tree, "item:\n%s", item)
	return true
}

func TestBlockYAMLMatchesYAML(t *testing.T) {
	read := 0
	for name, data := range listInputs(t) {
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) {
			continue
		}
		_, items, ok := splitYAMLList(data)
		require.True(t, ok, name)
		for _, item := range items {
			if checkBlockItem(t, item) {
				read++
			}
		}
	}
	assert.Greater(t, read, 100)
}

func TestBlockYAMLCases(t *testing.T) {
	for _, c := range []struct {
		item string
		read bool
	}{
		{"- a: 1\n  b: -2\n  c: 500m\n  d: 1Gi\n  e: \"x: y\"\n  f: 'it''s'\n  g:\n  h: ~\n  i: true\n  j: null\n  k: {}\n  l: []\n", true},
		{"- a:\n  - x\n  - p: 1\n    q: 2\n  -   w\n  b: plain # comment\n", true},
		{"- message: 'a long message that\n    goes on here'\n  other: \"and more\n\n    after a blank\"\n", true},
		{"- other: \"an \\\"escape\\\"\n    on a folded line\"\n", false},
		{"- message: a plain scalar\n    folded over lines\n  x: 1\n", true},
		{"- metadata:\n    name: a\n    managedFields:\n    - manager: x\n      fieldsV1:\n        f:a: {}\n    namespace: b\n", true},
		{"- k: \"\\u00e9\\x41\\t\"\n  \"quoted key\": 2\n  'single': 3\n  /path: 4\n", true},
		{"- a: yes\n", false},
		{"- a: On\n", false},
		{"- a: 1.5\n", false},
		{"- a: 012\n", false},
		{"- a: 0x1f\n", false},
		{"- a: 1e3\n", false},
		{"- a: 2024-01-02\n", false},
		{"- a: 2024-01-02T15:04:05Z\n", false},
		{"- a: 1e-5\n", false},
		{"- a: 0e2d14f7-5707-7575-7489-d716d4b3821c\n  b: 12ab-34\n", true},
		{"- a: |\n    block\n", false},
		{"- a: &x 1\n  b: *x\n", false},
		{"- a: {b: 1, c: [x, \"y\", 'z', 2, {}], d: {e: ~}}\n  f: [m5.large, 500m]\n", true},
		{"- a: {b: 1,\n    c: 2}\n", false},
		{"- a: [x, ]\n", false},
		{"- a: {b: 1, b: 2}\n", false},
		{"- a: {b:1}\n", false},
		{"- a: [1.5]\n", false},
		{"- a: 1\n  a: 2\n", false},
		{"- a: !!str 1\n", false},
		{"- a: x: y\n", false},
		{"- a: 1\n - b\n", false},
		{"- - a\n", false},
		{"- 1: a\n", false},
		{"- a: 1\n\tb: 2\n", false},
		{"- a: " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "\n", false},
	} {
		assert.Equal(t, c.read, checkBlockItem(t, []byte(c.item)), "%q", c.item)
	}
}

func TestBlockDocument(t *testing.T) {
	doc := "# a comment\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  managedFields:\n  - x: 1\nstatus:\n  capacity: {cpu: \"2\", memory: 7577Mi}\n"
	j, apiVersion, kind, ok := blockDocumentToJSON([]byte(doc))
	require.True(t, ok)
	assert.Equal(t, "v1", apiVersion)
	assert.Equal(t, "Node", kind)
	assert.JSONEq(t, `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}, "status": {"capacity": {"cpu": "2", "memory": "7577Mi"}}}`, string(j))
}

// An object's own metadata.managedFields is left out, and only that.
func TestBlockYAMLLeavesOutManagedFields(t *testing.T) {
	item := "- metadata:\n    managedFields:\n    - a: 1\n    name: x\n  spec:\n    managedFields: kept\n"
	j, _, _, ok := blockYAMLToJSON([]byte(item))
	require.True(t, ok)
	assert.JSONEq(t, `{"metadata": {"name": "x"}, "spec": {"managedFields": "kept"}}`, string(j))
}

// Every document of the scenarios and of a generated cluster that
// blockDocumentToJSON reads, it reads as sigs.k8s.io/yaml does.
func TestBlockDocumentsMatchYAML(t *testing.T) {
	files, _ := filepath.Glob("../testdata/*/*/*.yaml")
	files2, _ := filepath.Glob("../testdata/*/*.yaml")
	var streams [][]byte
	for _, f := range append(files, files2...) {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		streams = append(streams, data)
	}
	var cluster bytes.Buffer
	require.NoError(t, clusterdump.DisruptionCluster(&cluster, 20))
	streams = append(streams, cluster.Bytes())
	read, all := 0, 0
	for _, data := range streams {
		docs := &yamlReader{r: bufio.NewReader(bytes.NewReader(data)), file: "x"}
		for {
			doc, ok := docs.next()
			if !ok {
				break
			}
			all++
			got, _, _, ok := blockDocumentToJSON(doc.data)
			if !ok {
				continue
			}
			read++
			j, err := yaml.YAMLToJSONStrict(doc.data)
			require.NoError(t, err, "blockDocumentToJSON read what YAML refuses:\n%s", doc.data)
			var want, tree any
			require.NoError(t, sigsjson.UnmarshalCaseSensitivePreserveInts(j, &want))
			if m, ok := want.(map[string]any); ok {
				dropManagedFields(m)
			}
			require.NoError(t, sigsjson.UnmarshalCaseSensitivePreserveInts(got, &tree), "%s", got)
			assert.Equal(t, want, tree, "document:\n%s", doc.data)
		}
	}
	t.Logf("%d of %d documents read without a YAML parser", read, all)
	assert.Greater(t, read, all/2)
}
