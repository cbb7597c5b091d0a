package optimize_test

import (
	"math/rand/v2"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/optimize"
	"github.com/karpsim/karpsim/scheduling"
)

// The model lists each offering as a column with the shapes it takes,
// asking a type only what a shape's requirements add to its pool's: on
// random clusters, with pods that select a type, an architecture or a
// capacity type, the columns are those of a naive listing that asks each
// type and offering every shape's requirements whole.
func TestModelColumnsNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 11))
	cases, columns := 150, 0
	if testing.Short() {
		cases = 30
	}
	for c := range cases {
		in := randomInput(rng)
		types := in.NodePools[0].InstanceTypes
		extra := []podOption{
			withNodeSelector(corev1.LabelInstanceTypeStable, types[rng.IntN(len(types))].Name),
			withNodeSelector(corev1.LabelArchStable, apis.ArchitectureArm64),
			withNodeSelector(apis.LabelCapacityType, apis.CapacityTypeSpot),
		}
		for i := range rng.IntN(4) {
			in.Pods = append(in.Pods, newPod("selective-"+string(rune('a'+i)), "500m", "1Gi", extra[rng.IntN(len(extra))]))
		}
		n, err := optimize.CheckColumns(in, scheduling.Solve(in))
		if err != nil {
			t.Fatalf("case %d: %v", c, err)
		}
		columns += n
	}
	for _, w := range issueWorkloads()[1:] {
		in := w.in()
		n, err := optimize.CheckColumns(in, scheduling.Solve(in))
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		columns += n
	}
	if columns == 0 {
		t.Fatal("no column compared")
	}
}
