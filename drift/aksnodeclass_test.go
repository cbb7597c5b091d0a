package drift

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

func ptrTo[T any](v T) *T { return &v }

// hashedClass is the AKSNodeClass of the Azure provider's hash test
// (pkg/apis/v1beta1/aksnodeclass_hash_test.go, v1.14.2), whose hashes that
// test pins: matching them shows karpsim's hash is the provider's.
func hashedClass() *apis.AKSNodeClass {
	return &apis.AKSNodeClass{Spec: apis.AKSNodeClassSpec{
		VNETSubnetID: ptrTo("subnet-id"),
		OSDiskSizeGB: ptrTo(int32(30)),
		ImageFamily:  ptrTo("Ubuntu2204"),
		Tags:         map[string]string{"keyTag-1": "valueTag-1", "keyTag-2": "valueTag-2"},
		Kubelet: &apis.AKSKubeletConfiguration{
			CPUManagerPolicy:            ptrTo("static"),
			CPUCFSQuota:                 ptrTo(true),
			CPUCFSQuotaPeriod:           metav1.Duration{Duration: 100 * time.Millisecond},
			ImageGCHighThresholdPercent: ptrTo(int32(85)),
			ImageGCLowThresholdPercent:  ptrTo(int32(80)),
			TopologyManagerPolicy:       ptrTo("none"),
			AllowedUnsafeSysctls:        []string{"net.core.somaxconn"},
			ContainerLogMaxSize:         ptrTo("10Mi"),
			ContainerLogMaxFiles:        ptrTo(int32(10)),
		},
		MaxPods: ptrTo(int32(100)),
	}}
}

func TestAKSNodeClassHashIsTheProviders(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*apis.AKSNodeClassSpec)
		want string
	}{
		{"base", func(*apis.AKSNodeClassSpec) {}, "4108492229247269128"},
		{"vnetSubnetID", func(s *apis.AKSNodeClassSpec) { s.VNETSubnetID = ptrTo("subnet-id-2") }, "13971920214979852468"},
		{"osDiskSizeGB", func(s *apis.AKSNodeClassSpec) { s.OSDiskSizeGB = ptrTo(int32(40)) }, "7816855636861645563"},
		{"imageFamily", func(s *apis.AKSNodeClassSpec) { s.ImageFamily = ptrTo("AzureLinux") }, "15616969746300892810"},
		{"kubelet", func(s *apis.AKSNodeClassSpec) { s.Kubelet.CPUManagerPolicy = ptrTo("none") }, "33638514539106194"},
		{"maxPods", func(s *apis.AKSNodeClassSpec) { s.MaxPods = ptrTo(int32(200)) }, "15508761509963240710"},
		{"localDNS.mode", func(s *apis.AKSNodeClassSpec) { s.LocalDNS = &apis.AKSLocalDNS{Mode: "Required"} }, "17805442572569734619"},
		{"localDNS.vnetDNSOverrides", func(s *apis.AKSNodeClassSpec) {
			s.LocalDNS = &apis.AKSLocalDNS{VnetDNSOverrides: []apis.AKSLocalDNSZoneOverride{{Zone: "example.com", QueryLogging: "Log"}}}
		}, "14608914734386108436"},
		{"localDNS.kubeDNSOverrides", func(s *apis.AKSNodeClassSpec) {
			s.LocalDNS = &apis.AKSLocalDNS{KubeDNSOverrides: []apis.AKSLocalDNSZoneOverride{{Zone: "example.com", Protocol: "ForceTCP"}}}
		}, "4529827108104295737"},
		{"localDNS cacheDuration", func(s *apis.AKSNodeClassSpec) {
			s.LocalDNS = &apis.AKSLocalDNS{VnetDNSOverrides: []apis.AKSLocalDNSZoneOverride{{Zone: "example.com", CacheDuration: apis.NewNillableDuration(time.Hour)}}}
		}, "11008649797056761238"},
		{"localDNS serveStaleDuration", func(s *apis.AKSNodeClassSpec) {
			s.LocalDNS = &apis.AKSLocalDNS{VnetDNSOverrides: []apis.AKSLocalDNSZoneOverride{{Zone: "example.com", ServeStaleDuration: apis.NewNillableDuration(30 * time.Minute)}}}
		}, "4895720480850206885"},
		{"artifactStreaming", func(s *apis.AKSNodeClassSpec) { s.ArtifactStreaming = &apis.AKSArtifactStreaming{Enabled: ptrTo(true)} }, "15355387647114481444"},
		{"tags do not count", func(s *apis.AKSNodeClassSpec) { s.Tags = map[string]string{"keyTag-3": "valueTag-3"} }, "4108492229247269128"},
	} {
		nc := hashedClass()
		tc.edit(&nc.Spec)
		if got := AKSNodeClassHash(nc); got != tc.want {
			t.Errorf("%s: hash %s, want the provider's %s", tc.name, got, tc.want)
		}
	}
}

