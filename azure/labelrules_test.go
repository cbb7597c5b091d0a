package azure

import (
	"slices"
	"testing"

	"github.com/karpsim/karpsim/apis"
)

// The label rules the sizes carry are this package's well-known labels
// and Karpenter's: the ones the provider registers.
func TestSizesCarryTheAzureLabelRules(t *testing.T) {
	karpenter := []string{apis.LabelNodePool, apis.LabelTopologyZone, apis.LabelTopologyRegion, apis.LabelInstanceType,
		apis.LabelArch, apis.LabelOS, apis.LabelCapacityType, apis.LabelWindowsBuild}
	want := slices.Sorted(slices.Values(slices.Concat(WellKnownLabels(), karpenter)))
	if got := apis.AzureLabels.WellKnownLabels(); !slices.Equal(got, want) {
		t.Errorf("apis.AzureLabels: %v\nwant %v", got, want)
	}
	if apis.AzureLabels.Domain() != Group {
		t.Errorf("domain %s", apis.AzureLabels.Domain())
	}
	c := Default()
	for _, it := range c {
		if it.LabelRules() != apis.AzureLabels {
			t.Fatalf("%s carries the rules of %s", it.Name, it.LabelRules().Domain())
		}
	}
	if got := c.WellKnownLabels(); !slices.Equal(got, want) {
		t.Errorf("the catalog's well-known labels: %v", got)
	}
}
