package requirements

import (
	"testing"

	"github.com/karpsim/karpsim/apis"
)

// benchInstanceType is shaped like an AWS instance type's requirements:
// about 30 keys, most single-valued, some DoesNotExist.
func benchInstanceType() Requirements {
	return NewRequirements(
		MustNew(apis.LabelInstanceType, in, "m5.large"),
		MustNew(apis.LabelArch, in, "amd64"),
		MustNew(apis.LabelOS, in, "linux"),
		MustNew(apis.LabelTopologyZone, in, "us-east-1a", "us-east-1b", "us-east-1c"),
		MustNew(apis.LabelTopologyRegion, in, "us-east-1"),
		MustNew(apis.LabelCapacityType, in, "on-demand", "spot"),
		MustNew(apis.LabelWindowsBuild, doesNotExist),
		MustNew(apis.LabelInstanceCategory, in, "m"),
		MustNew(apis.LabelInstanceFamily, in, "m5"),
		MustNew(apis.LabelInstanceGeneration, in, "5"),
		MustNew(apis.LabelInstanceSize, in, "large"),
		MustNew(apis.LabelInstanceCPU, in, "2"),
		MustNew(apis.LabelInstanceMemory, in, "8192"),
		MustNew(apis.LabelInstanceHypervisor, in, "nitro"),
		MustNew(apis.LabelInstanceCPUManufacturer, in, "intel"),
		MustNew(apis.LabelInstanceNetworkBandwidth, in, "750"),
		MustNew(apis.LabelInstanceEBSBandwidth, in, "4750"),
		MustNew(apis.LabelInstanceEncryptionInTransitSupported, in, "false"),
		MustNew(apis.LabelInstanceGPUName, doesNotExist),
		MustNew(apis.LabelInstanceGPUCount, doesNotExist),
		MustNew(apis.LabelInstanceGPUManufacturer, doesNotExist),
		MustNew(apis.LabelInstanceGPUMemory, doesNotExist),
		MustNew(apis.LabelInstanceLocalNVME, doesNotExist),
		MustNew(apis.LabelInstanceAcceleratorName, doesNotExist),
		MustNew(apis.LabelInstanceAcceleratorCount, doesNotExist),
		MustNew(apis.LabelInstanceAcceleratorManufacturer, doesNotExist),
	)
}

// benchClaim is a NodePool's requirements with a pod's on top.
func benchClaim() Requirements {
	return NewRequirements(
		MustNew(apis.LabelNodePool, in, "default"),
		MustNew(apis.LabelInstanceCategory, in, "c", "m", "r"),
		MustNew(apis.LabelInstanceSize, notIn, "nano", "micro", "small"),
		MustNew(apis.LabelCapacityType, in, "spot", "on-demand"),
		MustNew(apis.LabelTopologyZone, in, "us-east-1a", "us-east-1b", "us-east-1c"),
		MustNew(apis.LabelArch, in, "amd64"),
		MustNew(apis.LabelInstanceGeneration, gt, "2"),
		MustNew("node-type", in, "general"),
	)
}

func BenchmarkIntersectsFast(b *testing.B) {
	it, claim := benchInstanceType(), benchClaim()
	b.ReportAllocs()
	for b.Loop() {
		if !it.IntersectsFast(claim) {
			b.Fatal("expected to intersect")
		}
	}
}

func BenchmarkIntersects(b *testing.B) {
	it, claim := benchInstanceType(), benchClaim()
	b.ReportAllocs()
	for b.Loop() {
		if err := it.Intersects(claim); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompatibleFast(b *testing.B) {
	claim := benchClaim()
	pod := NewRequirements(MustNew(apis.LabelTopologyZone, in, "us-east-1b"), MustNew("node-type", in, "general"))
	b.ReportAllocs()
	for b.Loop() {
		if !claim.CompatibleFast(pod, AllowUndefinedWellKnown) {
			b.Fatal("expected compatible")
		}
	}
}

func BenchmarkCompatible(b *testing.B) {
	claim := benchClaim()
	pod := NewRequirements(MustNew(apis.LabelTopologyZone, in, "us-east-1b"), MustNew("node-type", in, "general"))
	b.ReportAllocs()
	for b.Loop() {
		if err := claim.Compatible(pod, AllowUndefinedWellKnown); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIntersect(b *testing.B) {
	it, claim := benchInstanceType(), benchClaim()
	b.ReportAllocs()
	for b.Loop() {
		_ = claim.Intersect(it)
	}
}

func BenchmarkRequirementIntersection(b *testing.B) {
	a := MustNew(apis.LabelTopologyZone, in, "us-east-1a", "us-east-1b", "us-east-1c")
	c := MustNew(apis.LabelTopologyZone, notIn, "us-east-1b")
	b.ReportAllocs()
	for b.Loop() {
		_ = a.Intersection(c)
	}
}
