package casebook

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Run must see every way a case can fail, without failing itself.
func TestRunRecordsFailures(t *testing.T) {
	for name, run := range map[string]func(t *T){
		"Errorf":  func(t *T) { t.Errorf("no") },
		"FailNow": func(t *T) { require.Equal(t, 1, 2); panic("not reached") },
		"panic":   func(t *T) { panic("boom") },
	} {
		out := Run(Case{Name: name, Run: run})
		if !out.Failed || len(out.Msgs) == 0 {
			t.Errorf("%s: recorded %+v, want a failure with a message", name, out)
		}
	}
	if out := Run(Case{Name: "ok", Run: func(*T) {}}); out.Failed {
		t.Errorf("a case that does nothing failed: %+v", out)
	}
}

func TestStatus(t *testing.T) {
	var b Book
	b.Register("g", Case{Name: "ok", Run: func(*T) {}},
		Case{Name: "known", Fails: "a deliberate difference", Run: func(t *T) { t.Errorf("no") }},
		Case{Name: "bad", Run: func(t *T) { t.Errorf("no") }})
	for _, tc := range []struct {
		e            Entry
		status, note string
		ok           bool
	}{
		{Entry{Test: "g/ok"}, StatusPass, "", true},
		{Entry{Test: "g/known"}, StatusFail, "a deliberate difference", true},
		{Entry{Test: "g/bad"}, StatusFail, "unexplained failure: see rerun g/bad", true},
		{Entry{Test: "g/missing"}, "", "", false},
		{Entry{Note: "needs X"}, StatusNotYet, "needs X", true},
		{Entry{NotApplicable: "metrics"}, StatusNotApplicable, "metrics", true},
		{Entry{Test: "g/ok", SkippedUpstream: "never runs"}, StatusSkipped, "never runs", true},
		{Entry{Test: "g/missing", SkippedUpstream: "never runs"}, StatusSkipped, "never runs", false},
	} {
		status, note, ok := b.Status(tc.e, "rerun ")
		require.Equal(t, []any{tc.status, tc.note, tc.ok}, []any{status, note, ok}, "%+v", tc.e)
	}
	var tl Tally
	for _, s := range []string{StatusPass, StatusFail, StatusNotYet, StatusNotApplicable, StatusSkipped} {
		tl.Add(s)
	}
	require.Equal(t, "| x | 5 | 1 | 1 | 3 | 2 | 1 | 1 | 1 |\n", tl.Row("x"))
}

func TestRegisterRefusesBadCases(t *testing.T) {
	var b Book
	b.Register("g", Case{Name: "a", Run: func(*T) {}})
	for _, c := range []Case{{Name: "a", Run: func(*T) {}}, {Name: "b"}, {Name: "c d", Run: func(*T) {}}} {
		require.Panics(t, func() { b.Register("g", c) }, c.Name)
	}
}
