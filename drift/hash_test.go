package drift

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/apis"
)

func ptr[T any](v T) *T { return &v }

func decode[T any](t *testing.T, manifest string) *T {
	t.Helper()
	out := new(T)
	require.NoError(t, yaml.UnmarshalStrict([]byte(manifest), out))
	return out
}

// Real NodePools with the karpenter.sh/nodepool-hash (version v3) Karpenter
// stamped on them, as their owners published them. Only spec.template
// matters; the rest is kept to show that it does not.
var realNodePools = []struct {
	name, source, hash, manifest string
}{
	{
		name:   "karpenter default pool",
		source: "a GitBook page listing a cluster's default NodePool (kubectl get -o yaml, 2024-10-12, Karpenter v1.0)",
		hash:   "6821555240594823858",
		manifest: `
metadata: {name: default}
spec:
  disruption: {budgets: [{nodes: 10%}], consolidateAfter: 1m, consolidationPolicy: WhenEmptyOrUnderutilized}
  limits: {cpu: 1000}
  template:
    spec:
      expireAfter: 720h
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: kubernetes.io/os, operator: In, values: [linux]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand, spot]}
      - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
      - {key: karpenter.k8s.aws/instance-generation, operator: Gt, values: ["2"]}
`,
	},
	{
		name:   "EKS Auto Mode general-purpose pool",
		source: "EKS Auto Mode's built-in pool, as several workshops print it (2025-01 and 2025-12, same hash)",
		hash:   "4012513481623584108",
		manifest: `
metadata: {name: general-purpose, labels: {app.kubernetes.io/managed-by: eks}}
spec:
  disruption: {budgets: [{nodes: 10%}], consolidateAfter: 30s, consolidationPolicy: WhenEmptyOrUnderutilized}
  template:
    metadata: {}
    spec:
      expireAfter: 336h
      nodeClassRef: {group: eks.amazonaws.com, kind: NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: eks.amazonaws.com/instance-category, operator: In, values: [c, m, r]}
      - {key: eks.amazonaws.com/instance-generation, operator: Gt, values: ["4"]}
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: kubernetes.io/os, operator: In, values: [linux]}
      terminationGracePeriod: 24h0m0s
`,
	},
	{
		// The manifest leaves expireAfter out (the API server defaults it
		// to 720h) and writes empty taint lists, which hash differently
		// from absent ones.
		name:   "on-demand pool with empty taint lists",
		source: "a README applying ondemand-nodepool and spot-nodepool and describing them (2026-07-08); both got this hash",
		hash:   "11142864721958693070",
		manifest: `
metadata: {name: ondemand-nodepool}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default-ec2nodeclass}
      taints: []
      startupTaints: []
      requirements:
      - {key: kubernetes.io/arch, operator: In, values: [amd64]}
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-2a, us-east-2b, us-east-2c]}
  limits: {cpu: "50"}
  disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 30s}
`,
	},
}

func TestNodePoolHashReproducesKarpenter(t *testing.T) {
	for _, tc := range realNodePools {
		t.Run(tc.name, func(t *testing.T) {
			np := decode[apis.NodePool](t, tc.manifest)
			assert.Equal(t, tc.hash, NodePoolHash(np), "source: %s", tc.source)
			np.SetDefaults()
			assert.Equal(t, tc.hash, NodePoolHash(np), "defaulting must not change the hash")
		})
	}
}

