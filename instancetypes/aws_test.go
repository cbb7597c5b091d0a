package instancetypes

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/pricing"
	"github.com/karpsim/karpsim/resources"
)

// The reference's worked examples (karpenter-behaviour.md §4).
func TestWorkedExamples(t *testing.T) {
	c := Default()
	a1 := mustGet(t, c, "a1.medium")
	expectAllocatable(t, a1, "940m", "1392Mi", "17Gi", 8)
	m5 := mustGet(t, c, "m5.24xlarge")
	if got := m5.Allocatable().Pods(); got != 737 {
		t.Errorf("m5.24xlarge pods = %d, want 737 (15 ENIs × 49 + 2, no 110 cap)", got)
	}
}

func TestKubeReservedCPU(t *testing.T) {
	for _, tc := range []struct{ cpuMilli, want int64 }{
		{0, 0},
		{500, 30},
		{1000, 60},
		{2000, 70},
		{3000, 75},
		{4000, 80},
		{8000, 90},
		{96000, 310},
	} {
		if got := kubeReservedCPU(tc.cpuMilli); got != tc.want {
			t.Errorf("kubeReservedCPU(%dm) = %dm, want %dm", tc.cpuMilli, got, tc.want)
		}
	}
}

// knobCase is an EC2NodeClass setting and the allocatable it gives a type.
type knobCase struct {
	name      string
	family    string
	kubelet   *apis.KubeletConfiguration
	bdms      []*apis.BlockDeviceMapping
	raid0     bool
	typeName  string
	cpu       string
	memory    string
	ephemeral string
	pods      int64
}

