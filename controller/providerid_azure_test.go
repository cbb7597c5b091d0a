package controller_test

import (
	"strings"
	"testing"
)

// A NodeClaim launched from an AKSNodeClass carries the VM's resource ID
// as the Azure provider writes it, and its node the same provider ID.
func TestAzureNodeClaimProviderID(t *testing.T) {
	w, claim := launchedOnAzure(t)
	st := w.cluster.Snapshot()
	id := claim.Status.ProviderID
	if !strings.HasPrefix(id, "azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/mc_karpsim_karpsim_") ||
		!strings.HasSuffix(id, "/providers/Microsoft.Compute/virtualMachines/aks-"+claim.Name) {
		t.Errorf("provider ID %q", id)
	}
	found := false
	for _, n := range st.Nodes {
		found = found || n.Spec.ProviderID == id
	}
	if !found {
		t.Errorf("no node has the NodeClaim's provider ID %q", id)
	}
}
