package dra

import (
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
)

// Published devices and the allocator are not modelled together: a
// cluster that needs both is refused, naming a slice, rather than planned
// with the published devices left out.
func TestSlicesWithTheAllocatorAreRefused(t *testing.T) {
	all := exact("r", 0)
	all.Exactly.AllocationMode, all.Exactly.Count = resourcev1.DeviceAllocationModeAll, 0
	slice := clusterSlice("shared", "p", 1, 1, "d0")
	_, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{gpuClass()},
		ResourceClaims: []*resourcev1.ResourceClaim{claimOf("c", all)}, ResourceSlices: []*resourcev1.ResourceSlice{slice}})
	if len(problems) != 1 || problems[0].Object != "ResourceSlice/shared" || !strings.Contains(problems[0].Message, "allocator") {
		t.Fatalf("problems = %+v, want one naming ResourceSlice/shared and the allocator", problems)
	}
	// Either alone is read.
	if _, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{gpuClass()},
		ResourceClaims: []*resourcev1.ResourceClaim{claimOf("c", exact("r", 1))}, ResourceSlices: []*resourcev1.ResourceSlice{slice}}); len(problems) > 0 {
		t.Fatalf("slices with a counted claim: %+v", problems)
	}
	if _, problems := New(Objects{DeviceClasses: []*resourcev1.DeviceClass{gpuClass()},
		ResourceClaims: []*resourcev1.ResourceClaim{claimOf("c", all)}}); len(problems) > 0 {
		t.Fatalf("an All claim without slices: %+v", problems)
	}
}