// m5.large: 2 vCPU, 8192 MiB, 3 ENIs × 10 IPv4, 75 GB NVMe on m5d.large.
// Memory capacity is 8192 − ceil(8192 × 0.075) = 7577 MiB; the ENI pod limit
// is 3 × 9 + 2 = 29, so kube-reserved memory is 11 × 29 + 255 = 574 MiB.
// With AL2023 defaults: cpu 1930m, memory 7577 − 574 − 100 = 6903Mi,
// ephemeral 20 − 1 − 2 = 17Gi, pods 29.
var knobCases = []knobCase{
	{name: "defaults", typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 29},
	{name: "AL2 is like AL2023", family: apis.AMIFamilyAL2, typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 29},
	// kube-reserved memory keeps the ENI-limited 29 pods on AL2023.
	{name: "maxPods", kubelet: &apis.KubeletConfiguration{MaxPods: ptr(intstr.FromInt32(110))},
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 110},
	{name: "podsPerCore caps the ENI limit", kubelet: &apis.KubeletConfiguration{PodsPerCore: ptr[int32](4)},
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 8},
	{name: "podsPerCore caps maxPods", kubelet: &apis.KubeletConfiguration{MaxPods: ptr(intstr.FromInt32(110)), PodsPerCore: ptr[int32](10)},
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 20},
	{name: "kubeReserved replaces the defaults",
		kubelet:  &apis.KubeletConfiguration{KubeReserved: map[string]string{"cpu": "200m", "memory": "1Gi", "ephemeral-storage": "3Gi"}},
		typeName: "m5.large", cpu: "1800m", memory: "6453Mi", ephemeral: "15Gi", pods: 29},
	{name: "kubeReserved of one resource keeps the others",
		kubelet:  &apis.KubeletConfiguration{KubeReserved: map[string]string{"memory": "1Gi"}},
		typeName: "m5.large", cpu: "1930m", memory: "6453Mi", ephemeral: "17Gi", pods: 29},
	{name: "systemReserved",
		kubelet:  &apis.KubeletConfiguration{SystemReserved: map[string]string{"cpu": "100m", "memory": "100Mi", "ephemeral-storage": "1Gi"}},
		typeName: "m5.large", cpu: "1830m", memory: "6803Mi", ephemeral: "16Gi", pods: 29},
	// 7577 MiB = 7945060352 bytes; 10% rounds up to 794506036 bytes.
	// 20Gi × 15% = 3Gi.
	{name: "evictionHard percentages",
		kubelet:  &apis.KubeletConfiguration{EvictionHard: map[string]string{"memory.available": "10%", "nodefs.available": "15%"}},
		typeName: "m5.large", cpu: "1930m", memory: "6548671692", ephemeral: "16Gi", pods: 29},
	{name: "evictionHard 100% disables the threshold",
		kubelet:  &apis.KubeletConfiguration{EvictionHard: map[string]string{"memory.available": "100%"}},
		typeName: "m5.large", cpu: "1930m", memory: "7003Mi", ephemeral: "17Gi", pods: 29},
	{name: "evictionHard amounts",
		kubelet:  &apis.KubeletConfiguration{EvictionHard: map[string]string{"memory.available": "500Mi", "nodefs.available": "5Gi"}},
		typeName: "m5.large", cpu: "1930m", memory: "6503Mi", ephemeral: "14Gi", pods: 29},
	// Karpenter no longer reserves soft thresholds (aws provider #8407).
	{name: "evictionSoft reserves nothing",
		kubelet:  &apis.KubeletConfiguration{EvictionSoft: map[string]string{"memory.available": "1Gi", "nodefs.available": "50%"}},
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 29},
	{name: "evictionHard wins over a larger evictionSoft",
		kubelet: &apis.KubeletConfiguration{
			EvictionHard: map[string]string{"memory.available": "500Mi"},
			EvictionSoft: map[string]string{"memory.available": "1Gi"},
		},
		typeName: "m5.large", cpu: "1930m", memory: "6503Mi", ephemeral: "17Gi", pods: 29},
	// 50Gi: eviction 5Gi; 100Gi: eviction 10Gi.
	{name: "50Gi on the family's root device", bdms: []*apis.BlockDeviceMapping{volume("/dev/xvda", "50Gi", false)},
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "44Gi", pods: 29},
	{name: "100Gi marked rootVolume", bdms: []*apis.BlockDeviceMapping{volume("/dev/xvda", "20Gi", false), volume("/dev/xvdb", "100Gi", true)},
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "89Gi", pods: 29},
	{name: "a data volume is not ephemeral storage", bdms: []*apis.BlockDeviceMapping{volume("/dev/xvdb", "100Gi", false)},
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 29},
	// Bottlerocket: kube-reserved memory follows the pod capacity, and
	// podsPerCore is ignored; pods run on /dev/xvdb.
	{name: "Bottlerocket", family: apis.AMIFamilyBottlerocket,
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 29},
	{name: "Bottlerocket maxPods", family: apis.AMIFamilyBottlerocket, kubelet: &apis.KubeletConfiguration{MaxPods: ptr(intstr.FromInt32(110))},
		typeName: "m5.large", cpu: "1930m", memory: "6012Mi", ephemeral: "17Gi", pods: 110},
	{name: "Bottlerocket ignores podsPerCore", family: apis.AMIFamilyBottlerocket, kubelet: &apis.KubeletConfiguration{PodsPerCore: ptr[int32](4)},
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 29},
	{name: "Bottlerocket data volume", family: apis.AMIFamilyBottlerocket,
		bdms:     []*apis.BlockDeviceMapping{volume("/dev/xvda", "4Gi", false), volume("/dev/xvdb", "100Gi", false)},
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "89Gi", pods: 29},
	// Windows: 110 pods, kube-reserved memory 11 × 110 + 255 = 1465 MiB,
	// a 50Gi C: drive.
	{name: "Windows2022", family: apis.AMIFamilyWindows2022,
		typeName: "m5.large", cpu: "1930m", memory: "6012Mi", ephemeral: "44Gi", pods: 110},
	{name: "Windows2022 podsPerCore", family: apis.AMIFamilyWindows2022, kubelet: &apis.KubeletConfiguration{PodsPerCore: ptr[int32](4)},
		typeName: "m5.large", cpu: "1930m", memory: "7134Mi", ephemeral: "44Gi", pods: 8},
	{name: "Custom", family: apis.AMIFamilyCustom,
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 29},
	{name: "Custom takes the last volume", family: apis.AMIFamilyCustom,
		bdms:     []*apis.BlockDeviceMapping{volume("/dev/xvda", "30Gi", false), volume("/dev/xvdb", "60Gi", false)},
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "53Gi", pods: 29},
	// 75 GB = 75e9 bytes, eviction 7.5e9: 75e9 − 1Gi − 7.5e9.
	{name: "RAID0 of local NVMe", raid0: true,
		typeName: "m5d.large", cpu: "1930m", memory: "6903Mi", ephemeral: "66426258176", pods: 29},
	{name: "RAID0 without local NVMe", raid0: true,
		typeName: "m5.large", cpu: "1930m", memory: "6903Mi", ephemeral: "17Gi", pods: 29},
}

func TestNodeClassKnobs(t *testing.T) {
	for _, tc := range knobCases {
		t.Run(tc.name, func(t *testing.T) {
			nc := nodeClass(tc.family, tc.kubelet, tc.bdms, tc.raid0)
			c, err := NewAWS(EmbeddedFacts(), AWSOptions{NodeClass: nc})
			if err != nil {
				t.Fatal(err)
			}
			expectAllocatable(t, mustGet(t, c, tc.typeName), tc.cpu, tc.memory, tc.ephemeral, tc.pods)
		})
	}
}