// Real EC2NodeClasses with the karpenter.k8s.aws/ec2nodeclass-hash stamped
// on them.
var realEC2NodeClasses = []struct {
	name, source, hash, manifest string
}{
	{
		name:   "AL2023 alias class, version v4",
		source: "the README of ondemand-nodepool above, describing default-ec2nodeclass (2026-07-08, hash version v4)",
		hash:   "6409880261969345973",
		manifest: `
metadata: {name: default-ec2nodeclass}
spec:
  amiFamily: AL2023
  amiSelectorTerms: [{alias: al2023@latest}]
  role: "arn:aws:iam::088354478627:role/drwp-dev-karpenter-node-role"
  subnetSelectorTerms: [{tags: {kubernetes.io/cluster/eks-control-plane: owned, kubernetes.io/role/internal-elb: "1"}}]
  securityGroupSelectorTerms: [{tags: {kubernetes.io/cluster/eks-control-plane: owned}}]
  tags: {karpenter.sh/discovery: eks-control-plane}
  blockDeviceMappings:
  - deviceName: /dev/xvda
    ebs: {volumeSize: 20Gi, volumeType: gp3, encrypted: true, deleteOnTermination: true}
  metadataOptions: {httpTokens: required, httpPutResponseHopLimit: 2}
`,
	},
	{
		// Stamped under version v3; the inputs it uses hash the same under
		// v4, the current algorithm.
		name:   "AL2 class with AMI IDs, stamped v3",
		source: "a GitBook page listing a cluster's default EC2NodeClass (2024-10-12, Karpenter v1.0, hash version v3)",
		hash:   "3511393923618188278",
		manifest: `
metadata: {name: default}
spec:
  amiFamily: AL2
  amiSelectorTerms: [{id: ami-01637a5ffbb75ef5c}, {id: ami-0f9b86b5fcf375aca}]
  metadataOptions: {httpEndpoint: enabled, httpProtocolIPv6: disabled, httpPutResponseHopLimit: 1, httpTokens: required}
  role: KarpenterNodeRole-blue
  securityGroupSelectorTerms: [{tags: {"aws:eks:cluster-name": blue}}]
  subnetSelectorTerms: [{tags: {Name: "eksctl-blue-cluster/SubnetPrivate*"}}]
  tags: {eksdemo.io/version: 0.16.0}
status:
  instanceProfile: blue_8146430464388342579
  securityGroups: [{id: sg-0427f7dc2d9669ad9, name: eks-cluster-sg-blue-3027034}]
`,
	},
}

// hashV4 is the hash version v4 computed (v5 without the CA bundle at the
// end of the list): the real classes above were stamped under it, and they
// check the mirrored spec v5 hashes too.
func hashV4(nc *apis.EC2NodeClass) string {
	return mustHash([]any{mirrorEC2NodeClassSpec(nc.Spec), nc.AMIFamily()})
}

func TestEC2NodeClassHashReproducesKarpenter(t *testing.T) {
	for _, tc := range realEC2NodeClasses {
		t.Run(tc.name, func(t *testing.T) {
			nc := decode[apis.EC2NodeClass](t, tc.manifest)
			assert.Equal(t, tc.hash, hashV4(nc), "source: %s", tc.source)
			nc.SetDefaults()
			assert.Equal(t, tc.hash, hashV4(nc), "defaulting must not change the hash")
		})
	}
}

// upstreamTestNodeClass is the EC2NodeClass of the AWS provider's own hash
// test (aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass_hash_test.go at
// tag v1.14.0, hash version v5), whose expected values
// TestEC2NodeClassHashMatchesUpstreamTest reproduces with the test's CA
// bundle, upstreamTestCABundle.
// upstreamTestCABundle is the CA bundle upstream's hash test passes.
var upstreamTestCABundle = "test-ca-bundle"

func upstreamTestNodeClass() *apis.EC2NodeClass {
	return &apis.EC2NodeClass{Spec: apis.EC2NodeClassSpec{
		Role:                     "role-1",
		Tags:                     map[string]string{"keyTag-1": "valueTag-1", "keyTag-2": "valueTag-2"},
		Context:                  ptr("fake-context"),
		DetailedMonitoring:       ptr(false),
		AssociatePublicIPAddress: ptr(false),
		MetadataOptions: &apis.MetadataOptions{
			HTTPEndpoint: ptr("disabled"), HTTPProtocolIPv6: ptr("disabled"),
			HTTPPutResponseHopLimit: ptr(int64(1)), HTTPTokens: ptr("optional"),
		},
		BlockDeviceMappings: []*apis.BlockDeviceMapping{
			{DeviceName: ptr("map-device-1"), EBS: &apis.BlockDevice{
				DeleteOnTermination: ptr(false), Encrypted: ptr(false), IOPS: ptr(int64(0)),
				KMSKeyID: ptr("fakeKMSKeyID"), SnapshotID: ptr("fakeSnapshot"), Throughput: ptr(int64(0)),
				VolumeSize: resource.NewScaledQuantity(2, resource.Giga), VolumeType: ptr("standard"),
			}},
			{DeviceName: ptr("map-device-2")},
		},
		UserData: ptr("userdata-test-1"),
	}}
}

