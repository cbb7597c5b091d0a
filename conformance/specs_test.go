package conformance

import (
	"strings"
	"testing"
)

// TestSpecs runs every case as TestSpecs/group/slug. A case karpsim is known
// to fail (Fails set) is skipped with its reason once it has failed; one that
// passes despite its Fails note, or fails without one, fails the test.
func TestSpecs(t *testing.T) {
	res := allResults()
	for _, id := range caseIDs() {
		c := registry[id]
		t.Run(id, func(t *testing.T) {
			out := res[id]
			switch {
			case c.Fails != "" && out.failed:
				t.Skipf("known failure (%s): %s", c.Fails, strings.Join(out.msgs, "; "))
			case c.Fails != "":
				t.Errorf("passes although it is recorded as failing (%s): remove Fails and run go test ./conformance -run TestREADME -update", c.Fails)
			case out.failed:
				for _, m := range out.msgs {
					t.Error(m)
				}
			}
		})
	}
}