func TestWindowsLabels(t *testing.T) {
	c, err := NewAWS(EmbeddedFacts(), AWSOptions{NodeClass: nodeClass(apis.AMIFamilyWindows2022, nil, nil, false)})
	if err != nil {
		t.Fatal(err)
	}
	m5 := mustGet(t, c, "m5.large")
	labels := m5.Labels()
	if labels[apis.LabelOS] != "windows" || labels[apis.LabelWindowsBuild] != "10.0.20348" {
		t.Errorf("m5.large on Windows2022: labels %v", labels)
	}
	if got := m5.Capacity.Get(resourcePrivateIPv4Address); got != 9 {
		t.Errorf("m5.large on Windows: %s = %d, want 9 (10 IPv4 per ENI − 1)", resourcePrivateIPv4Address, got)
	}
	// Windows AMIs are amd64 only: an arm64 type cannot be a Windows node.
	m6g := mustGet(t, c, "m6g.large")
	if op := m6g.Requirements.Get(apis.LabelOS).Operator(); op != corev1.NodeSelectorOpDoesNotExist {
		t.Errorf("m6g.large on Windows: os %s, want DoesNotExist", m6g.Requirements.Get(apis.LabelOS))
	}
	if got := m6g.Capacity.Get(resourcePrivateIPv4Address); got != 0 {
		t.Errorf("m6g.large on Windows: %s = %d, want none", resourcePrivateIPv4Address, got)
	}
}

func TestAWSOptions(t *testing.T) {
	facts := EmbeddedFacts()
	// One reserved ENI: 2 × 9 + 2 pods; kube-reserved memory still counts 29.
	c, err := NewAWS(facts, AWSOptions{ReservedENIs: 1})
	if err != nil {
		t.Fatal(err)
	}
	expectAllocatable(t, mustGet(t, c, "m5.large"), "1930m", "6903Mi", "17Gi", 20)
	// No VM overhead: 8192 − 574 − 100; 10%: 8192 − 820 − 574 − 100.
	for _, tc := range []struct {
		percent float64
		memory  string
	}{{-1, "7518Mi"}, {0.1, "6698Mi"}} {
		c, err := NewAWS(facts, AWSOptions{VMMemoryOverheadPercent: tc.percent})
		if err != nil {
			t.Fatal(err)
		}
		expectAllocatable(t, mustGet(t, c, "m5.large"), "1930m", tc.memory, "17Gi", 29)
	}
	// Region and zones.
	c, err = NewAWS(facts[:3], AWSOptions{Region: "eu-west-1", Zones: []string{"eu-west-1b", "eu-west-1a"}})
	if err != nil {
		t.Fatal(err)
	}
	it := c[0]
	if got := it.Labels()[apis.LabelTopologyRegion]; got != "eu-west-1" {
		t.Errorf("region label %q", got)
	}
	if got := it.Requirements.Get(apis.LabelTopologyZone).Values(); len(got) != 2 || got[0] != "eu-west-1a" {
		t.Errorf("zones %v", got)
	}
}

func TestAWSOptionErrors(t *testing.T) {
	facts := EmbeddedFacts()[:2]
	for _, tc := range []struct {
		name string
		opts AWSOptions
	}{
		{"VM overhead of 100%", AWSOptions{VMMemoryOverheadPercent: 1}},
		{"negative reserved ENIs", AWSOptions{ReservedENIs: -1}},
		{"repeated zone", AWSOptions{Zones: []string{"a", "a"}}},
		{"unknown AMI family", AWSOptions{NodeClass: nodeClass("Ubuntu", nil, nil, false)}},
		{"negative maxPods", AWSOptions{NodeClass: nodeClass("", &apis.KubeletConfiguration{MaxPods: ptr(intstr.FromInt32(-1))}, nil, false)}},
		{"bad kubeReserved", AWSOptions{NodeClass: nodeClass("", &apis.KubeletConfiguration{KubeReserved: map[string]string{"cpu": "lots"}}, nil, false)}},
		{"negative systemReserved", AWSOptions{NodeClass: nodeClass("", &apis.KubeletConfiguration{SystemReserved: map[string]string{"memory": "-1Gi"}}, nil, false)}},
		{"bad percentage", AWSOptions{NodeClass: nodeClass("", &apis.KubeletConfiguration{EvictionHard: map[string]string{"memory.available": "x%"}}, nil, false)}},
		{"percentage over 100", AWSOptions{NodeClass: nodeClass("", &apis.KubeletConfiguration{EvictionHard: map[string]string{"nodefs.available": "150%"}}, nil, false)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewAWS(facts, tc.opts)
			if !errors.Is(err, ErrInvalidAWSOptions) {
				t.Fatalf("NewAWS: %v, want ErrInvalidAWSOptions", err)
			}
			t.Log(err)
		})
	}
}