// TestEC2NodeClassHashMatchesUpstreamTest replays the upstream test's table.
// Upstream merges each change into the base with mergo (maps gain keys,
// lists and pointed-to structs merge element by element); the closures make
// the same changes by hand.
func TestEC2NodeClassHashMatchesUpstreamTest(t *testing.T) {
	const base = "2608468723537941485"
	ebs := func(nc *apis.EC2NodeClass) *apis.BlockDevice { return nc.Spec.BlockDeviceMappings[0].EBS }
	meta := func(nc *apis.EC2NodeClass) *apis.MetadataOptions { return nc.Spec.MetadataOptions }
	cases := []struct {
		name   string
		hash   string
		change func(*apis.EC2NodeClass)
	}{
		{"base", base, func(*apis.EC2NodeClass) {}},
		{"UserData", "2153344579995979450", func(nc *apis.EC2NodeClass) { nc.Spec.UserData = ptr("userdata-test-2") }},
		{"Tags", "4608386791045313156", func(nc *apis.EC2NodeClass) { nc.Spec.Tags["keyTag-test-3"] = "valueTag-test-3" }},
		{"Context", "11612053647989098410", func(nc *apis.EC2NodeClass) { nc.Spec.Context = ptr("context-2") }},
		{"DetailedMonitoring", "11845605438531206428", func(nc *apis.EC2NodeClass) { nc.Spec.DetailedMonitoring = ptr(true) }},
		{"InstanceStorePolicy", "6430637013089544585", func(nc *apis.EC2NodeClass) {
			nc.Spec.InstanceStorePolicy = ptr(apis.InstanceStorePolicyRAID0)
		}},
		{"AssociatePublicIPAddress", "6811176403923819181", func(nc *apis.EC2NodeClass) { nc.Spec.AssociatePublicIPAddress = ptr(true) }},
		{"MetadataOptions HTTPEndpoint", "8158886403801636337", func(nc *apis.EC2NodeClass) { meta(nc).HTTPEndpoint = ptr("enabled") }},
		{"MetadataOptions HTTPProtocolIPv6", "12355196004817691031", func(nc *apis.EC2NodeClass) { meta(nc).HTTPProtocolIPv6 = ptr("enabled") }},
		{"MetadataOptions HTTPPutResponseHopLimit", "8968306366664488826", func(nc *apis.EC2NodeClass) {
			meta(nc).HTTPPutResponseHopLimit = ptr(int64(10))
		}},
		{"MetadataOptions HTTPTokens", "12408995450371615650", func(nc *apis.EC2NodeClass) { meta(nc).HTTPTokens = ptr("required") }},
		{"BlockDeviceMapping DeviceName", "13986335469721503441", func(nc *apis.EC2NodeClass) {
			nc.Spec.BlockDeviceMappings[0].DeviceName = ptr("map-device-test-3")
		}},
		{"BlockDeviceMapping RootVolume", "14242690863945643402", func(nc *apis.EC2NodeClass) { nc.Spec.BlockDeviceMappings[0].RootVolume = true }},
		{"BlockDeviceMapping DeleteOnTermination", "12316454167870753581", func(nc *apis.EC2NodeClass) { ebs(nc).DeleteOnTermination = ptr(true) }},
		{"BlockDeviceMapping Encrypted", "17753517657333560591", func(nc *apis.EC2NodeClass) { ebs(nc).Encrypted = ptr(true) }},
		{"BlockDeviceMapping IOPS", "2249322442135400321", func(nc *apis.EC2NodeClass) { ebs(nc).IOPS = ptr(int64(10)) }},
		{"BlockDeviceMapping KMSKeyID", "12259594419287406661", func(nc *apis.EC2NodeClass) { ebs(nc).KMSKeyID = ptr("test") }},
		{"BlockDeviceMapping SnapshotID", "1149563513090550380", func(nc *apis.EC2NodeClass) { ebs(nc).SnapshotID = ptr("test") }},
		{"BlockDeviceMapping Throughput", "12068199760789564545", func(nc *apis.EC2NodeClass) { ebs(nc).Throughput = ptr(int64(10)) }},
		{"BlockDeviceMapping VolumeType", "16361719363399715944", func(nc *apis.EC2NodeClass) { ebs(nc).VolumeType = ptr("io1") }},
		{"BlockDeviceMapping VolumeSize", "3564293065344858862", func(nc *apis.EC2NodeClass) {
			ebs(nc).VolumeSize = resource.NewScaledQuantity(10, resource.Giga)
		}},
		{"ConnectionTracking TCPEstablishedTimeout", "12177489405137904098", func(nc *apis.EC2NodeClass) {
			nc.Spec.ConnectionTracking = &apis.ConnectionTracking{TCPEstablishedTimeout: ptr(int32(300))}
		}},
		{"ConnectionTracking UDPStreamTimeout", "17567831983996427", func(nc *apis.EC2NodeClass) {
			nc.Spec.ConnectionTracking = &apis.ConnectionTracking{UDPStreamTimeout: ptr(int32(120))}
		}},
		{"ConnectionTracking UDPTimeout", "5078825826133662844", func(nc *apis.EC2NodeClass) {
			nc.Spec.ConnectionTracking = &apis.ConnectionTracking{UDPTimeout: ptr(int32(45))}
		}},
		{"CPUOptions NestedVirtualization", "17001101224536964682", func(nc *apis.EC2NodeClass) {
			nc.Spec.CPUOptions = &apis.CPUOptions{NestedVirtualization: ptr("enabled")}
		}},
		{"instanceProfile instead of role", "3585768058063247698", func(nc *apis.EC2NodeClass) {
			nc.Spec.Role, nc.Spec.InstanceProfile = "", ptr("test-instance-profile")
		}},
		{"reordered tags", base, func(nc *apis.EC2NodeClass) {
			nc.Spec.Tags = map[string]string{"keyTag-2": "valueTag-2", "keyTag-1": "valueTag-1"}
		}},
		{"reordered blockDeviceMappings", base, func(nc *apis.EC2NodeClass) {
			m := nc.Spec.BlockDeviceMappings
			m[0], m[1] = m[1], m[0]
		}},
		{"AMI selector", base, func(nc *apis.EC2NodeClass) {
			nc.Spec.AMISelectorTerms = []apis.AMISelectorTerm{{Tags: map[string]string{"": "ami-test-value"}}}
		}},
		{"subnet selector", base, func(nc *apis.EC2NodeClass) {
			nc.Spec.SubnetSelectorTerms = []apis.SubnetSelectorTerm{{Tags: map[string]string{"subnet-test-key": "subnet-test-value"}}}
		}},
		{"security group selector", base, func(nc *apis.EC2NodeClass) {
			nc.Spec.SecurityGroupSelectorTerms = []apis.SecurityGroupSelectorTerm{{Tags: map[string]string{"security-group-test-key": "v"}}}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			nc := upstreamTestNodeClass()
			tc.change(nc)
			assert.Equal(t, tc.hash, EC2NodeClassHash(nc, &upstreamTestCABundle))
		})
	}
}

