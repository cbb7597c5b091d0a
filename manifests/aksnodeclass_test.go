package manifests

import (
	"strings"
	"testing"

	"github.com/karpsim/karpsim/apis"
)

// generalPurpose is the Azure provider's examples/v1/general-purpose.yaml
// (v1.14.2) in substance: a NodePool of D-family on-demand VMs and its
// AKSNodeClass.
const generalPurpose = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general-purpose
spec:
  disruption:
    consolidateAfter: 0s
  template:
    spec:
      nodeClassRef:
        group: karpenter.azure.com
        kind: AKSNodeClass
        name: default
      requirements:
      - key: karpenter.azure.com/sku-family
        operator: In
        values: [D]
---
apiVersion: karpenter.azure.com/v1beta1
kind: AKSNodeClass
metadata:
  name: default
spec:
  imageFamily: Ubuntu
`

func TestAKSNodeClassLoads(t *testing.T) {
	set, err := Decode("general-purpose.yaml", []byte(generalPurpose))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.AKSNodeClasses) != 1 || len(set.NodePools) != 1 {
		t.Fatalf("got %d AKSNodeClasses and %d NodePools, want 1 and 1", len(set.AKSNodeClasses), len(set.NodePools))
	}
	nc := set.AKSNodeClasses[0]
	if nc.OSDiskSizeGBOrDefault() != 128 || nc.Spec.OSDiskSizeGB == nil || nc.ImageFamilyOrDefault() != apis.ImageFamilyUbuntu {
		t.Errorf("defaults not applied: %+v", nc.Spec)
	}
	for _, w := range set.Warnings {
		t.Errorf("unexpected warning: %v", w)
	}
}

func TestAKSNodeClassErrorsNameFileObjectAndField(t *testing.T) {
	for _, tc := range []struct{ edit, want string }{
		{"  imageFamily: Windows", `general-purpose.yaml: AKSNodeClass/default: spec.imageFamily: "Windows" is not allowed`},
		{"  osDiskSizeGB: 20", "AKSNodeClass/default: spec.osDiskSizeGB: 20 is out of range: 30 to 2048"},
		{"  maxPods: 251", "spec.maxPods: 251 is out of range: 10 to 250"},
		{"  vnetSubnetID: subnet-1", `spec.vnetSubnetID: "subnet-1" is not a subnet's resource ID`},
		{"  imageFamily: Ubuntu2204\n  fipsMode: FIPS", "spec.fipsMode: FIPS is not supported with image family Ubuntu2204"},
		{"  kubelet:\n    imageGCHighThresholdPercent: 50\n    imageGCLowThresholdPercent: 60", "spec.kubelet.imageGCHighThresholdPercent: 50 must be greater than"},
		{"  linuxOSConfig:\n    swapFileSize: 2Gi", "spec.kubelet.failSwapOn: must be set to false"},
		{"  tags:\n    a&b: x", "spec.tags[a&b]: the key may not contain"},
	} {
		text := strings.Replace(generalPurpose, "  imageFamily: Ubuntu", tc.edit, 1)
		_, err := Decode("general-purpose.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want an error containing %q", tc.edit, err, tc.want)
		}
	}
}

func TestAKSNodeClassMissing(t *testing.T) {
	text := strings.Replace(generalPurpose, "  name: default\nspec:", "  name: other\nspec:", 1)
	_, err := Decode("general-purpose.yaml", []byte(text))
	want := `NodePool/general-purpose: spec.template.spec.nodeClassRef.name: AKSNodeClass "default" not found (AKSNodeClasses given: other)`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want an error containing %q", err, want)
	}
}

func TestAKSNodeClassV1Alpha2(t *testing.T) {
	text := strings.Replace(generalPurpose, "karpenter.azure.com/v1beta1", "karpenter.azure.com/v1alpha2", 1)
	set, err := Decode("general-purpose.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := set.AKSNodeClasses[0].APIVersion; got != apis.AzureGroupV1Beta1 {
		t.Errorf("apiVersion %q, want %q", got, apis.AzureGroupV1Beta1)
	}
	if len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0].String(), "converted to v1beta1") {
		t.Errorf("warnings %v, want the conversion noted", set.Warnings)
	}
}
