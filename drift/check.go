package drift

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
)

// Reason names why a NodeClaim drifted, with the strings Karpenter writes as
// the reason of the claim's Drifted condition.
type Reason string

// The drift reasons, in the order Karpenter checks them. The first three
// come from Karpenter itself, the rest from the AWS provider.
const (
	// NodePoolDrifted: the NodePool template's hash differs from the one
	// stamped on the claim.
	NodePoolDrifted Reason = "NodePoolDrifted"
	// RequirementsDrifted: the NodePool's requirements no longer admit the
	// claim's labels.
	RequirementsDrifted Reason = "RequirementsDrifted"
	// InstanceTypeNotFound: the claim's instance type, or an offering of it
	// in the claim's zone and capacity type, is gone from the pool's
	// instance types.
	InstanceTypeNotFound Reason = "InstanceTypeNotFound"
	// InstanceProfileDrift: the EC2NodeClass resolved another instance
	// profile than the one the claim launched with.
	InstanceProfileDrift Reason = "InstanceProfileDrift"
	// NodeClassDrift: the EC2NodeClass's hash differs from the one stamped
	// on the claim.
	NodeClassDrift Reason = "NodeClassDrift"
	// AMIDrift: the claim's image is not the AMI the EC2NodeClass now
	// resolves for its instance type.
	AMIDrift Reason = "AMIDrift"
	// SecurityGroupDrift: the instance's security groups are not exactly
	// the EC2NodeClass's resolved ones.
	SecurityGroupDrift Reason = "SecurityGroupDrift"
	// SubnetDrift: the instance's subnet is not among the EC2NodeClass's.
	SubnetDrift Reason = "SubnetDrift"
	// CapacityReservationDrift: the instance's capacity reservation is not
	// among the EC2NodeClass's.
	CapacityReservationDrift Reason = "CapacityReservationDrift"
)

// InstanceTypeCheckAge is how old a NodeClaim must be (strictly) before
// Karpenter checks it for InstanceTypeNotFound; the check is deliberately
// slow because the instance-type list is the cloud provider's, not the
// user's.
const InstanceTypeCheckAge = time.Hour

// Input is one NodeClaim and everything its drift depends on.
type Input struct {
	// NodeClaim is the claim to check. It needs the hash annotations (see
	// Stamp) for the two hash checks, its labels (instance type, zone,
	// capacity type) for the requirement and instance-type checks, and
	// status.imageID for the AMI check.
	NodeClaim *apis.NodeClaim
	// NodeLabels, when not nil, replaces the claim's labels in the
	// requirement and instance-type checks. Karpenter reads the NodeClaim's
	// labels, so leave it nil to match Karpenter; a node's labels differ
	// when something other than Karpenter labelled it.
	NodeLabels map[string]string
	// NodePool is the claim's NodePool. Without it nothing is checked, as
	// Karpenter skips claims whose NodePool it cannot find.
	NodePool *apis.NodePool
	// NodeClass is the pool's EC2NodeClass, with its status (AMIs, subnets,
	// security groups, capacity reservations, instance profile). Without it
	// the AWS checks are skipped, as Karpenter skips them when the class
	// cannot be resolved.
	NodeClass *apis.EC2NodeClass
	// AKSNodeClass is the pool's AKSNodeClass when the pool is Azure's
	// (set it instead of NodeClass): the Azure provider's checks then run
	// in place of the AWS ones.
	AKSNodeClass *apis.AKSNodeClass
	// KubeletVersion is the claim's node's status.nodeInfo.kubeletVersion,
	// for the Azure provider's Kubernetes-version check; empty skips it, as
	// the provider skips a claim whose node it cannot find.
	KubeletVersion string
	// NodeKubeletIdentityClientID is the claim's node's
	// kubernetes.azure.com/kubelet-identity-client-id label, and
	// KubeletIdentityClientID the cluster's (the Azure provider's
	// --kubelet-identity-client-id): a node whose label is set and differs
	// has drifted (KubeletIdentityDrift). An empty label skips the check,
	// as the provider skips a node without it or one it cannot find.
	NodeKubeletIdentityClientID, KubeletIdentityClientID string
	// InstanceTypes is the pool's catalog (see instancetypes.NewCatalog),
	// every offering included whether available or not. nil skips the
	// instance-type and AMI checks; an empty, non-nil catalog means the pool
	// has no instance types left, and drifts every claim old enough.
	InstanceTypes instancetypes.Catalog
	// Instance is what EC2 reports about the claim's instance. Without it
	// the security-group, subnet and capacity-reservation checks are
	// skipped: Karpenter reads those from EC2, not from the claim.
	Instance *Instance
	// Now is the time of the check; only the instance-type check uses it.
	Now time.Time
}

// Instance is the part of an EC2 instance's description the AWS provider's
// drift checks read.
type Instance struct {
	SubnetID         string
	SecurityGroupIDs []string
	// CapacityReservationID is empty when the instance does not run in a
	// capacity reservation.
	CapacityReservationID string
}

// Result is the verdict on one NodeClaim.
type Result struct {
	// Drifted says Karpenter would set the claim's Drifted condition; the
	// disruption controller may then replace the node, within budgets.
	Drifted bool
	// Reason is the first reason found, in Karpenter's order; empty when
	// the claim has not drifted.
	Reason Reason
	// Detail names what differed, or, when the claim has not drifted, what
	// was not checked or not settled and why. It is for people, not for
	// parsing.
	Detail string
}