func TestAWSOfferings(t *testing.T) {
	facts := EmbeddedFacts()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	unavailable := &pricing.UnavailableOfferings{}
	unavailable.MarkUnavailable(apis.CapacityTypeSpot, "m5.large", "us-east-1b", now.Add(-time.Minute))
	c, err := NewAWS(facts, AWSOptions{
		Prices:      pricing.NewTable(map[string]float64{"m5.large": 0.096}),
		Unavailable: unavailable,
		Now:         now,
	})
	if err != nil {
		t.Fatal(err)
	}
	m5 := mustGet(t, c, "m5.large")
	want := []Offering{
		{Zone: "us-east-1a", CapacityType: "on-demand", Price: 0.096, Available: true},
		{Zone: "us-east-1a", CapacityType: "spot", Price: 0.096, Available: true},
		{Zone: "us-east-1b", CapacityType: "on-demand", Price: 0.096, Available: true},
		{Zone: "us-east-1b", CapacityType: "spot", Price: 0.096, Available: false},
		{Zone: "us-east-1c", CapacityType: "on-demand", Price: 0.096, Available: true},
		{Zone: "us-east-1c", CapacityType: "spot", Price: 0.096, Available: true},
	}
	if len(m5.Offerings) != len(want) {
		t.Fatalf("offerings %v", m5.Offerings)
	}
	for i := range want {
		if m5.Offerings[i] != want[i] {
			t.Errorf("offering %d = %+v, want %+v", i, m5.Offerings[i], want[i])
		}
	}
	// Without a price a type keeps its zones and capacity types (they are
	// the EC2NodeClass's) but cannot be launched.
	m6g := mustGet(t, c, "m6g.large")
	if _, ok := m6g.CheapestOffering(requirementsOf()); ok {
		t.Errorf("m6g.large has no price but an available offering: %v", m6g.Offerings)
	}
	if got := m6g.Requirements.Get(apis.LabelTopologyZone).Values(); len(got) != 3 {
		t.Errorf("m6g.large zones %v", got)
	}
}

func TestDefaultPrices(t *testing.T) {
	c := Default()
	m5 := mustGet(t, c, "m5.large")
	if o, ok := m5.CheapestOffering(requirementsOf(apis.LabelCapacityType, apis.CapacityTypeOnDemand)); !ok || o.Price != 0.096 {
		t.Errorf("m5.large on-demand %+v", o)
	}
	spot, ok := m5.CheapestOffering(requirementsOf(apis.LabelCapacityType, apis.CapacityTypeSpot))
	if !ok || !(spot.Price >= 0.096*0.25 && spot.Price <= 0.096*0.45) {
		t.Errorf("m5.large spot %+v, want 25%% to 45%% of on-demand", spot)
	}
	unpriced, a1 := 0, 0
	for _, it := range c {
		if _, ok := it.CheapestOffering(requirementsOf()); !ok {
			unpriced++
			if strings.HasPrefix(it.Name, "a1.") {
				a1++
			}
		}
	}
	// AL2023, the default family, does not run on the 6 a1 types.
	if unpriced != 24 || a1 != 6 {
		t.Errorf("%d types cannot be launched (%d a1), want the 18 without an on-demand price and the 6 a1 types", unpriced, a1)
	}
}

func TestDefaultIsShared(t *testing.T) {
	a, b := Default(), Default()
	if len(a) != 1363 {
		t.Fatalf("Default() has %d types, want 1363", len(a))
	}
	a[0] = nil
	if b[0] == nil || Default()[0] == nil {
		t.Error("changing one Default() slice changed another")
	}
	// Building the catalog again gives the same catalog, byte for byte.
	again, err := NewAWS(EmbeddedFacts(), AWSOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var first, second bytes.Buffer
	if err := WriteJSON(&first, b); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&second, again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Error("two builds of the default catalog differ")
	}
}

