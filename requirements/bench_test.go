package requirements

import (
	"testing"

	"github.com/karpsim/karpsim/apis"
)

// benchInstanceType is shaped like an AWS instance type's requirements:
// about 30 keys, most single-valued, some DoesNotExist.
func benchInstanceType() Requirements {
	return NewRequirements(
		mustNew(apis.LabelInstanceType, in, "m5.large"),
		mustNew(apis.LabelArch, in, "amd64"),
		mustNew(apis.LabelOS, in, "linux"),
		mustNew(apis.LabelTopologyZone, in, "us-east-1a", "us-east-1b", "us-east-1c"),
		mustNew(apis.LabelTopologyRegion, in, "us-east-1"),
		mustNew(apis.LabelCapacityType, in, "on-demand", "spot"),
		mustNew(apis.LabelWindowsBuild, doesNotExist),
		mustNew(apis.LabelInstanceCategory, in, "m"),
		mustNew(apis.LabelInstanceFamily, in, "m5"),
		mustNew(apis.LabelInstanceGeneration, in, "5"),
		mustNew(apis.LabelInstanceSize, in, "large"),
		mustNew(apis.LabelInstanceCPU, in, "2"),
		mustNew(apis.LabelInstanceMemory, in, "8192"),
		mustNew(apis.LabelInstanceHypervisor, in, "nitro"),
		mustNew(apis.LabelInstanceCPUManufacturer, in, "intel"),
		mustNew(apis.LabelInstanceNetworkBandwidth, in, "750"),
		mustNew(apis.LabelInstanceEBSBandwidth, in, "4750"),
		mustNew(apis.LabelInstanceEncryptionInTransitSupported, in, "false"),
		mustNew(apis.LabelInstanceGPUName, doesNotExist),
		mustNew(apis.LabelInstanceGPUCount, doesNotExist),
		mustNew(apis.LabelInstanceGPUManufacturer, doesNotExist),
		mustNew(apis.LabelInstanceGPUMemory, doesNotExist),
		mustNew(apis.LabelInstanceLocalNVME, doesNotExist),
		mustNew(apis.LabelInstanceAcceleratorName, doesNotExist),
		mustNew(apis.LabelInstanceAcceleratorCount, doesNotExist),
		mustNew(apis.LabelInstanceAcceleratorManufacturer, doesNotExist),
	)
}

// benchClaim is a NodePool's requirements with a pod's on top.
func benchClaim() Requirements {
	return NewRequirements(
		mustNew(apis.LabelNodePool, in, "default"),
		mustNew(apis.LabelInstanceCategory, in, "c", "m", "r"),
		mustNew(apis.LabelInstanceSize, notIn, "nano", "micro", "small"),
		mustNew(apis.LabelCapacityType, in, "spot", "on-demand"),
		mustNew(apis.LabelTopologyZone, in, "us-east-1a", "us-east-1b", "us-east-1c"),
		mustNew(apis.LabelArch, in, "amd64"),
		mustNew(apis.LabelInstanceGeneration, gt, "2"),
		mustNew("node-type", in, "general"),
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
	pod := NewRequirements(mustNew(apis.LabelTopologyZone, in, "us-east-1b"), mustNew("node-type", in, "general"))
	b.ReportAllocs()
	for b.Loop() {
		if !claim.CompatibleFast(pod, AllowUndefinedWellKnown) {
			b.Fatal("expected compatible")
		}
	}
}

func BenchmarkCompatible(b *testing.B) {
	claim := benchClaim()
	pod := NewRequirements(mustNew(apis.LabelTopologyZone, in, "us-east-1b"), mustNew("node-type", in, "general"))
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
	a := mustNew(apis.LabelTopologyZone, in, "us-east-1a", "us-east-1b", "us-east-1c")
	c := mustNew(apis.LabelTopologyZone, notIn, "us-east-1b")
	b.ReportAllocs()
	for b.Loop() {
		_ = a.Intersection(c)
	}
}
