package apis

import (
	"strings"
	"testing"
)

func TestAKSNodeClassDeepCopy(t *testing.T) {
	checkDeepCopy(t, (*AKSNodeClass).DeepCopy)
}

func validLocalDNS() *AKSLocalDNS {
	zone := func(z, dest string) AKSLocalDNSZoneOverride {
		n := int32(100)
		return AKSLocalDNSZoneOverride{Zone: z, QueryLogging: "Error", Protocol: "PreferUDP", ForwardDestination: dest,
			ForwardPolicy: "Sequential", MaxConcurrent: &n, CacheDuration: NewNillableDuration(3600e9),
			ServeStaleDuration: NewNillableDuration(3600e9), ServeStale: "Immediate"}
	}
	return &AKSLocalDNS{Mode: "Required",
		VnetDNSOverrides: []AKSLocalDNSZoneOverride{zone(".", "VnetDNS"), zone("cluster.local", "ClusterCoreDNS")},
		KubeDNSOverrides: []AKSLocalDNSZoneOverride{zone(".", "ClusterCoreDNS"), zone("cluster.local", "ClusterCoreDNS")}}
}

// The CRD's rules on local DNS, sysctls and the kubelet, each named by its
// field.
func TestAKSNodeClassValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*AKSNodeClass)
		want string // "" for valid
	}{
		{"defaults", func(*AKSNodeClass) {}, ""},
		{"local DNS", func(nc *AKSNodeClass) { nc.Spec.LocalDNS = validLocalDNS() }, ""},
		{"root zone to CoreDNS", func(nc *AKSNodeClass) {
			nc.Spec.LocalDNS = validLocalDNS()
			nc.Spec.LocalDNS.VnetDNSOverrides[0].ForwardDestination = "ClusterCoreDNS"
		}, "spec.localDNS.vnetDNSOverrides[0]: the root zone '.' cannot be forwarded to ClusterCoreDNS"},
		{"cluster.local to VnetDNS", func(nc *AKSNodeClass) {
			nc.Spec.LocalDNS = validLocalDNS()
			nc.Spec.LocalDNS.KubeDNSOverrides[1].ForwardDestination = "VnetDNS"
		}, "spec.localDNS.kubeDNSOverrides[1].forwardDestination: 'cluster.local' cannot be forwarded to VnetDNS"},
		{"required zones", func(nc *AKSNodeClass) {
			nc.Spec.LocalDNS = validLocalDNS()
			nc.Spec.LocalDNS.KubeDNSOverrides = nc.Spec.LocalDNS.KubeDNSOverrides[:1]
		}, "spec.localDNS.kubeDNSOverrides: must hold the zones '.' and 'cluster.local'"},
		{"sysctl range", func(nc *AKSNodeClass) {
			v := int32(101)
			nc.Spec.LinuxOSConfig = &AKSLinuxOSConfig{Sysctls: &AKSSysctlConfig{VMSwappiness: &v}}
		}, "spec.linuxOSConfig.sysctls.vmSwappiness: 101 is out of range: 0 to 100"},
		{"port range", func(nc *AKSNodeClass) {
			r := "60000 50000"
			nc.Spec.LinuxOSConfig = &AKSLinuxOSConfig{Sysctls: &AKSSysctlConfig{NetIPv4IPLocalPortRange: &r}}
		}, "spec.linuxOSConfig.sysctls.netIPv4IPLocalPortRange: the first port must be at most the last"},
		{"container log size", func(nc *AKSNodeClass) {
			size := "50MB"
			nc.Spec.Kubelet = &AKSKubeletConfiguration{ContainerLogMaxSize: &size}
		}, `spec.kubelet.containerLogMaxSize: "50MB" is not a size`},
		{"subnet ID", func(nc *AKSNodeClass) {
			id := "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/virtualNetworks/v/subnets/s"
			nc.Spec.VNETSubnetID = &id
		}, ""},
	} {
		nc := &AKSNodeClass{}
		nc.Name = "default"
		tc.edit(nc)
		nc.SetDefaults()
		err := nc.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}