// String prints the result on one line: "drifted (Reason): detail" or
// "not drifted: detail".
func (r Result) String() string {
	switch {
	case r.Drifted:
		return fmt.Sprintf("drifted (%s): %s", r.Reason, r.Detail)
	case r.Detail == "":
		return "not drifted"
	default:
		return "not drifted: " + r.Detail
	}
}

// Check reports whether, and why, Karpenter would mark in.NodeClaim Drifted.
// The checks run in Karpenter's order and the first that finds drift wins.
// Karpenter's own come first (InstanceTypeNotFound only for claims older
// than InstanceTypeCheckAge):
//
//   - NodePoolDrifted, RequirementsDrifted, InstanceTypeNotFound;
//
// then the AWS provider's:
//
//   - InstanceProfileDrift, NodeClassDrift, AMIDrift, SecurityGroupDrift,
//     SubnetDrift, CapacityReservationDrift;
//
// or, when in.AKSNodeClass is set, the Azure provider's (for claims on
// virtual machines):
//
//   - NodeClassDrift, K8sVersionDrift, KubeletIdentityDrift, ImageDrift.
//
// Where Karpenter would stop with an error (an EC2NodeClass whose status
// lists no AMIs, say) the claim is reported not drifted and Detail says
// why. A claim that has not launched never drifts. Check never modifies its
// input.
func Check(in Input) Result {
	e, stop := newEvaluation(in)
	if stop != "" {
		return Result{Detail: stop}
	}
	// Karpenter's own checks come first, cheapest first; the cloud
	// provider is asked only when they find nothing.
	if r, done := e.run((*evaluation).nodePoolHash, (*evaluation).requirements, (*evaluation).instanceType); done {
		return r
	}
	if e.provider && in.AKSNodeClass != nil {
		if r, done := e.run((*evaluation).aksNodeClassHash, (*evaluation).k8sVersion, (*evaluation).kubeletIdentity, (*evaluation).image); done {
			return r
		}
	} else if e.provider {
		if r, done := e.run((*evaluation).instanceProfile, (*evaluation).nodeClassHash, (*evaluation).ami, (*evaluation).instance); done {
			return r
		}
	}
	return Result{Detail: strings.Join(e.notes, "; ")}
}

// evaluation is the state one Check shares between its steps.
type evaluation struct {
	in     Input
	claim  *apis.NodeClaim
	labels map[string]string
	// provider is false when the AWS checks do not apply.
	provider bool
	notes    []string
}

// verdict is one step's outcome: drift (reason set), a stop where Karpenter
// would fail with an error (halt), or neither.
type verdict struct {
	reason Reason
	detail string
	halt   bool
}

func drifted(reason Reason, format string, args ...any) verdict {
	return verdict{reason: reason, detail: fmt.Sprintf(format, args...)}
}

func halted(format string, args ...any) verdict {
	return verdict{halt: true, detail: "Karpenter cannot decide and keeps the claim's drift status: " + fmt.Sprintf(format, args...)}
}

func (e *evaluation) note(format string, args ...any) {
	e.notes = append(e.notes, fmt.Sprintf(format, args...))
}

// newEvaluation settles what Karpenter settles before any check: that there
// is a claim, a pool, and a launch; and whether the AWS checks apply.
func newEvaluation(in Input) (*evaluation, string) {
	claim := in.NodeClaim
	switch {
	case claim == nil:
		return nil, "no NodeClaim given"
	case in.NodePool == nil:
		return nil, fmt.Sprintf("NodeClaim %q: no NodePool given, and Karpenter skips claims without one", claim.Name)
	}
	if ok, why := launched(claim); !ok {
		return nil, fmt.Sprintf("NodeClaim %q has not launched: %s", claim.Name, why)
	}
	e := &evaluation{in: in, claim: claim, labels: claim.Labels}
	if in.NodeLabels != nil {
		e.labels = in.NodeLabels
	}
	cloud, kind := "AWS", apis.KindEC2NodeClass
	if ref := in.NodePool.Spec.Template.Spec.NodeClassRef; in.AKSNodeClass != nil || (ref != nil && ref.Group == apis.AzureGroup) {
		cloud, kind = "Azure", apis.KindAKSNodeClass
	}
	switch {
	case in.NodeClass == nil && in.AKSNodeClass == nil:
		e.note("no %s given: %s checks skipped", kind, cloud)
	case in.NodePool.Spec.Template.Spec.NodeClassRef == nil:
		e.note("NodePool %q has no spec.template.spec.nodeClassRef: %s checks skipped", in.NodePool.Name, cloud)
	case claim.Labels[apis.LabelNodePool] == "":
		e.note("NodeClaim %q has no %s label: the %s provider cannot find its NodePool and skips its checks", claim.Name, apis.LabelNodePool, cloud)
	default:
		e.provider = true
	}
	return e, ""
}

// launched follows Karpenter's rule, a Launched condition that is True, and
// also counts a claim with no Launched condition at all but a provider ID,
// as claims karpsim builds in memory carry no conditions. why says what is
// missing.
func launched(claim *apis.NodeClaim) (ok bool, why string) {
	if c := findCondition(claim, conditionLaunched); c != nil {
		return c.Status == metav1.ConditionTrue, fmt.Sprintf("its Launched condition is %s", c.Status)
	}
	return claim.Status.ProviderID != "", "it has neither a Launched condition nor a status.providerID"
}
