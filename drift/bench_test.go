package drift

import "testing"

func BenchmarkNodePoolHash(b *testing.B) {
	np := testInput(b).NodePool
	b.ReportAllocs()
	for b.Loop() {
		NodePoolHash(np)
	}
}

func BenchmarkEC2NodeClassHash(b *testing.B) {
	nc := testInput(b).NodeClass
	b.ReportAllocs()
	for b.Loop() {
		EC2NodeClassHash(nc, nil)
	}
}

// BenchmarkCheck runs every check on a claim that has not drifted, the
// common and most expensive case.
func BenchmarkCheck(b *testing.B) {
	in := testInput(b)
	if r := Check(in); r.Drifted {
		b.Fatalf("fixture drifted: %s", r)
	}
	b.ReportAllocs()
	for b.Loop() {
		Check(in)
	}
}
