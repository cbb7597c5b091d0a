package scheduling

import (
	"testing"
	"unsafe"
)

// TestHotStructSizes keeps the structs made once per claim and per pod
// within the sizes issue 29's memory target was met at: a claim within
// the allocator's 704-byte class (with its 8-byte header), a podInfo (one
// slice of them per solve) at 96 bytes. Fields that only some claims or
// pods need belong in claimMore and podMore.
func TestHotStructSizes(t *testing.T) {
	if got := unsafe.Sizeof(claim{}); got+8 > 704 {
		t.Errorf("claim is %d bytes, %d with the allocator's header: over the 704-byte class", got, got+8)
	}
	if got := unsafe.Sizeof(podInfo{}); got > 96 {
		t.Errorf("podInfo is %d bytes, over 96", got)
	}
}
