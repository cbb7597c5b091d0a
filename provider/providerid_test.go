package provider

import (
	"testing"

	"github.com/karpsim/karpsim/azure"
)

func TestProviderID(t *testing.T) {
	if got, want := ProviderID(&AWS{}, "default-1", "us-west-2a", "i-0123"), "aws:///us-west-2a/i-0123"; got != want {
		t.Errorf("AWS: %s, want %s", got, want)
	}
	if got, want := ProviderID(nil, "default-1", "us-west-2a", "i-0123"), "aws:///us-west-2a/i-0123"; got != want {
		t.Errorf("no provider: %s, want %s", got, want)
	}
	for _, c := range []struct {
		a    *Azure
		want string
	}{
		{&Azure{}, "azure:///subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/mc_karpsim_karpsim_" + azure.DefaultRegion +
			"/providers/Microsoft.Compute/virtualMachines/aks-default-1"},
		{&Azure{Region: "westus3", SubscriptionID: "sub", Cluster: azure.Settings{NodeResourceGroup: "MC_RG_Cluster_westus3"}},
			"azure:///subscriptions/sub/resourceGroups/mc_rg_cluster_westus3/providers/Microsoft.Compute/virtualMachines/aks-default-1"},
	} {
		if got := ProviderID(c.a, "default-1", "westus3-1", "i-0123"); got != c.want {
			t.Errorf("Azure: %s, want %s", got, c.want)
		}
	}
}
