package casebook

import "fmt"

// Statuses of a spec in a conformance table.
const (
	StatusPass          = "pass"
	StatusFail          = "fail"
	StatusNotApplicable = "not applicable"
	StatusNotYet        = "not yet"
	StatusSkipped       = "skipped upstream"
)

// Entry is how an inventory lists one spec: the case that translates it,
// or why none does.
type Entry struct {
	// Test is the case's id, "" while not translated.
	Test string
	// NotApplicable and SkippedUpstream say why the spec has no case, or,
	// for a spec upstream skips, that it counts apart even when translated.
	NotApplicable, SkippedUpstream string
	// Note is shown beside a spec not yet translated.
	Note string
}

// Status classes an entry by its inventory and its case's outcome, with the
// note the table shows. ok is false when the entry names a case that is not
// registered. rerun is the command that shows a case's failure, for an
// unexplained one.
func (b *Book) Status(e Entry, rerun string) (status, note string, ok bool) {
	res := b.Results()
	switch {
	case e.NotApplicable != "":
		return StatusNotApplicable, e.NotApplicable, true
	case e.SkippedUpstream != "":
		_, registered := res[e.Test]
		return StatusSkipped, e.SkippedUpstream, e.Test == "" || registered
	case e.Test == "":
		return StatusNotYet, e.Note, true
	}
	out, registered := res[e.Test]
	if !registered {
		return "", "", false
	}
	if !out.Failed {
		return StatusPass, "", true
	}
	if note = b.cases[e.Test].Fails; note == "" {
		note = "unexplained failure: see " + rerun + e.Test
	}
	return StatusFail, note, true
}

// Tally counts specs by status.
type Tally struct{ Specs, NotApplicable, Skipped, Translated, Pass, Fail, NotYet int }

// Add counts one spec of the status.
func (t *Tally) Add(status string) {
	t.Specs++
	switch status {
	case StatusNotApplicable:
		t.NotApplicable++
	case StatusSkipped:
		t.Skipped++
	case StatusNotYet:
		t.NotYet++
	case StatusPass:
		t.Translated++
		t.Pass++
	case StatusFail:
		t.Translated++
		t.Fail++
	}
}

// Plus adds another tally's counts.
func (t *Tally) Plus(o Tally) {
	t.Specs += o.Specs
	t.NotApplicable += o.NotApplicable
	t.Skipped += o.Skipped
	t.Translated += o.Translated
	t.Pass += o.Pass
	t.Fail += o.Fail
	t.NotYet += o.NotYet
}

// Applicable counts the specs neither not applicable nor skipped upstream.
func (t Tally) Applicable() int { return t.Specs - t.NotApplicable - t.Skipped }

// Row is the tally as a row of a totals table: name, specs, not applicable,
// skipped upstream, applicable, translated, pass, fail, not yet.
func (t Tally) Row(name string) string {
	return fmt.Sprintf("| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", name, t.Specs, t.NotApplicable, t.Skipped,
		t.Applicable(), t.Translated, t.Pass, t.Fail, t.NotYet)
}
