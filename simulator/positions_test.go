package simulator

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scenario's errors point at the mistake: the file and line of the field
// at fault, the step by index and what it does, and, for an unknown field,
// the field it most likely misspells. Each problem is one line.
func TestScenarioErrorsGiveFileLineAndStep(t *testing.T) {
	const head = "name: x\nduration: 1h\nsteps:\n- {at: 1m, scale: {deployment: inflate, replicas: 1}}\n"
	for _, c := range []struct {
		name, file, doc, want string
	}{
		{name: "misspelt step kind", file: "my.yaml",
			doc:  head + "- at: 2m\n  scael: {deployment: inflate, replicas: 3}\n",
			want: `my.yaml:6: invalid scenario: steps[1] (scale inflate): unknown field "scael" (did you mean scale?)`},
		{name: "misspelt top-level field", file: "my.yaml",
			doc:  "name: x\nduraton: 1h\n",
			want: `my.yaml:2: invalid scenario: unknown field "duraton" (did you mean duration?)`},
		{name: "misspelt field inside a step", file: "my.yaml",
			doc:  head + "- at: 2m\n  traffic: {deployment: web, evry: 1h, min: 1, max: 2}\n",
			want: `my.yaml:6: invalid scenario: steps[1] (traffic web): traffic: unknown field "evry" (did you mean every?)`},
		{name: "unknown field far from any", file: "my.yaml",
			doc:  head + "color: blue\n",
			want: `my.yaml:5: invalid scenario: unknown field "color"`},
		{name: "a value of the wrong type", file: "my.yaml",
			doc:  head + "- at: 2m\n  scale:\n    deployment: inflate\n    replicas: ten\n",
			want: `my.yaml:8: invalid scenario: steps[1] (scale inflate): scale.replicas: expected an integer, got the string "ten"`},
		{name: "a duration that does not parse", file: "my.yaml",
			doc:  head + "- at: soon\n  releaseAMI: {nodeClass: default, id: ami-1}\n",
			want: `my.yaml:5: invalid scenario: steps[1] (releaseAMI default): at: "soon" is not a duration (use e.g. 30s, 5m or 8h)`},
		{name: "a step that breaks a rule", file: "my.yaml",
			doc:  head + "- {at: 2m, scale: {deployment: inflate, replicas: -1}}\n",
			want: `my.yaml:5: invalid scenario: steps[1] (scale inflate): scale needs a deployment and replicas ≥ 0`},
		{name: "a field that breaks a rule", file: "my.yaml",
			doc:  head + "cloud:\n  failureRate: 2\n",
			want: `my.yaml:6: invalid scenario: cloud.failureRate 2 is not in [0, 1]`},
		{name: "several problems, each with its line", file: "my.yaml",
			doc: head + "- {at: 2m, scael: {deployment: a, replicas: 1}}\n- {at: 3m, interupt: {count: 1}}\n",
			want: `my.yaml:5: invalid scenario: steps[1] (scale a): unknown field "scael" (did you mean scale?)` + "\n" +
				`my.yaml:6: invalid scenario: steps[2] (interrupt): unknown field "interupt" (did you mean interrupt?)`},
		{name: "JSON on one line has no line worth naming", file: "my.json",
			doc:  `{"duration": "1h", "steps": [{"at": "1m", "scael": {"deployment": "web"}}]}`,
			want: `my.json: invalid scenario: steps[0] (scale web): unknown field "scael" (did you mean scale?)`},
		{name: "without a file name", file: "",
			doc:  head + "- at: 2m\n  scael: {deployment: inflate, replicas: 3}\n",
			want: `line 6: invalid scenario: steps[1] (scale inflate): unknown field "scael" (did you mean scale?)`},
		{name: "no duration at all", file: "my.yaml",
			doc:  "seed: 1\n",
			want: `my.yaml: invalid scenario: duration must be positive`},
		{name: "YAML that does not parse", file: "my.yaml",
			doc:  "duration: 1h\nsteps: [\n",
			want: `my.yaml: invalid scenario: yaml: line 2: did not find expected node content`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseScenarioFile(c.file, []byte(c.doc))
			require.ErrorIs(t, err, ErrInvalidScenario)
			assert.EqualError(t, err, c.want)
		})
	}
}

// A document the YAML decoder refuses before any field is read (aliases
// that expand too far) keeps the decoder's message, not a field's.
func TestScenarioAliasBombKeepsTheDecodersMessage(t *testing.T) {
	doc := "name: lol\nduration: 1h\nx: &a [y, y, y, y, y, y, y, y, y]\n"
	prev := "a"
	for i := range 8 {
		name := string(rune('b' + i))
		doc += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	_, err := ParseScenarioFile("lol.yaml", []byte(doc))
	require.ErrorIs(t, err, ErrInvalidScenario)
	assert.Contains(t, err.Error(), "lol.yaml: invalid scenario: ")
	assert.Contains(t, err.Error(), "aliasing")
}
