package instancetypes

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
)

// A type of another cloud states the well-known labels of its own
// provider it lacks as absent and leaves AWS's undefined, as each provider
// registers only its own.
func TestTypeStatesItsCloudsWellKnownLabels(t *testing.T) {
	spec := Spec{Name: "Standard_D2s_v3", Labels: map[string]string{"karpenter.azure.com/sku-family": "D"},
		Capacity:  resources.New(2000, 8*gib, 30),
		Offerings: []Offering{{Zone: "eastus-1", CapacityType: apis.CapacityTypeOnDemand, Price: 0.1, Available: true}}}
	aws, err := NewInstanceType(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Name, spec.LabelRules = "Standard_D2s_v4", apis.AzureLabels
	azure, err := NewInstanceType(spec)
	if err != nil {
		t.Fatal(err)
	}
	if aws.LabelRules() != apis.AWSLabels || azure.LabelRules() != apis.AzureLabels {
		t.Fatal("LabelRules is not the spec's")
	}
	stated := func(it *InstanceType, key string) bool { _, ok := it.Requirements.Lookup(key); return ok }
	for _, key := range []string{apis.LabelInstanceFamily, apis.LabelInstanceCPU, apis.LabelCapacityReservationID, apis.LabelCapacityReservationType} {
		if !stated(aws, key) {
			t.Errorf("an AWS type does not state %s", key)
		}
		if stated(azure, key) {
			t.Errorf("an Azure type states the AWS label %s", key)
		}
	}
	for _, key := range []string{"karpenter.azure.com/sku-gpu-name", "kubernetes.azure.com/mode"} {
		if r, ok := azure.Requirements.Lookup(key); !ok || r.Operator() != "DoesNotExist" {
			t.Errorf("an Azure type lacking %s does not state it absent", key)
		}
		if stated(aws, key) {
			t.Errorf("an AWS type states the Azure label %s", key)
		}
	}
	if got := (Catalog{azure}).WellKnownLabels(); !slices.Equal(got, apis.AzureLabels.WellKnownLabels()) {
		t.Errorf("an Azure catalog's well-known labels: %v", got)
	}
	if got := (Catalog{}).WellKnownLabels(); !slices.Equal(got, apis.AWSLabels.WellKnownLabels()) {
		t.Errorf("an empty catalog's well-known labels: %v", got)
	}
	mixed := Catalog{aws, azure}.WellKnownLabels()
	if !slices.IsSorted(mixed) || !slices.Contains(mixed, apis.LabelInstanceFamily) || !slices.Contains(mixed, "karpenter.azure.com/sku-family") {
		t.Errorf("a mixed catalog's well-known labels: %v", mixed)
	}

	// The rules survive the JSON format, which names them by domain only
	// for another cloud than the default.
	var buf bytes.Buffer
	if err := WriteJSON(&buf, Catalog{aws, azure}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), `"labelDomain": "karpenter.azure.com"`); n != 1 || strings.Contains(buf.String(), `"labelDomain": "karpenter.k8s.aws"`) {
		t.Errorf("labelDomain written %d times for the Azure type, or for the AWS one:\n%s", n, buf.String())
	}
	read, err := ReadJSON(bytes.NewReader(buf.Bytes()), "mixed.json")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(read, Catalog{aws, azure}) {
		t.Errorf("a round trip changed the types: %v", read)
	}
	bad := strings.Replace(buf.String(), `"labelDomain": "karpenter.azure.com"`, `"labelDomain": "example.com"`, 1)
	if _, err := ReadJSON(strings.NewReader(bad), "bad.json"); !errors.Is(err, ErrInvalidCatalog) ||
		!strings.Contains(err.Error(), `labelDomain: "example.com" is the label domain of no cloud provider`) {
		t.Errorf("an unknown labelDomain: %v", err)
	}
}
