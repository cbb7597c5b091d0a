package conformance

import "testing"

// TestSpecs runs every case as TestSpecs/group/slug. A case karpsim is known
// to fail (Fails set) is skipped with its reason once it has failed; one that
// passes despite its Fails note, or fails without one, fails the test.
func TestSpecs(t *testing.T) {
	book.Check(t, "go test ./conformance -run TestREADME -update")
}
