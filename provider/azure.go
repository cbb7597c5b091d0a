package provider

import (
	"cmp"
	"errors"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/drift"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
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
	// SubscriptionID is the cluster's subscription, which provider IDs
	// name; default DefaultSubscriptionID.
	SubscriptionID string
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

// AzureInitialImage is the node image, and AzureInitialKubernetesVersion
// the Kubernetes version, an AKSNodeClass whose status names none is taken
// to resolve (Replaced).
const (
	AzureInitialImage             = "aks-node-image-initial"
	AzureInitialKubernetesVersion = "initial"
)

// Launched stamps the claim and gives it, as status.imageID, the first of
// the AKSNodeClass's status.images whose requirements the instance type
// meets, as the provider's image resolver picks it (the images are in
// priority order; well-known keys the type leaves undefined are allowed);
// none when no image fits. The node runs the class's
// status.kubernetesVersion, which its kubelet reports with a "v".
func (a *Azure) Launched(claim *apis.NodeClaim, c NodeClass, it *instancetypes.InstanceType) (*apis.NodeClaim, string) {
	nc := a.class(c)
	out := drift.StampAKS(claim, nc)
	if nc == nil {
		return out, ""
	}
	out.Status.ImageID = nodeImage(nc.Status.Images, it)
	version := ""
	if v := nc.Status.KubernetesVersion; v != nil && *v != "" {
		version = "v" + *v
	}
	return out, version
}

// DefaultSubscriptionID is the subscription of a cluster whose own is not
// given: the all-zero GUID, which no real subscription has.
const DefaultSubscriptionID = "00000000-0000-0000-0000-000000000000"

// ProviderID is the VM's resource ID as the Azure provider writes it:
// azure:///subscriptions/SUB/resourceGroups/RG/providers/Microsoft.Compute/
// virtualMachines/aks-CLAIM, the VM named after the NodeClaim, the node
// resource group in lower case (Cluster.NodeResourceGroup, or AKS's
// default name MC_karpsim_karpsim_REGION when not given). The launcher's
// instance id and zone are not part of it.
func (a *Azure) ProviderID(claim, _, _ string) string {
	group := a.Cluster.NodeResourceGroup
	if group == "" {
		group = "MC_karpsim_karpsim_" + a.RegionOrDefault()
	}
	return "azure:///subscriptions/" + cmp.Or(a.SubscriptionID, DefaultSubscriptionID) + "/resourceGroups/" + strings.ToLower(group) +
		"/providers/Microsoft.Compute/virtualMachines/aks-" + claim
}

// azureWellKnown lets the Azure provider's well-known labels be missing.
var azureWellKnown = requirements.AllowUndefinedOnly(apis.AzureLabels.WellKnownLabels()...)

// nodeImage is the ID of the first image whose requirements it meets; ""
// when none does. A nil type meets every image.
func nodeImage(images []apis.AKSNodeImage, it *instancetypes.InstanceType) string {
	for _, img := range images {
		if it == nil {
			return img.ID
		}
		reqs, err := requirements.FromNodeSelectorRequirements(img.Requirements...)
		if err != nil {
			continue
		}
		if it.Requirements.CompatibleFast(reqs, azureWellKnown) {
			return img.ID
		}
	}
	return ""
}

// Replaced carries prev's AKSNodeClass hash annotations over while the
// hashed spec is the same (the provider's hash controller restamps a
// class only when its hash changes), and keeps prev's images, Kubernetes
// version and conditions where next's status has none: the status
// controller has reconciled the new spec, so the conditions carried are
// observed at next's generation.
func (a *Azure) Replaced(prev, next NodeClass) NodeClass {
	p, n := a.class(prev), a.class(next)
	if n == nil {
		return next
	}
	out := drift.RestampAKSNodeClass(p, n)
	st := &out.Status
	switch {
	case len(st.Images) > 0:
	case p != nil && len(p.Status.Images) > 0:
		st.Images = p.DeepCopy().Status.Images
	default:
		st.Images = []apis.AKSNodeImage{{ID: AzureInitialImage}}
	}
	switch {
	case st.KubernetesVersion != nil:
	case p != nil && p.Status.KubernetesVersion != nil:
		st.KubernetesVersion = new(*p.Status.KubernetesVersion)
	default:
		st.KubernetesVersion = new(AzureInitialKubernetesVersion)
	}
	if len(st.Conditions) == 0 && p != nil {
		st.Conditions = slices.Clone(p.Status.Conditions)
		for i := range st.Conditions {
			st.Conditions[i].ObservedGeneration = out.Generation
		}
	}
	return out
}

// ReleaseImage makes the AKSNodeClass resolve node image id alone, for
// every instance type.
func (a *Azure) ReleaseImage(c NodeClass, id string) (NodeClass, error) {
	nc := a.class(c)
	if nc == nil {
		return nil, errors.New("no AKSNodeClass given")
	}
	out := nc.DeepCopy()
	out.Status.Images = []apis.AKSNodeImage{{ID: id}}
	return out, nil
}

// SetKubernetesVersion sets the AKSNodeClass's status.kubernetesVersion,
// which the provider's Kubernetes-version drift compares each node's
// kubelet with.
func (a *Azure) SetKubernetesVersion(c NodeClass, version string) (NodeClass, error) {
	nc := a.class(c)
	if nc == nil {
		return nil, errors.New("no AKSNodeClass given")
	}
	out := nc.DeepCopy()
	out.Status.KubernetesVersion = new(strings.TrimPrefix(version, "v"))
	return out, nil
}
