package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// misspeltNodePool spells spec.template.spec.requirements "requirments".
const misspeltNodePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirments:
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m]}
`

// misspeltScenario spells its second step's kind "scael".
const misspeltScenario = `name: typo
duration: 1h
steps:
- {at: 1m, scale: {deployment: inflate, replicas: 10}}
- at: 20m
  scael: {deployment: inflate, replicas: 0}
`

// TestErrorsPointAtTheMistake holds that the errors a newcomer's first
// mistakes give name the file, the line and the field meant: a misspelt
// field in a manifest, a scenario or a sweep file, and a shard's part that
// is empty, cut off or from another sweep (which sweep merge once took).
func TestErrorsPointAtTheMistake(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return path
	}
	root := filepath.Join("..", "..")
	part := func(i int) string {
		data, err := os.ReadFile(filepath.Join(root, "testdata", "sweeps", "parts", "nodepool-designs-"+string(rune('0'+i))+".json"))
		require.NoError(t, err)
		return string(data)
	}
	parts := []string{write("p0.json", part(0)), write("p1.json", part(1)), write("p2.json", part(2))}
	np := write("np.yaml", misspeltNodePool)
	sc := write("typo.yaml", misspeltScenario)
	sw := write("sweep.yaml", "name: s\nscenarios: [typo.yaml]\nvariants:\n- name: base\n- name: spot\n  nodePool: {\"*\": {}}\n")
	empty := write("empty.json", "")
	truncated := write("cut.json", part(2)[:1000])
	// The parts' sweep id is a hash of the sweep file: another id is
	// another sweep.
	id := regexp.MustCompile(`"sweep": "[0-9a-f]+"`).FindString(part(2))
	require.NotEmpty(t, id)
	foreign := write("foreign.json", strings.Replace(part(2), id, `"sweep": "0000000000000000"`, 1))
	for _, c := range []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{name: "misspelt NodePool field", args: []string{"plan", "-f", np},
			want: np + ": NodePool/default: spec.template.spec.requirements: required (an empty list is allowed); unknown field requirments (did you mean requirements?)"},
		{name: "misspelt scenario step", args: []string{"simulate", "-f", sc},
			want: sc + `:6: invalid scenario: steps[1] (scale inflate): unknown field "scael" (did you mean scale?)`},
		{name: "misspelt scenario step on standard input", stdin: misspeltScenario, args: []string{"simulate", "-f", "-"},
			want: `<stdin>:6: invalid scenario: steps[1] (scale inflate): unknown field "scael" (did you mean scale?)`},
		{name: "misspelt sweep field", args: []string{"sweep", "-f", sw},
			want: sw + `:6: invalid sweep: variants[1]: unknown field "nodePool" (did you mean nodePools?)`},
		{name: "a sweep of a misspelt scenario", args: []string{"sweep", "-f", write("sweep2.yaml", "scenarios: [typo.yaml]\n")},
			want: sc + `:6: invalid scenario: steps[1] (scale inflate): unknown field "scael" (did you mean scale?)`},
		{name: "merge with an empty part", args: []string{"sweep", "merge", parts[0], empty, parts[2]},
			want: empty + ": cannot merge sweep parts: the part is empty"},
		{name: "merge with a part cut off", args: []string{"sweep", "merge", parts[0], parts[1], truncated},
			want: truncated + ": cannot merge sweep parts: the part is truncated"},
		{name: "merge with a part of another sweep", args: []string{"sweep", "merge", parts[0], parts[1], foreign},
			want: foreign + ": cannot merge sweep parts: the part is from another sweep: sweep 0000000000000000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := runWithStdin(c.stdin, c.args...)
			assert.Equal(t, 1, code, stderr)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, c.want)
		})
	}
}
