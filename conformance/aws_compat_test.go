package conformance

import (
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// The AWS provider's compatibility suite asks, for one described instance
// type and an EC2NodeClass, whether the type can launch at all: its AMI
// family, its network interfaces, its placement group, nested
// virtualization and connection tracking. karpsim answers in
// instancetypes.NewAWS, which keeps an incompatible type with none of its
// offerings available; these cases describe the suite's made-up types as
// EC2 facts and ask NewAWS.

// compatType is the suite's made-up type: m5.large's shape (2 x86 vCPUs,
// 8 GiB), priced so that only compatibility can make it unavailable, with
// the network cards given (interfaces per card) and maxEFA EFAs.
func compatType(name string, cards []int64, maxEFA int64) instancetypes.EC2Facts {
	if name == "" {
		name = "m5.large"
	}
	f := instancetypes.EC2Facts{InstanceType: name, VCPU: 2, MemoryMiB: 8192, Architecture: apis.ArchitectureAmd64,
		MaxENIs: 3, IPv4PerENI: 10, OnDemandUSDPerHourUSEast1: 0.096, NetworkCardENIs: cards, MaxEFAInterfaces: maxEFA}
	if len(cards) > 0 {
		f.MaxENIs = cards[0]
	}
	return f
}

// cardsOf is n network cards of perCard interfaces each.
func cardsOf(n int, perCard int64) []int64 {
	return slices.Repeat([]int64{perCard}, n)
}

// compatible reports whether the type can launch under the node class and
// placement strategy: all of its offerings available, or none.
func compatible(t *T, f instancetypes.EC2Facts, nc *apis.EC2NodeClass, strategy string) bool {
	t.Helper()
	c, err := instancetypes.NewAWS([]instancetypes.EC2Facts{f}, instancetypes.AWSOptions{NodeClass: nc, PlacementGroupStrategy: strategy})
	require.NoError(t, err)
	it, ok := c.Get(f.InstanceType)
	require.True(t, ok)
	require.NotEmpty(t, it.Offerings)
	available := 0
	for _, o := range it.Offerings {
		if o.Available {
			available++
		}
	}
	require.True(t, available == 0 || available == len(it.Offerings), "%d of %d offerings available", available, len(it.Offerings))
	return available > 0
}

// familyNodeClass is an EC2NodeClass of the AMI family: an alias, or tags
// with amiFamily Custom.
func familyNodeClass(family string) *apis.EC2NodeClass {
	if family == apis.AMIFamilyCustom {
		nc := awsNodeClass("", nil)
		nc.Spec.AMIFamily = &family
		nc.Spec.AMISelectorTerms = []apis.AMISelectorTerm{{Tags: map[string]string{"*": "*"}}}
		return nc
	}
	alias, _ := apis.ParseAlias(map[string]string{apis.AMIFamilyAL2023: "al2023@latest", apis.AMIFamilyBottlerocket: "bottlerocket@latest"}[family])
	return awsNodeClass(alias.String(), nil)
}

func amiCase(instanceType, family string, want bool) func(t *T) {
	return func(t *T) {
		require.Equal(t, want, compatible(t, compatType(instanceType, nil, 0), familyNodeClass(family), ""))
	}
}

// nic is one network interface of the node class.
func nic(card, device int32, kind string) *apis.NetworkInterface {
	return &apis.NetworkInterface{NetworkCardIndex: card, DeviceIndex: device, InterfaceType: kind}
}

func withInterfaces(nis ...*apis.NetworkInterface) *apis.EC2NodeClass {
	nc := awsNodeClass("al2023@latest", nil)
	nc.Spec.NetworkInterfaces = nis
	return nc
}

func nicCase(f instancetypes.EC2Facts, want bool, nis ...*apis.NetworkInterface) func(t *T) {
	return func(t *T) { require.Equal(t, want, compatible(t, f, withInterfaces(nis...), "")) }
}

var (
	primaryNIC = nic(0, 0, apis.InterfaceTypeInterface)
	allStrats  = []string{apis.PlacementStrategyCluster, apis.PlacementStrategyPartition, apis.PlacementStrategySpread}
)

func placementCase(instanceType string, supported []string, strategy string, want bool) func(t *T) {
	return func(t *T) {
		f := compatType(instanceType, nil, 0)
		f.PlacementStrategies = supported
		require.Equal(t, want, compatible(t, f, awsNodeClass("al2023@latest", nil), strategy))
	}
}

func nestedCase(setting string, feature, want bool) func(t *T) {
	return func(t *T) {
		f := compatType("", nil, 0)
		f.NestedVirtualization = feature
		nc := awsNodeClass("al2023@latest", nil)
		if setting != "" {
			nc.Spec.CPUOptions = &apis.CPUOptions{NestedVirtualization: &setting}
		}
		require.Equal(t, want, compatible(t, f, nc, ""))
	}
}

func connTrackCase(hypervisor string, tracking, want bool) func(t *T) {
	return func(t *T) {
		f := compatType("", nil, 0)
		f.Hypervisor = hypervisor
		nc := awsNodeClass("al2023@latest", nil)
		if tracking {
			timeout := int32(300)
			nc.Spec.ConnectionTracking = &apis.ConnectionTracking{TCPEstablishedTimeout: &timeout}
		}
		require.Equal(t, want, compatible(t, f, nc, ""))
	}
}

var _ = register("aws-compat",
	conformanceCase{Name: "a1-medium-custom", Run: amiCase("a1.medium", apis.AMIFamilyCustom, true)},
	conformanceCase{Name: "a1-large-custom", Run: amiCase("a1.large", apis.AMIFamilyCustom, true)},
	conformanceCase{Name: "t3-medium-custom", Run: amiCase("t3.medium", apis.AMIFamilyCustom, true)},
	conformanceCase{Name: "a1-medium-al2023", Run: amiCase("a1.medium", apis.AMIFamilyAL2023, false)},
	conformanceCase{Name: "t3-medium-al2023", Run: amiCase("t3.medium", apis.AMIFamilyAL2023, true)},
	conformanceCase{Name: "a1-large-bottlerocket", Run: amiCase("a1.large", apis.AMIFamilyBottlerocket, true)},
	conformanceCase{Name: "efa-one", Run: nicCase(compatType("", cardsOf(1, 2), 1), true,
		primaryNIC, nic(0, 1, apis.InterfaceTypeEFAOnly))},
	conformanceCase{Name: "efa-several", Run: nicCase(compatType("", cardsOf(2, 2), 2), true,
		primaryNIC, nic(0, 1, apis.InterfaceTypeEFAOnly), nic(1, 0, apis.InterfaceTypeEFAOnly))},
	conformanceCase{Name: "efa-too-many", Run: nicCase(compatType("", cardsOf(2, 2), 1), false,
		primaryNIC, nic(0, 1, apis.InterfaceTypeEFAOnly), nic(1, 0, apis.InterfaceTypeEFAOnly))},
	conformanceCase{Name: "efa-unsupported", Run: nicCase(compatType("", cardsOf(1, 4), 0), false,
		primaryNIC, nic(0, 1, apis.InterfaceTypeEFAOnly))},
	conformanceCase{Name: "ena-unsupported", Run: func(t *T) {
		f := compatType("", cardsOf(1, 4), 0)
		f.ENAUnsupported = true
		nicCase(f, false, primaryNIC)(t)
	}},
	conformanceCase{Name: "card-index-beyond", Run: nicCase(compatType("", cardsOf(1, 4), 0), false,
		nic(1, 0, apis.InterfaceTypeInterface))},
	conformanceCase{Name: "device-index-beyond", Run: nicCase(compatType("", cardsOf(1, 4), 0), false,
		nic(0, 5, apis.InterfaceTypeInterface))},
	conformanceCase{Name: "placement-none", Run: placementCase("m5.large", []string{apis.PlacementStrategyCluster}, "", true)},
	conformanceCase{Name: "placement-cluster", Run: placementCase("m5.large", allStrats, apis.PlacementStrategyCluster, true)},
	conformanceCase{Name: "placement-cluster-unsupported", Run: placementCase("t3.medium",
		[]string{apis.PlacementStrategyPartition, apis.PlacementStrategySpread}, apis.PlacementStrategyCluster, false)},
	conformanceCase{Name: "placement-partition", Run: placementCase("m5.large", allStrats, apis.PlacementStrategyPartition, true)},
	conformanceCase{Name: "placement-partition-unsupported", Run: placementCase("t3.medium",
		[]string{apis.PlacementStrategySpread}, apis.PlacementStrategyPartition, false)},
	conformanceCase{Name: "placement-spread", Run: placementCase("m5.large", []string{apis.PlacementStrategySpread}, apis.PlacementStrategySpread, true)},
	conformanceCase{Name: "placement-spread-unsupported", Run: placementCase("t3.medium",
		[]string{apis.PlacementStrategyCluster}, apis.PlacementStrategySpread, false)},
	conformanceCase{Name: "nested-no-cpu-options", Run: nestedCase("", false, true)},
	conformanceCase{Name: "nested-enabled-offered", Run: nestedCase(apis.NestedVirtualizationEnabled, true, true)},
	conformanceCase{Name: "nested-enabled-not-offered", Run: nestedCase(apis.NestedVirtualizationEnabled, false, false)},
	conformanceCase{Name: "nested-disabled", Run: nestedCase(apis.NestedVirtualizationDisabled, false, true)},
	conformanceCase{Name: "conntrack-nitro", Run: connTrackCase("nitro", true, true)},
	conformanceCase{Name: "conntrack-xen", Run: connTrackCase("xen", true, false)},
	conformanceCase{Name: "no-conntrack-xen", Run: connTrackCase("xen", false, true)},
	conformanceCase{Name: "no-conntrack-nitro", Run: connTrackCase("nitro", false, true)},
)

// availableOfferings counts a type's available offerings in the suite's
// catalog under the node class.
func availableOfferings(t *T, nc *apis.EC2NodeClass, name string) (available, all int) {
	t.Helper()
	it := awsType(t, nc, instancetypes.AWSOptions{}, name)
	for _, o := range it.Offerings {
		if o.Available {
			available++
		}
	}
	return available, len(it.Offerings)
}

// a1Case checks a1.medium's offerings under an AMI family: all available
// or, with AL2023, all kept but unavailable.
func a1Case(alias string, want bool) func(t *T) {
	return func(t *T) {
		available, all := availableOfferings(t, awsNodeClass(alias, nil), "a1.medium")
		require.NotZero(t, all)
		require.Equal(t, want, available == all, "%d of %d available", available, all)
		require.Equal(t, !want, available == 0, "%d of %d available", available, all)
	}
}

// efaPodsOn checks the m6idn.32xlarge pod capacity under the interfaces.
func efaPodsOn(want int64, nis ...*apis.NetworkInterface) func(t *T) {
	return func(t *T) {
		it := awsType(t, withInterfaces(nis...), instancetypes.AWSOptions{}, "m6idn.32xlarge")
		require.Equal(t, want, it.Capacity.Pods())
	}
}

// factsOf is the embedded facts of one type.
func factsOf(t *T, name string) instancetypes.EC2Facts {
	t.Helper()
	for _, f := range instancetypes.EmbeddedFacts() {
		if f.InstanceType == name {
			return f
		}
	}
	require.Fail(t, "no facts", name)
	return instancetypes.EC2Facts{}
}

// vpcTestType is the spec's "test" type: 2 vCPUs, 8 GiB, 3 interfaces of
// 10 addresses, listed or not in the VPC resource controller's limits.
func vpcTestType(listed bool) instancetypes.EC2Facts {
	f := compatType("test", nil, 0)
	f.InVPCLimits = listed
	return f
}

var _ = register("aws-facts",
	conformanceCase{Name: "a1-al2023-unavailable", Run: a1Case("al2023@latest", false)},
	conformanceCase{Name: "a1-bottlerocket-available", Run: a1Case("bottlerocket@latest", true)},
	conformanceCase{Name: "interfaces-supported", Run: func(t *T) {
		before, _ := availableOfferings(t, awsNodeClass("al2023@latest", nil), "p5.48xlarge")
		after, _ := availableOfferings(t, withInterfaces(primaryNIC, nic(0, 1, apis.InterfaceTypeEFAOnly)), "p5.48xlarge")
		require.NotZero(t, before)
		require.Equal(t, before, after)
	}},
	conformanceCase{Name: "interfaces-unsupported", Run: func(t *T) {
		nc := withInterfaces(primaryNIC, nic(0, 1, apis.InterfaceTypeEFAOnly), nic(1, 0, apis.InterfaceTypeEFAOnly),
			nic(2, 0, apis.InterfaceTypeEFAOnly), nic(3, 0, apis.InterfaceTypeEFAOnly), nic(4, 0, apis.InterfaceTypeEFAOnly))
		available, all := availableOfferings(t, nc, "m6idn.32xlarge")
		require.NotZero(t, all)
		require.Zero(t, available)
	}},
	conformanceCase{Name: "max-pods-efa-off-card-0", Run: efaPodsOn(394, primaryNIC, nic(1, 0, apis.InterfaceTypeEFAOnly))},
	conformanceCase{Name: "max-pods-efa-on-card-0", Run: efaPodsOn(345, primaryNIC, nic(0, 1, apis.InterfaceTypeEFAOnly))},
	conformanceCase{Name: "pod-eni-on-trunking-type", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{})
		p := unschedPod("p", "", extended(string(apis.ResourceAWSPodENI), "1"), limits(string(apis.ResourceAWSPodENI), "1"))
		c := claimOf(t, w.solve(p), p)
		require.Positive(t, factsOf(t, c.InstanceType).BranchInterfaces, c.InstanceType)
	}},
	conformanceCase{Name: "private-ipv4-needs-vpc-limits", Run: func(t *T) {
		// The spec's "test" type is not in the VPC limits: no address, so
		// the pod stays pending. Listed, the same type takes it.
		for _, listed := range []bool{false, true} {
			c, err := instancetypes.NewAWS([]instancetypes.EC2Facts{vpcTestType(listed)}, instancetypes.AWSOptions{NodeClass: awsNodeClass("windows2022@latest", nil)})
			require.NoError(t, err)
			w := newWorldOf(c, nodePool("default", withRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "test")))
			p := unschedPod("p", "", extended("vpc.amazonaws.com/PrivateIPv4Address", "1"), limits("vpc.amazonaws.com/PrivateIPv4Address", "1"))
			res := w.solve(p)
			if listed {
				require.Equal(t, "test", claimOf(t, res, p).InstanceType)
			} else {
				expectNotScheduled(t, res, p)
			}
		}
	}},
	conformanceCase{Name: "efa-pods", Run: func(t *T) {
		w := awsWorld(t, nil, instancetypes.AWSOptions{}, onlyRequirement(apis.LabelInstanceType, corev1.NodeSelectorOpIn, "p5.48xlarge"))
		efa := func(name, n string) *corev1.Pod {
			return unschedPod(name, "", extended(string(apis.ResourceEFA), n), limits(string(apis.ResourceEFA), n))
		}
		launchedOn(t, w, "p5.48xlarge", 1, efa("a", "1"), efa("b", "2"))
	}},
	conformanceCase{Name: "labels-each", Run: func(t *T) {
		labels := wellKnownSelection("g4dn.8xlarge", "8xlarge")
		labels[apis.LabelInstanceAcceleratorName] = "inferentia2"
		labels[apis.LabelInstanceAcceleratorManufacturer] = "aws"
		labels[apis.LabelInstanceAcceleratorCount] = "1"
		labels[apis.LabelWindowsBuild] = windows2022Build
		w := labelWorld(t)
		for key, value := range labels {
			p := unschedPod("p", "", nodeSelector(key, value))
			res := w.solve(p)
			if len(res.Unschedulable) > 0 {
				t.Errorf("a pod selecting %s=%s: %v", key, value, res.Unschedulable)
			}
		}
	}},
	conformanceCase{Name: "labels-all-g4dn", Run: func(t *T) {
		w := labelWorld(t)
		p := unschedPod("p", "", nodeSelector(flatten(wellKnownSelection("g4dn.8xlarge", "8xlarge"))...))
		require.Equal(t, "g4dn.8xlarge", claimOf(t, w.solve(p), p).InstanceType)
	}},
	conformanceCase{Name: "labels-all-inf2", Run: func(t *T) {
		labels := wellKnownSelection("inf2.xlarge", "xlarge")
		for _, k := range []string{apis.LabelInstanceGPUName, apis.LabelInstanceGPUManufacturer, apis.LabelInstanceGPUCount,
			apis.LabelInstanceGPUMemory, apis.LabelInstanceLocalNVME} {
			delete(labels, k)
		}
		maps.Copy(labels, map[string]string{
			apis.LabelInstanceCategory: "inf", apis.LabelInstanceGeneration: "2", apis.LabelInstanceFamily: "inf2",
			apis.LabelInstanceCPU: "4", apis.LabelInstanceCPUSustainedClockSpeedMhz: "3600", apis.LabelInstanceCPUManufacturer: "amd",
			apis.LabelInstanceMemory: "16384", apis.LabelInstanceEBSBandwidth: "10000", apis.LabelInstanceNetworkBandwidth: "2083",
			apis.LabelInstanceAcceleratorName: "inferentia2", apis.LabelInstanceAcceleratorManufacturer: "aws",
			apis.LabelInstanceAcceleratorCount: "1",
		})
		w := labelWorld(t)
		p := unschedPod("p", "", nodeSelector(flatten(labels)...))
		require.Equal(t, "inf2.xlarge", claimOf(t, w.solve(p), p).InstanceType)
	}},
)

