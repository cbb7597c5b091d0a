package conformance

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// A conformanceCase is the translation of one or more upstream specs.
type conformanceCase struct {
	// Name is "slug", unique within its group.
	Name string
	// Fails, when set, says why karpsim is known to fail the case: a bug
	// not yet fixed, or a deliberate difference from Karpenter. The case
	// still runs, and the README records it as a failure with this reason;
	// a case with Fails that passes fails TestSpecs.
	Fails string
	Run   func(t *T)
}

// registry holds every case by "group/slug".
var registry = map[string]conformanceCase{}

// register adds a group's cases; it is called from package-level var
// declarations (var _ = register(...)) so that each file holds its own.
func register(group string, cases ...conformanceCase) bool {
	for _, c := range cases {
		id := group + "/" + c.Name
		if _, dup := registry[id]; dup || c.Run == nil || strings.ContainsAny(c.Name, " /") {
			panic(fmt.Sprintf("conformance: case %q is registered twice, has no Run, or has a space or slash in its slug", id))
		}
		registry[id] = c
	}
	return true
}

// T records a case's failures without failing the test that runs it, so
// that a known failure can be reported as data. It has what
// github.com/stretchr/testify/require needs.
type T struct {
	failed bool
	msgs   []string
}

func (t *T) Helper() {}

func (t *T) Errorf(format string, args ...any) {
	t.failed = true
	t.msgs = append(t.msgs, fmt.Sprintf(format, args...))
}

func (t *T) Fatalf(format string, args ...any) {
	t.Errorf(format, args...)
	t.FailNow()
}

// FailNow stops the case; it runs on its own goroutine (see runCase).
func (t *T) FailNow() {
	t.failed = true
	runtime.Goexit()
}

// outcome is what running a case found.
type outcome struct {
	failed bool
	msgs   []string
}

// runCase runs c on its own goroutine, so that FailNow can stop it, and
// turns a panic into a failure.
func runCase(c conformanceCase) outcome {
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
	return outcome{failed: t.failed, msgs: t.msgs}
}

var (
	resultsOnce sync.Once
	results     map[string]outcome
)

// allResults runs every registered case once per test binary.
func allResults() map[string]outcome {
	resultsOnce.Do(func() {
		results = make(map[string]outcome, len(registry))
		for id, c := range registry {
			results[id] = runCase(c)
		}
	})
	return results
}

func caseIDs() []string {
	ids := make([]string, 0, len(registry))
	for id := range registry {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}
