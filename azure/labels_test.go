package azure

import (
	"slices"
	"testing"

	"github.com/karpsim/karpsim/apis"
)

// The labels the provider registers as well known are the keys its
// NodePool CRD allows in its domains, which apis validates Azure NodePools
// with.
func TestWellKnownLabelsAllowedInNodePools(t *testing.T) {
	allowed := apis.AzureNodePoolLabelKeys()
	for _, k := range WellKnownLabels() {
		if !slices.Contains(allowed, k) {
			t.Errorf("%s is well known but an Azure NodePool may not use it", k)
		}
	}
}
