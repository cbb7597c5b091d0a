package controller_test

import (
	"strings"
	"testing"
	"time"
)

// A NodeClaim launched from an AKSNodeClass carries the VM's resource ID
// as the Azure provider writes it, and its node the same provider ID.
func TestAzureNodeClaimProviderID(t *testing.T) {
	w := newAzureWorld(t, 3)
	w.run(2 * time.Minute)
	st := w.cluster.Snapshot()
	if len(st.NodeClaims) != 1 {
		t.Fatalf("%d NodeClaims: %s", len(st.NodeClaims), w.kinds())
	}
	claim := st.NodeClaims[0]
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
