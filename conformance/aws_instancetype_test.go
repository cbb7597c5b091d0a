package conformance

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// The AWS provider's instance-type suite builds instance types from a
// fixed set of EC2 descriptions and checks what the provider computes from
// them: capacity, the kubelet's and the OS's overhead, the pod limit, labels,
// and which types a pod can launch. karpsim computes the same from its own
// facts table with instancetypes.NewAWS; these cases check it against the
// suite's expectations.

// awsSuiteTypes are the EC2 types of the provider's fake catalog.
var awsSuiteTypes = []string{
	"c6g.large", "g4ad.16xlarge", "g4dn.8xlarge", "g5.12xlarge", "inf2.24xlarge", "inf2.xlarge",
	"m5.large", "m5.metal", "m5.xlarge", "m6idn.32xlarge", "m7i-flex.large", "p5.48xlarge",
	"t3.large", "t4g.medium", "t4g.small", "t4g.xlarge", "trn1.2xlarge",
}

// awsNodeClass is an EC2NodeClass selecting its AMIs by alias, with the
// kubelet settings given (nil for none).
func awsNodeClass(alias string, kubelet *apis.KubeletConfiguration) *apis.EC2NodeClass {
	nc := &apis.EC2NodeClass{}
	nc.Name = "default"
	nc.Spec.AMISelectorTerms = []apis.AMISelectorTerm{{Alias: alias}}
	nc.Spec.Kubelet = kubelet
	nc.SetDefaults()
	return nc
}

// awsCatalog models the named types (all of the suite's when none) as
// Karpenter's AWS provider would for the node class and options.
func awsCatalog(t *T, nc *apis.EC2NodeClass, opts instancetypes.AWSOptions, names ...string) instancetypes.Catalog {
	t.Helper()
	if len(names) == 0 {
		names = awsSuiteTypes
	}
	var facts []instancetypes.EC2Facts
	for _, f := range instancetypes.EmbeddedFacts() {
		if slices.Contains(names, f.InstanceType) {
			facts = append(facts, f)
		}
	}
	require.Len(t, facts, len(names), "the facts table lacks some of %v", names)
	opts.NodeClass = nc
	c, err := instancetypes.NewAWS(facts, opts)
	require.NoError(t, err)
	return c
}

// awsType is one type of awsCatalog.
func awsType(t *T, nc *apis.EC2NodeClass, opts instancetypes.AWSOptions, name string) *instancetypes.InstanceType {
	t.Helper()
	it, ok := awsCatalog(t, nc, opts, name).Get(name)
	require.True(t, ok, name)
	return it
}

// noVMOverhead is the eviction specs' setting: no memory kept for the
// hypervisor, so capacity is the type's nominal memory.
var noVMOverhead = instancetypes.AWSOptions{VMMemoryOverheadPercent: -1}

// memoryOnly is a kubelet reservation or eviction map of memory only.
func memoryOnly(q string) map[string]string {
	return map[string]string{string(corev1.ResourceMemory): q}
}

// overheadCase checks m5.xlarge's overhead under kubelet settings.
func overheadCase(alias string, k *apis.KubeletConfiguration, opts instancetypes.AWSOptions, check func(t *T, it *instancetypes.InstanceType)) func(t *T) {
	return func(t *T) { check(t, awsType(t, awsNodeClass(alias, k), opts, "m5.xlarge")) }
}

// equalQuantity asserts that got (in Vector units) is the quantity want.
func equalQuantity(t *T, want string, got int64, what string) {
	t.Helper()
	q := resource.MustParse(want)
	require.Equal(t, q.Value(), got, "%s: want %s", what, want)
}

// evictionKubelet is the eviction specs' reservations (system 20Gi, kube
// 10Gi of memory) with the given evictionHard and evictionSoft memory
// thresholds ("" for none).
func evictionKubelet(hard, soft string) *apis.KubeletConfiguration {
	k := &apis.KubeletConfiguration{SystemReserved: memoryOnly("20Gi"), KubeReserved: memoryOnly("10Gi")}
	if hard != "" {
		k.EvictionHard = map[string]string{"memory.available": hard}
	}
	if soft != "" {
		k.EvictionSoft = map[string]string{"memory.available": soft}
	}
	return k
}