func TestNodePoolHashCoversExactlyTheTemplate(t *testing.T) {
	base := func() *apis.NodePool {
		np := decode[apis.NodePool](t, realNodePools[0].manifest)
		np.Spec.Template.ObjectMeta.Labels = map[string]string{"team": "a", "tier": "web"}
		np.Spec.Template.Spec.Taints = []corev1.Taint{
			{Key: "a", Effect: corev1.TaintEffectNoSchedule}, {Key: "b", Value: "x", Effect: corev1.TaintEffectNoExecute},
		}
		return np
	}
	want := NodePoolHash(base())
	same := map[string]func(*apis.NodePool){
		"name":          func(np *apis.NodePool) { np.Name = "other" },
		"requirements":  func(np *apis.NodePool) { np.Spec.Template.Spec.Requirements = nil },
		"consolidation": func(np *apis.NodePool) { np.Spec.Disruption.ConsolidateAfter = apis.NeverDuration() },
		"budgets":       func(np *apis.NodePool) { np.Spec.Disruption.Budgets = []apis.Budget{{Nodes: "0"}} },
		"limits":        func(np *apis.NodePool) { np.Spec.Limits = nil },
		"weight":        func(np *apis.NodePool) { np.Spec.Weight = ptr(int32(50)) },
		"replicas":      func(np *apis.NodePool) { np.Spec.Replicas = ptr(int64(3)) },
		"status":        func(np *apis.NodePool) { np.Status.Nodes = ptr(int64(9)) },
		"label order": func(np *apis.NodePool) {
			np.Spec.Template.ObjectMeta.Labels = map[string]string{"tier": "web", "team": "a"}
		},
		"taint order":     func(np *apis.NodePool) { s := np.Spec.Template.Spec.Taints; s[0], s[1] = s[1], s[0] },
		"pool annotation": func(np *apis.NodePool) { np.Annotations = map[string]string{apis.AnnotationNodePoolHash: "1"} },
	}
	for name, change := range same {
		np := base()
		change(np)
		assert.Equal(t, want, NodePoolHash(np), "changing %s must not change the hash", name)
	}
	different := map[string]func(*apis.NodePool){
		"labels":        func(np *apis.NodePool) { np.Spec.Template.ObjectMeta.Labels["team"] = "b" },
		"annotations":   func(np *apis.NodePool) { np.Spec.Template.ObjectMeta.Annotations = map[string]string{"a": "b"} },
		"taints":        func(np *apis.NodePool) { np.Spec.Template.Spec.Taints[0].Value = "y" },
		"startupTaints": func(np *apis.NodePool) { np.Spec.Template.Spec.StartupTaints = []corev1.Taint{{Key: "s"}} },
		"nodeClassRef":  func(np *apis.NodePool) { np.Spec.Template.Spec.NodeClassRef.Name = "other" },
		"expireAfter":   func(np *apis.NodePool) { np.Spec.Template.Spec.ExpireAfter = apis.NewNillableDuration(time.Hour) },
		"expire Never":  func(np *apis.NodePool) { np.Spec.Template.Spec.ExpireAfter = apis.NeverDuration() },
		"terminationGP": func(np *apis.NodePool) {
			np.Spec.Template.Spec.TerminationGracePeriod = &metav1.Duration{Duration: time.Minute}
		},
		"empty startups": func(np *apis.NodePool) { np.Spec.Template.Spec.StartupTaints = []corev1.Taint{} },
	}
	for name, change := range different {
		np := base()
		change(np)
		assert.NotEqual(t, want, NodePoolHash(np), "changing %s must change the hash", name)
	}
}

