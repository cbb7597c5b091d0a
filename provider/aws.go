package provider

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/drift"
	"github.com/karpsim/karpsim/instancetypes"
)

// AWS is Karpenter's AWS provider: EC2NodeClasses, the EC2 model of
// package instancetypes, and the AWS drift checks.
type AWS struct {
	// CatalogFor builds the catalog of an EC2NodeClass (nil for the
	// default class); nil means the embedded EC2 model in us-east-1.
	CatalogFor func(nc *apis.EC2NodeClass, overlays ...*apis.NodeOverlay) (instancetypes.Catalog, error)
	// RebootForRepair is the AWS provider's gate of that name (v1.15, off
	// by default): the repair policies for reboot-clearable GPU faults
	// reboot the node in place instead of replacing it.
	RebootForRepair bool
}

func (*AWS) Cloud() string { return CloudAWS }
func (*AWS) Group() string { return apis.AWSGroup }
func (*AWS) Kind() string  { return apis.KindEC2NodeClass }

// class returns the EC2NodeClass, nil for nil or another provider's class.
func (*AWS) class(c NodeClass) *apis.EC2NodeClass {
	nc, _ := c.(*apis.EC2NodeClass)
	return nc
}

// Owns reports whether c is an EC2NodeClass.
func (a *AWS) Owns(c NodeClass) bool { return a.class(c) != nil }

// Conditions are the EC2NodeClass's status conditions.
func (a *AWS) Conditions(c NodeClass) []metav1.Condition {
	if nc := a.class(c); nc != nil {
		return nc.Status.Conditions
	}
	return nil
}

// Catalog models the EC2NodeClass's instance types.
func (a *AWS) Catalog(c NodeClass, overlays []*apis.NodeOverlay) (instancetypes.Catalog, error) {
	if a.CatalogFor != nil {
		return a.CatalogFor(a.class(c), overlays...)
	}
	return instancetypes.NewAWS(instancetypes.EmbeddedFacts(), instancetypes.AWSOptions{NodeClass: a.class(c),
		NodeOverlays: overlays, NodeOverlayGate: len(overlays) > 0})
}

// Drift runs drift.Check with the EC2NodeClass.
func (a *AWS) Drift(in drift.Input, c NodeClass) drift.Result {
	in.NodeClass, in.AKSNodeClass = a.class(c), nil
	return drift.Check(in)
}

// Stamp puts the EC2NodeClass's hash on the claim (drift.Stamp without a
// NodePool).
func (a *AWS) Stamp(claim *apis.NodeClaim, c NodeClass) *apis.NodeClaim {
	return drift.Stamp(claim, nil, a.class(c))
}
