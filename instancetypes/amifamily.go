package instancetypes

import (
	"fmt"

	"github.com/karpsim/karpsim/apis"
)

// Byte sizes.
const (
	kib = 1024
	mib = 1024 * kib
	gib = 1024 * mib
)

// amiFamily is what an AMI family changes in an instance type's capacity
// and overhead, per the AWS provider's amifamily package.
type amiFamily struct {
	name string
	// eniLimitedPods: without kubelet maxPods, pods default to the ENI
	// limit; otherwise to 110.
	eniLimitedPods bool
	// podsPerCore: the kubelet podsPerCore setting is honored.
	podsPerCore bool
	// eniLimitedMemoryOverhead: kube-reserved memory is computed from the
	// ENI-limited pod count (no reserved ENIs), whatever maxPods says.
	eniLimitedMemoryOverhead bool
	// ephemeralDevice is the device of the volume kubelet runs on, "" when
	// unknown (Custom).
	ephemeralDevice string
	// ephemeralBytes is that volume's default size.
	ephemeralBytes int64
	// windowsBuild is the node.kubernetes.io/windows-build label of a
	// Windows family, "" for the others.
	windowsBuild string
}

// defaultEBSBytes is the size of the AWS provider's default EBS volume,
// used when nothing says better.
const defaultEBSBytes = 20 * gib

var amiFamilies = []amiFamily{
	{name: apis.AMIFamilyAL2, eniLimitedPods: true, podsPerCore: true, eniLimitedMemoryOverhead: true,
		ephemeralDevice: "/dev/xvda", ephemeralBytes: defaultEBSBytes},
	{name: apis.AMIFamilyAL2023, eniLimitedPods: true, podsPerCore: true, eniLimitedMemoryOverhead: true,
		ephemeralDevice: "/dev/xvda", ephemeralBytes: defaultEBSBytes},
	// Bottlerocket boots from a 4Gi /dev/xvda and runs pods on /dev/xvdb;
	// its settings have no podsPerCore.
	{name: apis.AMIFamilyBottlerocket, eniLimitedPods: true,
		ephemeralDevice: "/dev/xvdb", ephemeralBytes: defaultEBSBytes},
	{name: apis.AMIFamilyWindows2019, podsPerCore: true,
		ephemeralDevice: "/dev/sda1", ephemeralBytes: 50 * gib, windowsBuild: "10.0.17763"},
	{name: apis.AMIFamilyWindows2022, podsPerCore: true,
		ephemeralDevice: "/dev/sda1", ephemeralBytes: 50 * gib, windowsBuild: "10.0.20348"},
	// Windows Server 2025 (AWS provider v1.9.0 and later, for EKS 1.35 and later).
	{name: apis.AMIFamilyWindows2025, podsPerCore: true,
		ephemeralDevice: "/dev/sda1", ephemeralBytes: 50 * gib, windowsBuild: "10.0.26100"},
	// Custom AMIs bring their own volumes: karpsim cannot know which one is
	// kubelet's.
	{name: apis.AMIFamilyCustom, eniLimitedPods: true, podsPerCore: true, eniLimitedMemoryOverhead: true,
		ephemeralBytes: defaultEBSBytes},
}

func lookupAMIFamily(name string) (amiFamily, error) {
	for _, f := range amiFamilies {
		if f.name == name {
			return f, nil
		}
	}
	names := make([]string, len(amiFamilies))
	for i, f := range amiFamilies {
		names[i] = f.name
	}
	return amiFamily{}, fmt.Errorf("AMI family %q is not one of %v", name, names)
}

func (f amiFamily) isWindows() bool { return f.windowsBuild != "" }
