// Package provider is the seam between Karpenter's core decisions and the
// cloud a NodePool launches into. A NodePool's spec.template.spec.
// nodeClassRef names a node class by group, kind and name; the group picks
// the Provider (karpenter.k8s.aws: AWS, karpenter.azure.com: Azure), and
// the Provider says what the core needs of the class: whether it is ready,
// the instance types it launches, and whether a NodeClaim launched from it
// has drifted from it. snapshot resolves every NodePool through For, and
// the CLI and the simulator pick the default cloud (and the Cluster
// Autoscaler's catalog) by name with ByCloud. Karpenter's loop in package
// controller asks the pool's Provider to stamp each NodeClaim it launches
// (Launched) and to check it for drift, and keeps the default cloud's
// cache of offerings found without capacity (NewUnavailableOfferings).
package provider

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/drift"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/repair"
)

// The clouds karpsim models, as --cloud spells them.
const (
	CloudAWS   = "aws"
	CloudAzure = "azure"
)

// Clouds lists the clouds, the default first.
var Clouds = []string{CloudAWS, CloudAzure}

// NodeClass is a node class object: an *apis.EC2NodeClass or an
// *apis.AKSNodeClass. A nil NodeClass stands for the provider's default
// settings.
type NodeClass interface {
	metav1.Object
}

// Provider is one cloud's part in a decision.
type Provider interface {
	// Cloud is the --cloud name: "aws" or "azure".
	Cloud() string
	// Group and Kind are what a nodeClassRef names this provider's node
	// classes with.
	Group() string
	Kind() string
	// Owns reports whether class is one of this provider's node classes.
	Owns(class NodeClass) bool
	// Conditions are the class's status conditions (its Ready condition
	// says whether Karpenter launches from it); nil for a nil class.
	Conditions(class NodeClass) []metav1.Condition
	// Catalog returns the instance types a node class launches, nil for
	// the provider's defaults. overlays are the cluster's NodeOverlays,
	// which some models read while building (AWS prices types its price
	// list lacks with them); the caller applies them to the result.
	Catalog(class NodeClass, overlays []*apis.NodeOverlay) (instancetypes.Catalog, error)
	// Drift runs Karpenter's checks and this provider's on in.NodeClaim
	// against class, which may be nil (the provider's checks are then
	// skipped, as Karpenter skips them for a class it cannot find).
	Drift(in drift.Input, class NodeClass) drift.Result
	// Stamp returns a copy of claim carrying the provider's node class
	// hash annotations, as the provider stamps a claim it launches.
	Stamp(claim *apis.NodeClaim, class NodeClass) *apis.NodeClaim
	// Launched returns a copy of claim, a NodeClaim Karpenter created from
	// class (nil for the provider's defaults) for a node of instance type
	// it, as the provider's Create hands it back: Stamp's annotations and,
	// as status.imageID, the image the class resolves for the type; and
	// the kubelet version the node will report (status.nodeInfo.
	// kubeletVersion), "" when the provider's drift does not read it.
	Launched(claim *apis.NodeClaim, class NodeClass, it *instancetypes.InstanceType) (*apis.NodeClaim, string)
	// ProviderID is the provider ID (a NodeClaim's status.providerID, its
	// node's spec.providerID) the provider writes for the instance id it
	// launched in zone for the NodeClaim named claim.
	ProviderID(claim, zone, id string) string
	// Replaced returns a copy of next, a class that replaces prev (nil
	// when next is new to the cluster), as the provider's controllers
	// leave it: prev's stamped hash carried over while the hashed spec is
	// the same, and what the provider resolved into prev's status (images,
	// Kubernetes version) kept where next's status says nothing; with
	// neither saying, the provider's initial image and version
	// (AWSInitialImage, AzureInitialImage), so that a later ReleaseImage or SetKubernetesVersion
	// drifts the nodes launched before it. Neither is modified.
	Replaced(prev, next NodeClass) NodeClass
	// ReleaseImage returns a copy of class resolving the image id alone,
	// as after a new image release: nodes launched with another image
	// drift.
	ReleaseImage(class NodeClass, id string) (NodeClass, error)
	// SetKubernetesVersion returns a copy of class whose status says new
	// nodes run Kubernetes version; an error when the provider's class
	// holds no version of its own.
	SetKubernetesVersion(class NodeClass, version string) (NodeClass, error)
	// NewUnavailableOfferings returns an empty cache of the offerings
	// launches found without capacity, as the provider keeps it.
	NewUnavailableOfferings() UnavailableOfferings
	// RepairPolicies are the cloud provider's node repair policies, which
	// Karpenter v1.15's Repair method (the NodeRepair gate) compiles with
	// repair.Compile at start: a set it refuses stops it.
	RepairPolicies() []repair.Policy
}

// Providers holds one Provider per cloud and picks them by nodeClassRef.
type Providers struct {
	// Default is the cloud of NodePools that name no node class, and of
	// karpsim's default NodePool: "aws" when empty.
	Default string
	AWS     *AWS
	Azure   *Azure
}

// ParseCloud checks a --cloud value; "" is the default, AWS.
func ParseCloud(s string) (string, error) {
	switch s {
	case "", CloudAWS:
		return CloudAWS, nil
	case CloudAzure:
		return CloudAzure, nil
	}
	return "", fmt.Errorf("cloud %q is not one karpsim models (use %s or %s)", s, CloudAWS, CloudAzure)
}

// ByCloud returns the provider of a cloud; nil for an unknown one.
func (p Providers) ByCloud(cloud string) Provider {
	switch cloud {
	case "", CloudAWS:
		return p.aws()
	case CloudAzure:
		return p.azure()
	}
	return nil
}

// DefaultProvider returns the default cloud's provider.
func (p Providers) DefaultProvider() Provider {
	if pr := p.ByCloud(p.Default); pr != nil {
		return pr
	}
	return p.aws()
}

// For returns the provider of the node classes ref names: by its group,
// the default cloud's for a nil ref or an empty group. ok is false for a
// group karpsim does not model.
func (p Providers) For(ref *apis.NodeClassReference) (Provider, bool) {
	if ref == nil || ref.Group == "" {
		return p.DefaultProvider(), true
	}
	switch ref.Group {
	case apis.AWSGroup:
		return p.aws(), true
	case apis.AzureGroup:
		return p.azure(), true
	}
	return nil, false
}

func (p Providers) aws() Provider {
	if p.AWS != nil {
		return p.AWS
	}
	return &AWS{}
}

func (p Providers) azure() Provider {
	if p.Azure != nil {
		return p.Azure
	}
	return &Azure{}
}

// ProviderID is the provider ID p writes (Provider.ProviderID), or the
// default cloud's form for a nil p (a node class of no modelled cloud).
func ProviderID(p Provider, claim, zone, id string) string {
	if p == nil {
		p = &AWS{}
	}
	return p.ProviderID(claim, zone, id)
}

// Owner returns the provider whose node class class is, nil for nil or a
// class of no modelled cloud.
func (p Providers) Owner(class NodeClass) Provider {
	for _, pr := range []Provider{p.aws(), p.azure()} {
		if pr.Owns(class) {
			return pr
		}
	}
	return nil
}
