package optimize

import (
	"slices"
	"testing"

	"github.com/karpsim/karpsim/scheduling"
)

// The bound takes the groups of a pool's types on a label from the
// compiler of the edit search's narrowings (scheduling.Compiler.LabelGroups)
// and leaves each single narrowing edit the types it leaves grouping them
// itself.
func TestEditBoundsLabelGroupsLeaveTheSameTypes(t *testing.T) {
	inputs := editBoundInputs(t)
	for name, in := range equalInputs(t, 4) {
		inputs["random "+name] = in
	}
	shared, compared := 0, 0
	for name, in := range inputs {
		base := scheduling.Solve(in)
		m, err := buildModel(in, base)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		own, labelled := newEditBounds(in, m), newEditBounds(in, m)
		labelled.labels = scheduling.NewCompiler(in.DaemonSets, in.Options).LabelGroups
		for _, k := range narrowingKeys {
			if _, ok := labelled.labelGroups(k); ok {
				shared++
			}
		}
		for _, e := range NarrowingEdits(in, base, DefaultMaxEditCandidates) {
			want, got := own.admittedBy([]Edit{e}), labelled.admittedBy([]Edit{e})
			compared++
			if want.narrows != got.narrows || !slices.Equal(want.ok, got.ok) {
				t.Errorf("%s: %s leaves other types with the compiler's groups", name, e)
			}
		}
	}
	t.Logf("%d edits compared, %d keys grouped by the compiler", compared, shared)
	if shared == 0 || compared == 0 {
		t.Error("no key was grouped by the compiler, or no edit compared: the test weighs nothing")
	}
}