const windows2022Build = "10.0.20348"

// wellKnownSelection is the labels the suite's pods select for one type:
// g4dn.8xlarge's values (the caller adjusts them for another type) with
// the zone us-east-1a (upstream's test-zone-1a) and its ID.
func wellKnownSelection(instanceType, size string) map[string]string {
	return map[string]string{
		apis.LabelNodePool: "default", apis.LabelTopologyRegion: instancetypes.DefaultRegion,
		apis.LabelTopologyZone: "us-east-1a", apis.LabelTopologyZoneID: "use1-az1", apis.LabelInstanceType: instanceType,
		apis.LabelOS: "linux", apis.LabelArch: apis.ArchitectureAmd64, apis.LabelCapacityType: apis.CapacityTypeOnDemand,
		"karpenter.k8s.aws/instance-tenancy": "default",
		apis.LabelInstanceHypervisor:         "nitro", apis.LabelInstanceEncryptionInTransitSupported: "true",
		apis.LabelInstanceCategory: "g", apis.LabelInstanceCapabilityFlex: "false", apis.LabelInstanceGeneration: "4",
		apis.LabelInstanceFamily: "g4dn", apis.LabelInstanceSize: size, apis.LabelInstanceCPU: "32",
		apis.LabelInstanceCPUManufacturer: "intel", apis.LabelInstanceCPUSustainedClockSpeedMhz: "2500",
		apis.LabelInstanceMemory: "131072", apis.LabelInstanceEBSBandwidth: "9500", apis.LabelInstanceNetworkBandwidth: "50000",
		apis.LabelInstanceGPUName: "t4", apis.LabelInstanceGPUManufacturer: "nvidia", apis.LabelInstanceGPUCount: "1",
		apis.LabelInstanceGPUMemory: "16384", apis.LabelInstanceLocalNVME: "900",
		"failure-domain.beta.kubernetes.io/region": instancetypes.DefaultRegion,
		"failure-domain.beta.kubernetes.io/zone":   "us-east-1a",
		"beta.kubernetes.io/arch":                  apis.ArchitectureAmd64, "beta.kubernetes.io/os": "linux",
		"beta.kubernetes.io/instance-type": instanceType, "topology.ebs.csi.aws.com/zone": "us-east-1a",
	}
}

func flatten(m map[string]string) []string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kv = append(kv, k, m[k])
	}
	return kv
}

// labelWorld is the suite's on-demand pool on AL2023 beside a Windows 2022
// pool, each with its node class's catalog.
func labelWorld(t *T) *schedWorld {
	linux := awsCatalog(t, awsNodeClass("al2023@latest", nil), instancetypes.AWSOptions{})
	windows := awsCatalog(t, awsNodeClass("windows2022@latest", nil), instancetypes.AWSOptions{})
	onDemand := withRequirement(apis.LabelCapacityType, corev1.NodeSelectorOpIn, apis.CapacityTypeOnDemand)
	w := &schedWorld{catalog: linux}
	w.in.NodePools = []scheduling.Pool{
		{NodePool: nodePool("default", onDemand), InstanceTypes: linux},
		{NodePool: nodePool("windows", onDemand), InstanceTypes: windows},
	}
	return w
}
