package snapshot

import (
	"strings"
	"testing"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/provider"
)

const azurePool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: general-purpose
spec:
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
  imageFamily: AzureLinux
  maxPods: 40
`

func TestAzureNodePoolTakesAzureCatalog(t *testing.T) {
	set, err := manifests.Decode("azure.yaml", []byte(azurePool))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := FromSet(set, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.NodePools) != 1 || len(snap.NodePools[0].InstanceTypes) == 0 {
		t.Fatalf("want the Azure NodePool with VM sizes, got %+v", snap.NodePools)
	}
	for _, it := range snap.NodePools[0].InstanceTypes {
		if !strings.HasPrefix(it.Name, "Standard_") {
			t.Fatalf("instance type %s is not an Azure VM size", it.Name)
		}
		if pods := it.Capacity.List()["pods"]; pods.Value() != 40 {
			t.Fatalf("%s: %v pods, want the class's maxPods 40", it.Name, pods.String())
		}
	}
	if _, ok := snap.ClassCatalogs["default"]; !ok {
		t.Errorf("ClassCatalogs lacks the AKSNodeClass's catalog: %v", snap.ClassCatalogs)
	}
	if _, err := FromSet(set, Options{Region: "nowhere"}); err == nil || !strings.Contains(err.Error(), `AKSNodeClass/default: cannot model its instance types: azure: unknown region "nowhere"`) {
		t.Errorf("unknown region: got %v", err)
	}
}

func TestAzureDefaultNodePool(t *testing.T) {
	snap, err := FromSet(&manifests.Set{}, Options{Cloud: provider.CloudAzure})
	if err != nil {
		t.Fatal(err)
	}
	if !snap.DefaultNodePool || len(snap.NodePools) != 1 {
		t.Fatalf("want the default NodePool, got %+v", snap.NodePools)
	}
	ref := snap.NodePools[0].NodePool.Spec.Template.Spec.NodeClassRef
	if ref.Group != apis.AzureGroup || ref.Kind != apis.KindAKSNodeClass {
		t.Errorf("default NodePool names %+v, want an AKSNodeClass", ref)
	}
	want := `no NodePool given: using karpsim's default NodePool "default" and AKSNodeClass "default"`
	if len(snap.Warnings) != 1 || !strings.Contains(snap.Warnings[0], want) {
		t.Errorf("warnings %q, want %q", snap.Warnings, want)
	}
	// AWS stays the default cloud.
	aws, err := FromSet(&manifests.Set{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.NodePools[0].NodePool.Spec.Template.Spec.NodeClassRef.Group; got != apis.AWSGroup {
		t.Errorf("default cloud's NodePool names group %s, want %s", got, apis.AWSGroup)
	}
}
