package provider

import (
	"cmp"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/drift"
	"github.com/karpsim/karpsim/instancetypes"
)

// Azure is Karpenter's Azure provider (AKS node auto-provisioning):
// AKSNodeClasses, the VM-size model of package azure, and the Azure drift
// checks.
type Azure struct {
	// Region is the region of the offerings; default azure.DefaultRegion.
	Region string
	// Cluster are the cluster-wide settings of the provider (network
	// plugin and mode, node resource group, VM memory overhead); each
	// AKSNodeClass adds its own (Settings).
	Cluster azure.Settings
	// CatalogFor, when set, gives an AKSNodeClass's catalog (nil for the
	// default class) instead of the embedded model.
	CatalogFor func(nc *apis.AKSNodeClass) (instancetypes.Catalog, error)
}

func (*Azure) Cloud() string { return CloudAzure }
func (*Azure) Group() string { return apis.AzureGroup }
func (*Azure) Kind() string  { return apis.KindAKSNodeClass }

func (*Azure) class(c NodeClass) *apis.AKSNodeClass {
	nc, _ := c.(*apis.AKSNodeClass)
	return nc
}

// Owns reports whether c is an AKSNodeClass.
func (a *Azure) Owns(c NodeClass) bool { return a.class(c) != nil }

// Conditions are the AKSNodeClass's status conditions.
func (a *Azure) Conditions(c NodeClass) []metav1.Condition {
	if nc := a.class(c); nc != nil {
		return nc.Status.Conditions
	}
	return nil
}

// RegionOrDefault is the region the catalogs are built for.
func (a *Azure) RegionOrDefault() string { return cmp.Or(a.Region, azure.DefaultRegion) }

// Catalog models the AKSNodeClass's VM sizes in the region. NodeOverlays
// are left to the caller, which applies them to the result.
func (a *Azure) Catalog(c NodeClass, _ []*apis.NodeOverlay) (instancetypes.Catalog, error) {
	nc := a.class(c)
	if a.CatalogFor != nil {
		return a.CatalogFor(nc)
	}
	return azure.Catalog(a.RegionOrDefault(), Settings(nc, a.Cluster))
}

// Drift runs drift.Check with the AKSNodeClass.
func (a *Azure) Drift(in drift.Input, c NodeClass) drift.Result {
	in.NodeClass, in.AKSNodeClass = nil, a.class(c)
	return drift.Check(in)
}

// Stamp puts the AKSNodeClass's hash on the claim.
func (a *Azure) Stamp(claim *apis.NodeClaim, c NodeClass) *apis.NodeClaim {
	return drift.StampAKS(claim, a.class(c))
}

// Settings are the azure.Settings of an AKSNodeClass (nil for the
// defaults) on a cluster with the given cluster-wide settings: image
// family, OS disk size, max pods, encryption at host, GPU mode, artifact
// streaming, FIPS mode, and local DNS (enabled when the status says so,
// else when the spec requires it).
func Settings(nc *apis.AKSNodeClass, cluster azure.Settings) azure.Settings {
	s := cluster
	if nc == nil {
		return s
	}
	spec := nc.Spec
	s.ImageFamily = nc.ImageFamilyOrDefault()
	s.OSDiskSizeGB = nc.OSDiskSizeGBOrDefault()
	if spec.MaxPods != nil {
		s.MaxPods = *spec.MaxPods
	}
	if v := spec.Security; v != nil && v.EncryptionAtHost != nil {
		s.EncryptionAtHost = *v.EncryptionAtHost
	}
	if v := spec.GPU; v != nil && v.Mode != nil {
		s.GPUMode = *v.Mode
	}
	if v := spec.ArtifactStreaming; v != nil && v.Enabled != nil {
		s.ArtifactStreaming = *v.Enabled
	}
	if spec.FIPSMode != nil {
		s.FIPSMode = *spec.FIPSMode
	}
	switch {
	case nc.Status.LocalDNSState != nil:
		s.LocalDNS = *nc.Status.LocalDNSState == "Enabled"
	case spec.LocalDNS != nil:
		s.LocalDNS = spec.LocalDNS.Mode == "Required"
	}
	return s
}