// azureClaim is a launched claim of pool "general-purpose", stamped with
// the pool's and class's hashes.
func azureClaim(np *apis.NodePool, nc *apis.AKSNodeClass) *apis.NodeClaim {
	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "general-purpose-abcde",
		Labels: map[string]string{apis.LabelNodePool: np.Name}}}
	claim.Status.ProviderID = "azure:///subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/aks-general-purpose-abcde"
	claim.Status.ImageID = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2204gen2containerd/versions/202511.01.0"
	return StampAKS(Stamp(claim, np, nil), nc)
}

func TestAzureDrift(t *testing.T) {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "general-purpose"}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AzureGroup, Kind: apis.KindAKSNodeClass, Name: "default"}
	nc := &apis.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	nc.SetDefaults()
	old := "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/galleries/AKSUbuntu/images/2204gen2containerd/versions/202511.01.0"
	nc.Status.Images = []apis.AKSNodeImage{{ID: old}}
	nc.Status.KubernetesVersion = ptrTo("1.33.2")
	claim := azureClaim(np, nc)
	check := func(nc *apis.AKSNodeClass, kubelet string) Result {
		return Check(Input{NodeClaim: claim, NodePool: np, AKSNodeClass: nc, KubeletVersion: kubelet})
	}
	if r := check(nc, "v1.33.2"); r.Drifted {
		t.Fatalf("unchanged class: %v", r)
	}
	newer := nc.DeepCopy()
	newer.Status.Images[0].ID = strings.Replace(old, "202511.01.0", "202512.04.0", 1)
	if r := check(newer, "v1.33.2"); !r.Drifted || r.Reason != ImageDrift {
		t.Errorf("new image: %v, want %s", r, ImageDrift)
	}
	notReady := newer.DeepCopy()
	notReady.Status.Conditions = []metav1.Condition{{Type: apis.AKSConditionImagesReady, Status: metav1.ConditionFalse}}
	if r := check(notReady, "v1.33.2"); r.Drifted || !strings.Contains(r.Detail, "ImagesReady is False") {
		t.Errorf("images not ready: %v, want no drift and why", r)
	}
	if r := check(nc, "v1.32.6"); !r.Drifted || r.Reason != K8sVersionDrift {
		t.Errorf("older kubelet: %v, want %s", r, K8sVersionDrift)
	}
	bigger := nc.DeepCopy()
	bigger.Spec.OSDiskSizeGB = ptrTo(int32(256))
	if r := check(bigger, "v1.33.2"); !r.Drifted || r.Reason != NodeClassDrift {
		t.Errorf("bigger disk: %v, want %s", r, NodeClassDrift)
	}
	tagged := nc.DeepCopy()
	tagged.Spec.Tags = map[string]string{"team": "a"}
	if r := check(tagged, "v1.33.2"); r.Drifted {
		t.Errorf("tags only: %v, want no drift", r)
	}
	if r := Check(Input{NodeClaim: claim, NodePool: np}); r.Drifted || !strings.Contains(r.Detail, "no AKSNodeClass given: Azure checks skipped") {
		t.Errorf("no class: %v", r)
	}
}

func TestAzureKubeletIdentityDrift(t *testing.T) {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: "general-purpose"}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AzureGroup, Kind: apis.KindAKSNodeClass, Name: "default"}
	nc := &apis.AKSNodeClass{ObjectMeta: metav1.ObjectMeta{Name: "default"}}
	nc.SetDefaults()
	nc.Status.Images = []apis.AKSNodeImage{{ID: "image"}}
	claim := azureClaim(np, nc)
	claim.Status.ImageID = "image"
	check := func(node, cluster string) Result {
		return Check(Input{NodeClaim: claim, NodePool: np, AKSNodeClass: nc, NodeKubeletIdentityClientID: node, KubeletIdentityClientID: cluster})
	}
	if r := check("a", "a"); r.Drifted {
		t.Errorf("same identity: %v", r)
	}
	if r := check("", "a"); r.Drifted {
		t.Errorf("no label on the node: %v", r)
	}
	if r := check("a", "b"); !r.Drifted || r.Reason != KubeletIdentityDrift {
		t.Errorf("another identity: %v, want %s", r, KubeletIdentityDrift)
	}
	newer := nc.DeepCopy()
	newer.Status.Images[0].ID = "newer"
	if r := Check(Input{NodeClaim: claim, NodePool: np, AKSNodeClass: newer, NodeKubeletIdentityClientID: "a", KubeletIdentityClientID: "b"}); r.Reason != KubeletIdentityDrift {
		t.Errorf("identity and image both differ: %v, want %s first", r, KubeletIdentityDrift)
	}
}