// evictionIs checks the memory eviction threshold: a quantity, or a
// fraction of the capacity when pct > 0.
func evictionIs(q string, pct float64) func(t *T, it *instancetypes.InstanceType) {
	return func(t *T, it *instancetypes.InstanceType) {
		got := it.Overhead.EvictionThreshold.Memory()
		if pct > 0 {
			require.InDelta(t, float64(it.Capacity.Memory())*pct, float64(got), 10)
			return
		}
		equalQuantity(t, q, got, "memory eviction threshold")
	}
}

func int32p(n int32) *int32 { return &n }

// podCapacities is the pod capacity of every suite type under the node class.
func podCapacities(t *T, nc *apis.EC2NodeClass, opts instancetypes.AWSOptions) map[string]int64 {
	out := map[string]int64{}
	for _, it := range awsCatalog(t, nc, opts) {
		out[it.Name] = it.Capacity.Pods()
	}
	return out
}

// eniPods is the ENI-limited pod count of every suite type: what the pod
// capacity is with no kubelet settings on AL2023.
func eniPods(t *T) map[string]int64 {
	return podCapacities(t, awsNodeClass("al2023@latest", nil), instancetypes.AWSOptions{})
}

// vcpus is every suite type's vCPU count.
func vcpus() map[string]int64 {
	out := map[string]int64{}
	for _, f := range instancetypes.EmbeddedFacts() {
		if slices.Contains(awsSuiteTypes, f.InstanceType) {
			out[f.InstanceType] = f.VCPU
		}
	}
	return out
}

// t3LargeMaxPods checks t3.large's pod capacity and kube-reserved memory for
// an AMI family: kubelet maxPods and the reserved ENIs are options.
func t3LargeMaxPods(alias string, k *apis.KubeletConfiguration, opts instancetypes.AWSOptions, pods int64, memory string) func(t *T) {
	return func(t *T) {
		it := awsType(t, awsNodeClass(alias, k), opts, "t3.large")
		require.Equal(t, pods, it.Capacity.Pods())
		equalQuantity(t, memory, it.Overhead.KubeReserved.Memory(), "kube-reserved memory")
	}
}

func maxPods10() *apis.KubeletConfiguration {
	return &apis.KubeletConfiguration{MaxPods: maxPodsOf(10)}
}

func maxPodsOf(n int32) *intstr.IntOrString { v := intstr.FromInt32(n); return &v }

