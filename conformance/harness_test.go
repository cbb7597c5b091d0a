package conformance

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The harness must see every way a case can fail, without failing itself.
func TestRunCaseRecordsFailures(t *testing.T) {
	for name, run := range map[string]func(t *T){
		"Errorf":  func(t *T) { t.Errorf("no") },
		"FailNow": func(t *T) { require.Equal(t, 1, 2); panic("not reached") },
		"panic":   func(t *T) { panic("boom") },
	} {
		out := runCase(conformanceCase{Name: name, Run: run})
		if !out.failed || len(out.msgs) == 0 {
			t.Errorf("%s: recorded %+v, want a failure with a message", name, out)
		}
	}
	if out := runCase(conformanceCase{Name: "ok", Run: func(*T) {}}); out.failed {
		t.Errorf("a case that does nothing failed: %+v", out)
	}
}
