package sweep

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// readParts reads the three parts of testdata's sweep, as generic JSON.
func readParts(t *testing.T) [][]byte {
	var parts [][]byte
	for i := range 3 {
		data, err := os.ReadFile(fmt.Sprintf("../testdata/sweeps/parts/nodepool-designs-%d.json", i))
		require.NoError(t, err)
		parts = append(parts, data)
	}
	return parts
}

// edit changes a part's JSON through a generic tree.
func edit(t *testing.T, data []byte, change func(map[string]any)) []byte {
	var tree map[string]any
	require.NoError(t, json.Unmarshal(data, &tree))
	change(tree)
	out, err := json.MarshalIndent(tree, "", "  ")
	require.NoError(t, err)
	return out
}

func drop(key string, i int) func(map[string]any) {
	return func(tree map[string]any) {
		list := tree[key].([]any)
		tree[key] = append(list[:i:i], list[i+1:]...)
	}
}

// Merge refuses what a failed or foreign shard leaves, naming the part
// and what is wrong with it.
func TestMergeRefusesBadParts(t *testing.T) {
	good := readParts(t)
	// The parts' sweep id is a hash of the sweep file: ID in a message.
	var head struct{ Sweep string }
	require.NoError(t, json.Unmarshal(good[0], &head))
	require.NotEmpty(t, head.Sweep)
	for _, c := range []struct {
		name  string
		parts func(p [][]byte) [][]byte
		want  string
	}{
		{"an empty part", func(p [][]byte) [][]byte { p[1] = []byte("\n"); return p },
			"p1: cannot merge sweep parts: the part is empty (did its shard fail before it wrote its result?)"},
		{"JSON cut off mid-value", func(p [][]byte) [][]byte { p[2] = p[2][:len(p[2])/2]; return p },
			"p2: cannot merge sweep parts: the part is truncated: its JSON stops after 3117 bytes, mid-value (was its shard killed while writing?)"},
		{"a run left out", func(p [][]byte) [][]byte { p[0] = edit(t, p[0], drop("runs", 7)); return p },
			"p0: cannot merge sweep parts: the part is truncated: shard 0/3 of a sweep of 24 runs has 8 runs, the part holds 7 (the first missing: run 21)"},
		{"YAML cut at a line", func(p [][]byte) [][]byte {
			// As -o yaml writes it: keys in lexical order, the
			// identity after the runs.
			y, err := yaml.JSONToYAML(p[1])
			require.NoError(t, err)
			cut := strings.Index(string(y), "- index: 22")
			p[1] = y[:cut]
			return p
		}, `p1: cannot merge sweep parts: the part carries no sweep identity (no "sweep" field): it was cut off, or not written by 'karpsim sweep --shard'`},
		{"a row left out", func(p [][]byte) [][]byte { p[2] = edit(t, p[2], drop("rows", 0)); return p },
			"p2: cannot merge sweep parts: the part is truncated: its 8 runs make 8 rows, it holds 7"},
		{"a part without identity", func(p [][]byte) [][]byte {
			p[1] = edit(t, p[1], func(tree map[string]any) { delete(tree, "sweep") })
			return p
		}, `p1: cannot merge sweep parts: the part carries no sweep identity (no "sweep" field): it was cut off, or not written by 'karpsim sweep --shard'`},
		{"a part of another sweep", func(p [][]byte) [][]byte {
			p[2] = edit(t, p[2], func(tree map[string]any) { tree["sweep"] = "0123456789abcdef" })
			return p
		}, "p2: cannot merge sweep parts: the part is from another sweep: sweep 0123456789abcdef (nodepool-designs, 24 runs in 3 shards), where p0 is of sweep ID (nodepool-designs, 24 runs in 3 shards)"},
		{"a part of another split", func(p [][]byte) [][]byte {
			p[1] = edit(t, p[1], func(tree map[string]any) { tree["shard"] = map[string]any{"index": 1, "count": 4} })
			return p
		}, "p1: cannot merge sweep parts: run 4 is not one of shard 1/4 of a sweep of 24 runs"},
		{"a run of another shard", func(p [][]byte) [][]byte {
			p[1] = edit(t, p[1], func(tree map[string]any) { tree["runs"].([]any)[0].(map[string]any)["index"] = 3 })
			return p
		}, "p1: cannot merge sweep parts: run 3 is not one of shard 1/3 of a sweep of 24 runs"},
		{"a shard given twice", func(p [][]byte) [][]byte { p[2] = p[0]; return p },
			"p2: cannot merge sweep parts: shard 0/3 is given twice (also as p0)"},
		{"a shard missing", func(p [][]byte) [][]byte { return p[:2] },
			"cannot merge sweep parts: shard 2/3 of sweep ID (nodepool-designs, 24 runs in 3 shards): no part given holds it, so 8 of 24 runs are missing; is a shard's part left out?"},
		{"not a sweep part", func(p [][]byte) [][]byte { p[0] = []byte("apiVersion: v1\nkind: Pod\n"); return p },
			`p0: cannot merge sweep parts: not a sweep part: unknown field "apiVersion"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			parts := c.parts(append([][]byte(nil), good...))
			_, err := mergeData(parts)
			require.ErrorIs(t, err, ErrMerge)
			assert.EqualError(t, err, strings.ReplaceAll(c.want, "sweep ID (", "sweep "+head.Sweep+" ("))
		})
	}
	merged, err := mergeData(good)
	require.NoError(t, err)
	assert.Len(t, merged.Runs, 24)
}

func mergeData(data [][]byte) (*Result, error) {
	var parts []Part
	for i, d := range data {
		name := fmt.Sprintf("p%d", i)
		r, err := ReadPart(name, d)
		if err != nil {
			return nil, err
		}
		parts = append(parts, Part{Name: name, Result: r})
	}
	return MergeParts(parts)
}
