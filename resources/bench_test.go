package resources

import "testing"

// BenchmarkVectorSums is the scheduler's inner step on amounts: add a
// pod's requests to a claim's and check the sum against a type's room,
// and take them off a node's room.
func BenchmarkVectorSums(b *testing.B) {
	pod := New(250, 512<<20, 1)
	room := New(4000, 16<<30, 110)
	var claim Vector
	fits := 0
	for i := 0; b.Loop(); i++ {
		if i%64 == 0 {
			claim, room = Vector{}, New(4000, 16<<30, 110)
		}
		if next := claim.Add(pod); next.Fits(room) {
			claim, fits = next, fits+1
		}
		room = room.Sub(pod)
	}
	if fits == 0 {
		b.Fatal("nothing fit")
	}
}
