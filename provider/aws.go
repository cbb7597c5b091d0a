package provider

import (
	"errors"
	"fmt"
	"slices"

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

// AWSInitialImage is the AMI an EC2NodeClass whose status resolves none is
// taken to resolve (Replaced).
const AWSInitialImage = "ami-initial"

// ProviderID is aws:///ZONE/ID, as the AWS provider writes an EC2
// instance's.
func (*AWS) ProviderID(_, zone, id string) string { return "aws:///" + zone + "/" + id }

// Launched stamps the claim and gives it the first AMI the EC2NodeClass
// resolves as its image. The AWS provider drifts on the AMI, not on the
// kubelet's version: the version is "".
func (a *AWS) Launched(claim *apis.NodeClaim, c NodeClass, _ *instancetypes.InstanceType) (*apis.NodeClaim, string) {
	nc := a.class(c)
	out := drift.Stamp(claim, nil, nc)
	if nc != nil && len(nc.Status.AMIs) > 0 {
		out.Status.ImageID = nc.Status.AMIs[0].ID
	}
	return out, ""
}

// Replaced is drift.RestampNodeClass, with prev's AMIs kept when next's
// status lists none (AWSInitialImage for a new class).
func (a *AWS) Replaced(prev, next NodeClass) NodeClass {
	p, n := a.class(prev), a.class(next)
	if n == nil {
		return next
	}
	out := drift.RestampNodeClass(p, n)
	switch {
	case len(out.Status.AMIs) > 0:
	case p != nil && len(p.Status.AMIs) > 0:
		out.Status.AMIs = slices.Clone(p.Status.AMIs)
	default:
		out.Status.AMIs = []apis.AMI{{ID: AWSInitialImage, Name: AWSInitialImage}}
	}
	return out
}

// ReleaseImage makes the EC2NodeClass resolve AMI id alone.
func (a *AWS) ReleaseImage(c NodeClass, id string) (NodeClass, error) {
	nc := a.class(c)
	if nc == nil {
		return nil, errors.New("no EC2NodeClass given")
	}
	out := nc.DeepCopy()
	out.Status.AMIs = []apis.AMI{{ID: id, Name: id}}
	return out, nil
}

// SetKubernetesVersion is refused: an EC2NodeClass holds no Kubernetes
// version, and the AWS provider drifts on the AMI a version resolves.
func (a *AWS) SetKubernetesVersion(c NodeClass, _ string) (NodeClass, error) {
	name := ""
	if nc := a.class(c); nc != nil {
		name = " " + nc.Name
	}
	return nil, fmt.Errorf("EC2NodeClass%s holds no Kubernetes version: the AWS provider drifts on the AMI a version resolves (release it as an image)", name)
}