func expectAllocatable(t *testing.T, it *InstanceType, cpu, memory, ephemeral string, pods int64) {
	t.Helper()
	want := resources.FromList(corev1.ResourceList{
		corev1.ResourceCPU:              resource.MustParse(cpu),
		corev1.ResourceMemory:           resource.MustParse(memory),
		corev1.ResourceEphemeralStorage: resource.MustParse(ephemeral),
	})
	got := it.Allocatable()
	for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage} {
		if got.Get(name) != want.Get(name) {
			g, w := got.Quantity(name), want.Quantity(name)
			t.Errorf("%s allocatable %s = %s, want %s", it.Name, name, g.String(), w.String())
		}
	}
	if got.Pods() != pods {
		t.Errorf("%s allocatable pods = %d, want %d", it.Name, got.Pods(), pods)
	}
}

func mustGet(t *testing.T, c Catalog, name string) *InstanceType {
	t.Helper()
	it, ok := c.Get(name)
	if !ok {
		t.Fatalf("no instance type %s", name)
	}
	return it
}

func nodeClass(family string, kubelet *apis.KubeletConfiguration, bdms []*apis.BlockDeviceMapping, raid0 bool) *apis.EC2NodeClass {
	nc := &apis.EC2NodeClass{}
	nc.Name = "test"
	nc.Spec.AMISelectorTerms = []apis.AMISelectorTerm{{Alias: "al2023@latest"}}
	if family != "" {
		nc.Spec.AMIFamily = &family
	}
	nc.Spec.Kubelet = kubelet
	nc.Spec.BlockDeviceMappings = bdms
	if raid0 {
		nc.Spec.InstanceStorePolicy = ptr(apis.InstanceStorePolicyRAID0)
	}
	return nc
}

func volume(device, size string, root bool) *apis.BlockDeviceMapping {
	q := resource.MustParse(size)
	return &apis.BlockDeviceMapping{DeviceName: &device, EBS: &apis.BlockDevice{VolumeSize: &q}, RootVolume: root}
}

func ptr[T any](v T) *T { return &v }

// Every type of the default catalog, in the published table or not, has
// room for pods and the labels every EC2 type has.
func TestDefaultSanity(t *testing.T) {
	for _, it := range Default() {
		alloc := it.Allocatable()
		if alloc.CPU() <= 0 || alloc.Memory() <= 0 || alloc.Pods() <= 0 || alloc.HasNegative() {
			t.Errorf("%s: allocatable %s", it.Name, alloc)
		}
		labels := it.Labels()
		for _, key := range []string{apis.LabelInstanceCategory, apis.LabelInstanceFamily, apis.LabelInstanceSize,
			apis.LabelInstanceGeneration, apis.LabelArch, apis.LabelOS, apis.LabelInstanceCPU, apis.LabelInstanceMemory} {
			if labels[key] == "" {
				t.Errorf("%s: no %s label", it.Name, key)
			}
		}
	}
}

func TestPreviewPrices(t *testing.T) {
	overlay := func(name, price string, reqs ...corev1.NodeSelectorRequirement) *apis.NodeOverlay {
		o := &apis.NodeOverlay{Spec: apis.NodeOverlaySpec{Price: &price, Requirements: reqs}}
		o.Name = name
		return o
	}
	types := func(values ...string) corev1.NodeSelectorRequirement {
		return corev1.NodeSelectorRequirement{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: values}
	}
	overlays := []*apis.NodeOverlay{
		overlay("b", "3", types("hpc7a.12xlarge")),
		overlay("a", "2", types("hpc7a.12xlarge", "m5.large")),
		// Not the one shape the provider reads: ignored here.
		overlay("c", "4", types("hpc7a.24xlarge"), corev1.NodeSelectorRequirement{Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"us-east-1a"}}),
		overlay("d", "not a price", types("hpc7a.48xlarge")),
	}
	c, err := NewAWS(EmbeddedFacts(), AWSOptions{NodeOverlays: overlays, NodeOverlayGate: true})
	if err != nil {
		t.Fatal(err)
	}
	all := requirementsOf()
	if o, ok := mustGet(t, c, "hpc7a.12xlarge").CheapestOffering(all); !ok || o.Price != 3 {
		t.Errorf("hpc7a.12xlarge: %+v %v, want the price 3 of overlay b, last by name", o, ok)
	}
	if o, _ := mustGet(t, c, "m5.large").CheapestOffering(requirementsOf(apis.LabelCapacityType, apis.CapacityTypeOnDemand)); o.Price != 0.096 {
		t.Errorf("m5.large on-demand %v: a priced type keeps its price", o.Price)
	}
	for _, name := range []string{"hpc7a.24xlarge", "hpc7a.48xlarge"} {
		if o, ok := mustGet(t, c, name).CheapestOffering(all); ok {
			t.Errorf("%s is available at %v", name, o.Price)
		}
	}
	if overlays[0].Name != "b" {
		t.Error("the overlays were reordered")
	}
}
