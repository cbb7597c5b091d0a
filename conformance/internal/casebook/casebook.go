// Package casebook holds the translations of upstream specs ("cases") that
// the conformance tables check karpsim against, runs them so that a known
// failure is data rather than a failed test, and classes each inventoried
// spec by its case's outcome. Package conformance (Karpenter's core and AWS
// provider suites) and conformance/azure (the Azure provider's) each keep a
// Book of their own; only their tests use it.
package casebook

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// Case is the translation of one or more upstream specs.
type Case struct {
	// Name is "slug", unique within its group.
	Name string
	// Fails, when set, says why karpsim is known to fail the case: a bug
	// not yet fixed, or a deliberate difference from Karpenter. The case
	// still runs, and the table records it as a failure with this reason;
	// a case with Fails that passes fails Check.
	Fails string
	Run   func(t *T)
}

// Book holds cases by "group/slug" and runs each once.
type Book struct {
	cases   map[string]Case
	once    sync.Once
	results map[string]Outcome
}

// Register adds a group's cases; it is called from package-level var
// declarations (var _ = register(...)) so that each file holds its own.
// It panics on a case registered twice, without Run, or whose slug holds
// a space or slash.
func (b *Book) Register(group string, cases ...Case) bool {
	if b.cases == nil {
		b.cases = map[string]Case{}
	}
	for _, c := range cases {
		id := group + "/" + c.Name
		if _, dup := b.cases[id]; dup || c.Run == nil || strings.ContainsAny(c.Name, " /") {
			panic(fmt.Sprintf("casebook: case %q is registered twice, has no Run, or has a space or slash in its slug", id))
		}
		b.cases[id] = c
	}
	return true
}

// Case returns the case registered as id.
func (b *Book) Case(id string) (Case, bool) {
	c, ok := b.cases[id]
	return c, ok
}

// IDs returns every case's id, sorted.
func (b *Book) IDs() []string {
	ids := make([]string, 0, len(b.cases))
	for id := range b.cases {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// Results runs every case once per test binary, one at a time, and returns
// their outcomes by id.
func (b *Book) Results() map[string]Outcome {
	b.once.Do(func() {
		b.results = make(map[string]Outcome, len(b.cases))
		for id, c := range b.cases {
			b.results[id] = Run(c)
		}
	})
	return b.results
}

// Check runs every case as a subtest named by its id. A case known to fail
// (Fails set) is skipped with its reason once it has failed; one that passes
// despite its Fails note, or fails without one, fails the test. update is
// the command that rewrites the table, for the message.
func (b *Book) Check(t *testing.T, update string) {
	res := b.Results()
	for _, id := range b.IDs() {
		c := b.cases[id]
		t.Run(id, func(t *testing.T) {
			out := res[id]
			switch {
			case c.Fails != "" && out.Failed:
				t.Skipf("known failure (%s): %s", c.Fails, strings.Join(out.Msgs, "; "))
			case c.Fails != "":
				t.Errorf("passes although it is recorded as failing (%s): remove Fails and run %s", c.Fails, update)
			case out.Failed:
				for _, m := range out.Msgs {
					t.Error(m)
				}
			}
		})
	}
}

// T records a case's failures without failing the test that runs it, so
// that a known failure can be reported as data. It has what
// github.com/stretchr/testify/require needs.
type T struct {
	failed bool
	msgs   []string
}

// Helper is there so that helpers read like testing helpers.
func (t *T) Helper() {}

// Errorf records a failure.
func (t *T) Errorf(format string, args ...any) {
	t.failed = true
	t.msgs = append(t.msgs, fmt.Sprintf(format, args...))
}

// Fatalf records a failure and ends the case.
func (t *T) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	t.FailNow()
}

// FailNow ends the case; it runs on its own goroutine (see Run).
func (t *T) FailNow() {
	t.failed = true
	runtime.Goexit()
}

// Outcome is what running a case found.
type Outcome struct {
	Failed bool
	Msgs   []string
}

// Run runs c on its own goroutine, so that FailNow can end it, and turns a
// panic into a failure.
func Run(c Case) Outcome {
	t := &T{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("panic: %v", r)
			}
		}()
		c.Run(t)
	}()
	<-done
	return Outcome{Failed: t.failed, Msgs: t.msgs}
}