var _ = register("aws-overhead",
	conformanceCase{Name: "system-reserved-default", Run: overheadCase("al2023@latest", &apis.KubeletConfiguration{}, instancetypes.AWSOptions{},
		func(t *T, it *instancetypes.InstanceType) {
			require.True(t, it.Overhead.SystemReserved.IsZero(), "%v", it.Overhead.SystemReserved)
		})},
	conformanceCase{Name: "system-reserved-set", Run: overheadCase("al2023@latest", &apis.KubeletConfiguration{SystemReserved: map[string]string{
		"cpu": "2", "memory": "20Gi", "ephemeral-storage": "10Gi"}}, instancetypes.AWSOptions{},
		func(t *T, it *instancetypes.InstanceType) {
			equalQuantity(t, "2000", it.Overhead.SystemReserved.CPU(), "cpu (millicores)")
			equalQuantity(t, "20Gi", it.Overhead.SystemReserved.Memory(), "memory")
			equalQuantity(t, "10Gi", it.Overhead.SystemReserved.Get(corev1.ResourceEphemeralStorage), "ephemeral storage")
		})},
	conformanceCase{Name: "kube-reserved-default", Run: overheadCase("al2023@latest", &apis.KubeletConfiguration{}, instancetypes.AWSOptions{},
		func(t *T, it *instancetypes.InstanceType) {
			equalQuantity(t, "80", it.Overhead.KubeReserved.CPU(), "cpu (millicores)")
			equalQuantity(t, "893Mi", it.Overhead.KubeReserved.Memory(), "memory")
			equalQuantity(t, "1Gi", it.Overhead.KubeReserved.Get(corev1.ResourceEphemeralStorage), "ephemeral storage")
		})},
	conformanceCase{Name: "kube-reserved-set", Run: overheadCase("al2023@latest", &apis.KubeletConfiguration{
		SystemReserved: map[string]string{"cpu": "1", "memory": "20Gi", "ephemeral-storage": "1Gi"},
		KubeReserved:   map[string]string{"cpu": "2", "memory": "10Gi", "ephemeral-storage": "2Gi"}}, instancetypes.AWSOptions{},
		func(t *T, it *instancetypes.InstanceType) {
			equalQuantity(t, "2000", it.Overhead.KubeReserved.CPU(), "cpu (millicores)")
			equalQuantity(t, "10Gi", it.Overhead.KubeReserved.Memory(), "memory")
			equalQuantity(t, "2Gi", it.Overhead.KubeReserved.Get(corev1.ResourceEphemeralStorage), "ephemeral storage")
		})},
	conformanceCase{Name: "eviction-hard-quantity", Run: overheadCase("al2023@latest", evictionKubelet("500Mi", ""), noVMOverhead, evictionIs("500Mi", 0))},
	conformanceCase{Name: "eviction-hard-percent", Run: overheadCase("al2023@latest", evictionKubelet("10%", ""), noVMOverhead, evictionIs("", 0.10))},
	conformanceCase{Name: "eviction-hard-100-percent", Run: overheadCase("al2023@latest", evictionKubelet("100%", ""), noVMOverhead, evictionIs("0", 0))},
	conformanceCase{Name: "eviction-soft-only-small", Run: overheadCase("al2023@latest", evictionKubelet("", "50Mi"), noVMOverhead, evictionIs("100Mi", 0))},
	conformanceCase{Name: "eviction-soft-only", Run: overheadCase("al2023@latest", evictionKubelet("", "500Mi"), noVMOverhead, evictionIs("100Mi", 0))},
	conformanceCase{Name: "eviction-hard-percent-soft-percent", Run: overheadCase("al2023@latest", evictionKubelet("5%", "10%"), noVMOverhead, evictionIs("", 0.05))},
	conformanceCase{Name: "eviction-soft-100-percent", Run: overheadCase("al2023@latest", evictionKubelet("", "100%"), noVMOverhead, evictionIs("100Mi", 0))},
	conformanceCase{Name: "eviction-bottlerocket", Run: overheadCase("bottlerocket@latest", evictionKubelet("1Gi", "10Gi"), noVMOverhead, evictionIs("1Gi", 0))},
	conformanceCase{Name: "eviction-default", Run: overheadCase("al2023@latest", &apis.KubeletConfiguration{}, noVMOverhead,
		func(t *T, it *instancetypes.InstanceType) {
			require.Zero(t, it.Overhead.EvictionThreshold.CPU())
			equalQuantity(t, "100Mi", it.Overhead.EvictionThreshold.Memory(), "memory")
			require.InDelta(t, float64(2<<30), float64(it.Overhead.EvictionThreshold.Get(corev1.ResourceEphemeralStorage)), 1e6)
		})},
	conformanceCase{Name: "eviction-hard-over-soft", Run: overheadCase("al2023@latest", evictionKubelet("1Gi", "3Gi"), noVMOverhead, evictionIs("1Gi", 0))},
	conformanceCase{Name: "eviction-hard-percent-over-soft", Run: overheadCase("al2023@latest", evictionKubelet("5%", "2%"), noVMOverhead, evictionIs("", 0.05))},
	conformanceCase{Name: "eviction-hard-quantity-soft-percent", Run: overheadCase("al2023@latest", evictionKubelet("1Gi", "10%"), noVMOverhead, evictionIs("1Gi", 0))},
)

