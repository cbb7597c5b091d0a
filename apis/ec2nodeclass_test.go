package apis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func validEC2NodeClass() *EC2NodeClass {
	nc := &EC2NodeClass{
		ObjectMeta: metav1.ObjectMeta{Name: "default"},
		Spec: EC2NodeClassSpec{
			AMISelectorTerms:           []AMISelectorTerm{{Alias: "al2023@latest"}},
			SubnetSelectorTerms:        []SubnetSelectorTerm{{Tags: map[string]string{"karpenter.sh/discovery": "c"}}, {ID: "subnet-0abc"}},
			SecurityGroupSelectorTerms: []SecurityGroupSelectorTerm{{Name: "nodes"}},
			Role:                       "KarpenterNodeRole",
			Kubelet: &KubeletConfiguration{
				MaxPods:                     ptr(intstr.FromInt32(110)),
				SystemReserved:              map[string]string{"cpu": "100m", "memory": "100Mi"},
				EvictionHard:                map[string]string{"memory.available": "5%", "nodefs.available": "10%"},
				EvictionSoft:                map[string]string{"memory.available": "500Mi"},
				EvictionSoftGracePeriod:     map[string]metav1.Duration{"memory.available": {Duration: 60e9}},
				ImageGCHighThresholdPercent: ptr(int32(85)),
				ImageGCLowThresholdPercent:  ptr(int32(80)),
			},
			BlockDeviceMappings: []*BlockDeviceMapping{{
				DeviceName: ptr("/dev/xvda"), RootVolume: true,
				EBS: &BlockDevice{VolumeSize: ptr(resource.MustParse("100Gi")), VolumeType: ptr("gp3")},
			}},
		},
	}
	nc.SetDefaults()
	return nc
}

func TestAMIFamily(t *testing.T) {
	cases := []struct {
		family *string
		terms  []AMISelectorTerm
		want   string
	}{
		{family: ptr(AMIFamilyAL2), want: AMIFamilyAL2},
		{terms: []AMISelectorTerm{{Alias: "al2023@latest"}}, want: AMIFamilyAL2023},
		{terms: []AMISelectorTerm{{Alias: "bottlerocket@v1.20.0"}}, want: AMIFamilyBottlerocket},
		{terms: []AMISelectorTerm{{Alias: "windows2022@latest"}}, want: AMIFamilyWindows2022},
		{terms: []AMISelectorTerm{{Alias: "al2@latest"}}, want: AMIFamilyAL2},
		{family: ptr(AMIFamilyCustom), terms: []AMISelectorTerm{{Alias: "al2023@latest"}}, want: AMIFamilyCustom},
		{terms: []AMISelectorTerm{{ID: "ami-123"}}, want: AMIFamilyCustom},
		{terms: []AMISelectorTerm{{Alias: "ubuntu@latest"}}, want: AMIFamilyCustom},
		{want: AMIFamilyCustom},
	}
	for _, c := range cases {
		nc := &EC2NodeClass{Spec: EC2NodeClassSpec{AMIFamily: c.family, AMISelectorTerms: c.terms}}
		assert.Equal(t, c.want, nc.AMIFamily(), "%v %v", c.family, c.terms)
	}
}

func TestParseAlias(t *testing.T) {
	a, ok := ParseAlias("al2023@v20240625")
	assert.True(t, ok)
	assert.Equal(t, Alias{Family: AMIFamilyAL2023, Version: "v20240625"}, a)
	assert.Equal(t, "al2023@v20240625", a.String())
	for _, bad := range []string{"al2023", "al2023@", "AL2023@latest", "foo@latest", "al2@a@b", ""} {
		_, ok := ParseAlias(bad)
		assert.False(t, ok, bad)
	}
}

func TestEC2NodeClassSetDefaults(t *testing.T) {
	nc := &EC2NodeClass{}
	nc.SetDefaults()
	assert.Equal(t, &MetadataOptions{HTTPEndpoint: ptr("enabled"), HTTPProtocolIPv6: ptr("disabled"), HTTPPutResponseHopLimit: ptr(int64(1)), HTTPTokens: ptr("required")}, nc.Spec.MetadataOptions)

	nc = &EC2NodeClass{Spec: EC2NodeClassSpec{MetadataOptions: &MetadataOptions{HTTPPutResponseHopLimit: ptr(int64(2)), HTTPTokens: ptr("optional")}}}
	nc.SetDefaults()
	assert.Equal(t, &MetadataOptions{HTTPEndpoint: ptr("enabled"), HTTPProtocolIPv6: ptr("disabled"), HTTPPutResponseHopLimit: ptr(int64(2)), HTTPTokens: ptr("optional")}, nc.Spec.MetadataOptions)
}