func TestEC2NodeClassHashCoversExactlyTheStaticFields(t *testing.T) {
	base := func() *apis.EC2NodeClass { return decode[apis.EC2NodeClass](t, realEC2NodeClasses[0].manifest) }
	want := EC2NodeClassHash(base(), nil)
	same := map[string]func(*apis.EC2NodeClass){
		"name":                 func(nc *apis.EC2NodeClass) { nc.Name = "other" },
		"amiFamily from alias": func(nc *apis.EC2NodeClass) { nc.Spec.AMIFamily = nil },
		"capacity reservation terms": func(nc *apis.EC2NodeClass) {
			nc.Spec.CapacityReservationSelectorTerms = []apis.CapacityReservationSelectorTerm{{ID: "cr-1"}}
		},
		"status":           func(nc *apis.EC2NodeClass) { nc.Status.AMIs = []apis.AMI{{ID: "ami-1"}} },
		"default metadata": func(nc *apis.EC2NodeClass) { nc.SetDefaults() },
	}
	for name, change := range same {
		nc := base()
		change(nc)
		assert.Equal(t, want, EC2NodeClassHash(nc, nil), "changing %s must not change the hash", name)
	}
	different := map[string]func(*apis.EC2NodeClass){
		"amiFamily Custom": func(nc *apis.EC2NodeClass) { nc.Spec.AMIFamily = ptr(apis.AMIFamilyCustom) },
		"role":             func(nc *apis.EC2NodeClass) { nc.Spec.Role = "other" },
		"tags":             func(nc *apis.EC2NodeClass) { nc.Spec.Tags["x"] = "y" },
		"kubelet": func(nc *apis.EC2NodeClass) {
			nc.Spec.Kubelet = &apis.KubeletConfiguration{MaxPods: ptr(intstr.FromInt32(20))}
		},
		"volume size": func(nc *apis.EC2NodeClass) {
			q := resource.MustParse("30Gi")
			nc.Spec.BlockDeviceMappings[0].EBS.VolumeSize = &q
		},
		"hop limit": func(nc *apis.EC2NodeClass) { nc.Spec.MetadataOptions.HTTPPutResponseHopLimit = ptr(int64(1)) },
		"userData":  func(nc *apis.EC2NodeClass) { nc.Spec.UserData = ptr("#!/bin/sh") },
	}
	for name, change := range different {
		nc := base()
		change(nc)
		assert.NotEqual(t, want, EC2NodeClassHash(nc, nil), "changing %s must change the hash", name)
	}
}

