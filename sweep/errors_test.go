package sweep

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A sweep file's errors give the file and the line at fault, one problem a
// line, and an unknown field the one it most likely misspells.
func TestParseErrorsGiveFileAndLine(t *testing.T) {
	const head = "name: s\nscenarios: [a.yaml]\nvariants:\n- name: base\n"
	for _, c := range []struct{ name, data, want string }{
		{"misspelt variant field", head + "- name: spot\n  nodePool: {\"*\": {}}\n",
			`sweep.yaml:6: invalid sweep: variants[1]: unknown field "nodePool" (did you mean nodePools?)`},
		{"misspelt top-level field", "scenarios: [a.yaml]\nseed: [1]\n",
			`sweep.yaml:2: invalid sweep: unknown field "seed" (did you mean seeds?)`},
		{"a value of the wrong type", head + "- name: double\n  workloadScale: twice\n",
			`sweep.yaml:6: invalid sweep: variants[1].workloadScale: expected a number, got the string "twice"`},
		{"two problems, two lines", head + "- name: base\n  workloadScale: 1000\n",
			"sweep.yaml:5: invalid sweep: variants[1].name: \"base\" is used twice\n" +
				"sweep.yaml:6: invalid sweep: variants[1].workloadScale: 1000 is outside 0..100"},
		{"a variant without a name", head + "- workloadScale: 2\n",
			`sweep.yaml:5: invalid sweep: variants[1].name: required`},
		{"no scenarios at all", "name: s\n",
			`sweep.yaml: invalid sweep: scenarios: at least one scenario file or folder is needed`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("sweep.yaml", []byte(c.data))
			require.ErrorIs(t, err, ErrInvalid)
			assert.EqualError(t, err, c.want)
		})
	}
}