var ec2NodeClassValidationCases = []struct {
	name   string
	change func(*EC2NodeClass)
	want   []string
}{
	{"status subnets", func(nc *EC2NodeClass) {
		nc.Status.Subnets = []Subnet{{ID: "subnet-1", Zone: "us-east-1a"}, {ID: "subnet-1", Zone: "us-east-1b"}, {ID: "subnet-2"}}
	}, []string{
		`status.subnets[1].id: "subnet-1" is listed twice`,
		"status.subnets[2].zone: required: the subnet's availability zone, e.g. us-east-1a",
	}},
	{"status capacity reservations", func(nc *EC2NodeClass) {
		nc.Status.CapacityReservations = []CapacityReservation{
			{ID: "cr-1", AvailabilityZone: "us-east-1a", InstanceType: "m5.large", ReservationType: "block", State: "ending"},
			{ID: "reservation"},
		}
	}, []string{
		`status.capacityReservations[0].reservationType: "block" is not allowed (use default or capacity-block)`,
		`status.capacityReservations[0].state: "ending" is not allowed (use active or expiring)`,
		`status.capacityReservations[1].id: "reservation" is not a valid ID (expected something like cr-0123456789abcdef0)`,
		"status.capacityReservations[1].availabilityZone: required: the zone the reservation is in",
		"status.capacityReservations[1].instanceType: required: the instance type the reservation is for",
	}},
	{"no terms at all", func(nc *EC2NodeClass) {
		nc.Spec.AMISelectorTerms, nc.Spec.SubnetSelectorTerms, nc.Spec.SecurityGroupSelectorTerms = nil, nil, nil
	}, []string{
		"spec.subnetSelectorTerms: required: at least one term, e.g. {tags: {karpenter.sh/discovery: my-cluster}}",
		"spec.securityGroupSelectorTerms: required: at least one term, e.g. {tags: {karpenter.sh/discovery: my-cluster}}",
		"spec.amiSelectorTerms: required: at least one term, e.g. {alias: al2023@latest}",
		"spec.amiFamily: required when amiSelectorTerms has no alias (one of AL2, AL2023, Bottlerocket, Custom, Windows2019, Windows2022, Windows2025)",
	}},
	{"subnet id with tags", func(nc *EC2NodeClass) { nc.Spec.SubnetSelectorTerms[1].Tags = map[string]string{"a": "b"} },
		[]string{"spec.subnetSelectorTerms[1]: id selects one subnet and may not be combined with tags; use a separate term"}},
	{"bad subnet id and empty tag value", func(nc *EC2NodeClass) {
		nc.Spec.SubnetSelectorTerms = []SubnetSelectorTerm{{ID: "sn-1"}, {Tags: map[string]string{"a": ""}}}
	}, []string{
		`spec.subnetSelectorTerms[0].id: "sn-1" is not a valid ID (expected something like subnet-0123456789abcdef0)`,
		`spec.subnetSelectorTerms[1].tags[a]: empty tag values are not allowed (use "*" to match any value)`,
	}},
	{"alias family mismatch", func(nc *EC2NodeClass) { nc.Spec.AMIFamily = ptr(AMIFamilyBottlerocket) },
		[]string{`spec.amiFamily: "Bottlerocket" does not match the alias "al2023@latest": leave amiFamily out, or set it to the alias's family or Custom`}},
	{"alias Custom family", func(nc *EC2NodeClass) { nc.Spec.AMIFamily = ptr(AMIFamilyCustom) }, nil},
	{"windows pinned", func(nc *EC2NodeClass) { nc.Spec.AMISelectorTerms[0].Alias = "windows2019@v1" },
		[]string{`spec.amiSelectorTerms[0].alias: "windows2019@v1": Windows aliases only support the version latest`}},
	{"alias with a second term", func(nc *EC2NodeClass) {
		nc.Spec.AMISelectorTerms = append(nc.Spec.AMISelectorTerms, AMISelectorTerm{ID: "ami-1"})
	}, []string{"spec.amiSelectorTerms[0].alias: an alias term must be the only amiSelectorTerms entry, but there are 2"}},
	{"ssmParameter term", func(nc *EC2NodeClass) {
		nc.Spec.AMISelectorTerms = []AMISelectorTerm{{SSMParameter: "/aws/service/x"}}
		nc.Spec.AMIFamily = ptr(AMIFamilyAL2023)
	}, nil},
	{"neither role nor profile", func(nc *EC2NodeClass) { nc.Spec.Role = "" },
		[]string{"spec: set exactly one of role or instanceProfile (neither is set)"}},
	{"empty instance profile", func(nc *EC2NodeClass) { nc.Spec.Role, nc.Spec.InstanceProfile = "", ptr("") },
		[]string{"spec.instanceProfile: must not be empty"}},
	{"restricted tags", func(nc *EC2NodeClass) {
		nc.Spec.Tags = map[string]string{"kubernetes.io/cluster/x": "owned", "karpenter.sh/nodeclaim": "a", "": "v", "team": "a"}
	}, []string{
		"spec.tags: empty tag keys are not allowed",
		"spec.tags[karpenter.sh/nodeclaim]: tag \"karpenter.sh/nodeclaim\" is restricted: Karpenter or EKS sets it",
		"spec.tags[kubernetes.io/cluster/x]: tag keys starting with kubernetes.io/cluster are restricted: Karpenter sets the cluster tag",
	}},
	{"kubelet", func(nc *EC2NodeClass) {
		k := nc.Spec.Kubelet
		k.EvictionSoft["nodefs.available"] = "10%"
		k.EvictionSoftGracePeriod["imagefs.available"] = metav1.Duration{}
		k.SystemReserved["gpu"] = "1"
		k.KubeReserved = map[string]string{"memory": "-1Gi"}
		k.EvictionHard["memory.available"] = "lots"
		k.ImageGCLowThresholdPercent = ptr(int32(85))
		k.MaxPods = ptr(intstr.FromInt32(-1))
	}, []string{
		"spec.kubelet.maxPods: -1 is negative",
		`spec.kubelet.systemReserved[gpu]: "gpu" cannot be reserved (use cpu, memory, ephemeral-storage, pid)`,
		`spec.kubelet.kubeReserved[memory]: "-1Gi" is negative`,
		`spec.kubelet.evictionHard[memory.available]: "lots" is not a quantity or a percentage (use e.g. "100Mi" or "10%")`,
		"spec.kubelet.evictionSoftGracePeriod[imagefs.available]: has no matching evictionSoft threshold; set both or neither",
		"spec.kubelet.evictionSoft[nodefs.available]: has no matching evictionSoftGracePeriod; soft thresholds need a grace period",
		"spec.kubelet.imageGCHighThresholdPercent: 85 must be greater than imageGCLowThresholdPercent (85)",
	}},
	{"kubelet expressions", func(nc *EC2NodeClass) {
		k := nc.Spec.Kubelet
		k.MaxPods = ptr(intstr.FromString("min(110, vcpus *"))
		k.KubeReserved = map[string]string{"cpu": "vcpus * 30", "memory": "lots of it"}
	}, []string{
		`spec.kubelet.maxPods: kubelet expression "min(110, vcpus *": unexpected end of expression (karpsim reads numbers, variables, + - * / %, min, max, int and double)`,
		`spec.kubelet.kubeReserved[memory]: "lots of it" is not a quantity (use e.g. "100m" or "1Gi"), nor an expression: kubelet expression "lots of it": "lots" at 1: unknown variable (use vcpus, memory_mib, default_enis, ips_per_eni, max_pods)`,
	}},
	{"two root volumes and bad ebs", func(nc *EC2NodeClass) {
		nc.Spec.BlockDeviceMappings = append(nc.Spec.BlockDeviceMappings, &BlockDeviceMapping{
			RootVolume: true,
			EBS:        &BlockDevice{VolumeType: ptr("gp9"), VolumeInitializationRate: ptr(int32(50))},
		})
	}, []string{
		"spec.blockDeviceMappings[1].ebs: set snapshotID or volumeSize",
		"spec.blockDeviceMappings[1].ebs.volumeInitializationRate: needs snapshotID: only volumes made from a snapshot are initialized",
		"spec.blockDeviceMappings[1].ebs.volumeInitializationRate: 50 is out of range (100 to 300 MiB/s)",
		`spec.blockDeviceMappings[1].ebs.volumeType: "gp9" is not an EBS volume type (use standard, io1, io2, gp2, sc1, st1, gp3)`,
		"spec.blockDeviceMappings: only one mapping may be the root volume, but mappings 0, 1 all set rootVolume",
	}},
	{"volume too big", func(nc *EC2NodeClass) { nc.Spec.BlockDeviceMappings[0].EBS.VolumeSize = ptr(resource.MustParse("65T")) },
		[]string{`spec.blockDeviceMappings[0].ebs.volumeSize: 65T is not allowed: use Gi, G, Ti or T, from 1Gi up to 64T (e.g. "20Gi")`}},
	{"metadata options", func(nc *EC2NodeClass) {
		nc.Spec.MetadataOptions.HTTPTokens = ptr("sometimes")
		nc.Spec.MetadataOptions.HTTPPutResponseHopLimit = ptr(int64(65))
	}, []string{
		`spec.metadataOptions.httpTokens: "sometimes" is not allowed (use required or optional)`,
		"spec.metadataOptions.httpPutResponseHopLimit: 65 is out of range (1 to 64)",
	}},
	{"instance store policy", func(nc *EC2NodeClass) { p := InstanceStorePolicy("RAID1"); nc.Spec.InstanceStorePolicy = &p },
		[]string{`spec.instanceStorePolicy: "RAID1" is not an instance store policy (use RAID0, or leave it out)`}},
}

func TestEC2NodeClassValidate(t *testing.T) {
	assert.NoError(t, validEC2NodeClass().Validate())
	for _, c := range ec2NodeClassValidationCases {
		t.Run(c.name, func(t *testing.T) {
			nc := validEC2NodeClass()
			c.change(nc)
			assertFieldErrors(t, c.want, nc.Validate())
		})
	}
}