func TestHashesOfNilAndEmptyAgree(t *testing.T) {
	assert.Equal(t, NodePoolHash(&apis.NodePool{}), NodePoolHash(nil))
	assert.Equal(t, EC2NodeClassHash(&apis.EC2NodeClass{}, nil), EC2NodeClassHash(nil, nil))
}

// TestEC2NodeClassHashLaunchSettings: the placement group, network
// interfaces, connection tracking and CPU options are hashed upstream (no
// hash:"ignore" tag), so setting any changes the hash, each differently;
// left out, they leave it as it was.
func TestEC2NodeClassHashLaunchSettings(t *testing.T) {
	base := EC2NodeClassHash(upstreamTestNodeClass(), nil)
	seen := map[string]string{base: "base"}
	for name, change := range map[string]func(nc *apis.EC2NodeClass){
		"placementGroupSelector": func(nc *apis.EC2NodeClass) {
			nc.Spec.PlacementGroupSelector = &apis.PlacementGroupSelector{Name: ptr("hpc")}
		},
		"networkInterfaces": func(nc *apis.EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []*apis.NetworkInterface{{InterfaceType: apis.InterfaceTypeInterface}}
		},
		"networkInterfaces with EFA": func(nc *apis.EC2NodeClass) {
			nc.Spec.NetworkInterfaces = []*apis.NetworkInterface{{InterfaceType: apis.InterfaceTypeInterface},
				{DeviceIndex: 1, InterfaceType: apis.InterfaceTypeEFAOnly}}
		},
		"connectionTracking": func(nc *apis.EC2NodeClass) {
			nc.Spec.ConnectionTracking = &apis.ConnectionTracking{UDPTimeout: ptr(int32(30))}
		},
		"cpuOptions": func(nc *apis.EC2NodeClass) {
			nc.Spec.CPUOptions = &apis.CPUOptions{NestedVirtualization: ptr(apis.NestedVirtualizationEnabled)}
		},
	} {
		nc := upstreamTestNodeClass()
		change(nc)
		h := EC2NodeClassHash(nc, nil)
		if other, dup := seen[h]; dup {
			t.Errorf("%s hashes as %s does (%s)", name, other, h)
		}
		seen[h] = name
	}
}