var _ = register("aws-pods",
	conformanceCase{Name: "eni-limited", Run: func(t *T) {
		pods := eniPods(t)
		require.Equal(t, int64(35), pods["t3.large"])
		require.Equal(t, int64(394), pods["m6idn.32xlarge"])
	}},
	conformanceCase{Name: "eni-limited-never-110", Run: func(t *T) {
		for name, n := range eniPods(t) {
			require.NotEqual(t, int64(110), n, name)
		}
	}},
	conformanceCase{Name: "windows-110", Run: func(t *T) {
		for name, n := range podCapacities(t, awsNodeClass("windows2022@latest", &apis.KubeletConfiguration{}), instancetypes.AWSOptions{}) {
			require.Equal(t, int64(110), n, name)
		}
	}},
	conformanceCase{Name: "max-pods", Run: func(t *T) {
		for name, n := range podCapacities(t, awsNodeClass("al2023@latest", maxPods10()), instancetypes.AWSOptions{}) {
			require.Equal(t, int64(10), n, name)
		}
	}},
	conformanceCase{Name: "max-pods-al2", Run: t3LargeMaxPods("al2@latest", maxPods10(), instancetypes.AWSOptions{}, 10, "640Mi")},
	conformanceCase{Name: "max-pods-al2023", Run: t3LargeMaxPods("al2023@latest", maxPods10(), instancetypes.AWSOptions{}, 10, "640Mi")},
	conformanceCase{Name: "max-pods-bottlerocket", Run: t3LargeMaxPods("bottlerocket@latest", maxPods10(), instancetypes.AWSOptions{}, 10, "365Mi")},
	conformanceCase{Name: "max-pods-windows2019", Run: t3LargeMaxPods("windows2019@latest", maxPods10(), instancetypes.AWSOptions{}, 10, "365Mi")},
	conformanceCase{Name: "max-pods-windows2022", Run: t3LargeMaxPods("windows2022@latest", maxPods10(), instancetypes.AWSOptions{}, 10, "365Mi")},
	conformanceCase{Name: "max-pods-windows2025", Run: t3LargeMaxPods("windows2025@latest", maxPods10(), instancetypes.AWSOptions{}, 10, "365Mi")},
	conformanceCase{Name: "max-pods-custom", Run: t3LargeMaxPods("", maxPods10(), instancetypes.AWSOptions{}, 10, "640Mi")},
	conformanceCase{Name: "max-pods-override", Run: func(t *T) {
		for name, n := range podCapacities(t, awsNodeClass("bottlerocket@latest", maxPods10()), instancetypes.AWSOptions{}) {
			require.Equal(t, int64(10), n, name)
		}
	}},
	conformanceCase{Name: "reserved-enis-al2", Run: t3LargeMaxPods("al2@latest", nil, instancetypes.AWSOptions{ReservedENIs: 1}, 24, "640Mi")},
	conformanceCase{Name: "reserved-enis-al2023", Run: t3LargeMaxPods("al2023@latest", nil, instancetypes.AWSOptions{ReservedENIs: 1}, 24, "640Mi")},
	conformanceCase{Name: "reserved-enis-bottlerocket", Run: t3LargeMaxPods("bottlerocket@latest", nil, instancetypes.AWSOptions{ReservedENIs: 1}, 24, "519Mi")},
	conformanceCase{Name: "reserved-enis-windows2019", Run: t3LargeMaxPods("windows2019@latest", nil, instancetypes.AWSOptions{ReservedENIs: 1}, 110, "1465Mi")},
	conformanceCase{Name: "reserved-enis-windows2022", Run: t3LargeMaxPods("windows2022@latest", nil, instancetypes.AWSOptions{ReservedENIs: 1}, 110, "1465Mi")},
	conformanceCase{Name: "reserved-enis-windows2025", Run: t3LargeMaxPods("windows2025@latest", nil, instancetypes.AWSOptions{ReservedENIs: 1}, 110, "1465Mi")},
	conformanceCase{Name: "reserved-enis-custom", Run: t3LargeMaxPods("", nil, instancetypes.AWSOptions{ReservedENIs: 1}, 24, "640Mi")},
	conformanceCase{Name: "reserved-enis-floor", Run: func(t *T) {
		it := awsType(t, awsNodeClass("al2023@latest", nil), instancetypes.AWSOptions{ReservedENIs: 1_000_000}, "t3.large")
		require.Zero(t, it.Capacity.Pods())
	}},
	conformanceCase{Name: "pods-per-core", Run: func(t *T) {
		eni, cpus := eniPods(t), vcpus()
		for name, n := range podCapacities(t, awsNodeClass("al2023@latest", &apis.KubeletConfiguration{PodsPerCore: int32p(1)}), instancetypes.AWSOptions{}) {
			require.Equal(t, min(cpus[name], eni[name]), n, name)
		}
	}},
	conformanceCase{Name: "pods-per-core-and-max-pods", Run: func(t *T) {
		cpus := vcpus()
		k := &apis.KubeletConfiguration{PodsPerCore: int32p(4), MaxPods: maxPodsOf(20)}
		for name, n := range podCapacities(t, awsNodeClass("al2023@latest", k), instancetypes.AWSOptions{}) {
			require.Equal(t, min(20, 4*cpus[name]), n, name)
		}
	}},
	conformanceCase{Name: "pods-per-core-bottlerocket", Run: func(t *T) {
		eni := eniPods(t)
		for name, n := range podCapacities(t, awsNodeClass("bottlerocket@latest", &apis.KubeletConfiguration{PodsPerCore: int32p(1)}), instancetypes.AWSOptions{}) {
			require.Equal(t, eni[name], n, name)
		}
	}},
	conformanceCase{Name: "pods-per-core-zero", Run: func(t *T) {
		pods := podCapacities(t, awsNodeClass("al2023@latest", &apis.KubeletConfiguration{PodsPerCore: int32p(0)}), instancetypes.AWSOptions{})
		require.Equal(t, int64(35), pods["t3.large"])
		require.Equal(t, int64(394), pods["m6idn.32xlarge"])
	}},
	conformanceCase{Name: "allocatable-at-most-kubelet", Run: func(t *T) {
		// What the kubelet reported on real nodes of these types, launched
		// with the AL2023 AMI and no kubelet settings.
		kubelet := map[string][2]string{
			"t4g.small":  {"1930m", "1408312Ki"},
			"t4g.medium": {"1930m", "3377496Ki"},
			"t4g.xlarge": {"3920m", "15136012Ki"},
			"m5.large":   {"1930m", "7220184Ki"},
		}
		c := awsCatalog(t, awsNodeClass("al2023@latest", nil), instancetypes.AWSOptions{}, "t4g.small", "t4g.medium", "t4g.xlarge", "m5.large")
		for name, want := range kubelet {
			it, _ := c.Get(name)
			a := it.Allocatable()
			cpu, mem := resource.MustParse(want[0]), resource.MustParse(want[1])
			require.LessOrEqual(t, a.CPU(), cpu.MilliValue(), "%s cpu", name)
			require.LessOrEqual(t, a.Memory(), mem.Value(), "%s memory", name)
		}
	}},
)

var _ = register("aws-capacity",
	conformanceCase{Name: "vm-memory-overhead", Run: func(t *T) {
		// t3.medium's nominal memory (4096Mi; upstream's fake type has
		// 8192Mi) less the default 7.5% kept for the hypervisor, rounded
		// up to whole MiB.
		it := awsType(t, awsNodeClass("al2023@latest", nil), instancetypes.AWSOptions{}, "t3.medium")
		const nominal = 4096
		overheadMiB := (nominal*75 + 999) / 1000
		require.Equal(t, int64(nominal-overheadMiB)<<20, it.Capacity.Memory())
	}},
)
