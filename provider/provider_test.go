package provider

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
)

func ptr[T any](v T) *T { return &v }

func TestForPicksTheProviderByGroup(t *testing.T) {
	var p Providers
	for _, tc := range []struct {
		ref  *apis.NodeClassReference
		want string
		ok   bool
	}{
		{nil, CloudAWS, true},
		{&apis.NodeClassReference{Name: "x"}, CloudAWS, true},
		{&apis.NodeClassReference{Group: apis.AWSGroup, Kind: apis.KindEC2NodeClass, Name: "x"}, CloudAWS, true},
		{&apis.NodeClassReference{Group: apis.AzureGroup, Kind: apis.KindAKSNodeClass, Name: "x"}, CloudAzure, true},
		{&apis.NodeClassReference{Group: "karpenter.gcp", Kind: "GCENodeClass", Name: "x"}, "", false},
	} {
		got, ok := p.For(tc.ref)
		if ok != tc.ok || (ok && got.Cloud() != tc.want) {
			t.Errorf("For(%+v) = %v, %v; want %s, %v", tc.ref, got, ok, tc.want, tc.ok)
		}
	}
	azureDefault := Providers{Default: CloudAzure}
	if got, _ := azureDefault.For(nil); got.Cloud() != CloudAzure {
		t.Errorf("a nil ref with default azure gives %s", got.Cloud())
	}
	if _, err := ParseCloud("gcp"); err == nil || !strings.Contains(err.Error(), "use aws or azure") {
		t.Errorf("ParseCloud(gcp) = %v", err)
	}
}

func TestOwns(t *testing.T) {
	ec2, aks := &apis.EC2NodeClass{}, &apis.AKSNodeClass{}
	aws, az := &AWS{}, &Azure{}
	if !aws.Owns(ec2) || aws.Owns(aks) || !az.Owns(aks) || az.Owns(ec2) || aws.Owns(nil) || az.Owns(nil) {
		t.Error("each provider owns its own kind of node class only")
	}
	aks.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse}}
	if c := az.Conditions(aks); len(c) != 1 || aws.Conditions(aks) != nil {
		t.Errorf("conditions: %v", c)
	}
}

func TestSettingsOfAnAKSNodeClass(t *testing.T) {
	cluster := azure.Settings{NetworkPlugin: azure.NetworkPluginAzure, NetworkPluginMode: azure.NetworkPluginModeNodeSubnet}
	if got := Settings(nil, cluster); got != cluster {
		t.Errorf("no class: %+v, want the cluster's settings", got)
	}
	nc := &apis.AKSNodeClass{Spec: apis.AKSNodeClassSpec{
		ImageFamily: ptr("AzureLinux"), OSDiskSizeGB: ptr(int32(64)), MaxPods: ptr(int32(50)), FIPSMode: ptr("FIPS"),
		Security: &apis.AKSSecurity{EncryptionAtHost: ptr(true)}, GPU: &apis.AKSGPU{Mode: ptr("None")},
		ArtifactStreaming: &apis.AKSArtifactStreaming{Enabled: ptr(true)}, LocalDNS: &apis.AKSLocalDNS{Mode: "Required"},
	}}
	want := cluster
	want.ImageFamily, want.OSDiskSizeGB, want.MaxPods, want.FIPSMode = "AzureLinux", 64, 50, "FIPS"
	want.EncryptionAtHost, want.GPUMode, want.ArtifactStreaming, want.LocalDNS = true, "None", true, true
	if got := Settings(nc, cluster); got != want {
		t.Errorf("Settings = %+v, want %+v", got, want)
	}
	nc.Status.LocalDNSState = ptr("Disabled")
	if Settings(nc, cluster).LocalDNS {
		t.Error("the status's resolved local DNS state wins over the spec's mode")
	}
	defaults := Settings(&apis.AKSNodeClass{}, azure.Settings{})
	if defaults.ImageFamily != apis.ImageFamilyUbuntu || defaults.OSDiskSizeGB != apis.DefaultOSDiskSizeGB {
		t.Errorf("an empty class: %+v, want Ubuntu and 128 GB", defaults)
	}
	c, err := (&Azure{}).Catalog(nc, nil)
	if err != nil || len(c) == 0 {
		t.Fatalf("catalog of the class: %d types, %v", len(c), err)
	}
	for _, it := range c {
		if pods := it.Capacity.List()["pods"]; pods.Value() != 50 {
			t.Fatalf("%s: %s pods, want the class's maxPods 50", it.Name, pods.String())
		}
	}
}
