package controller

import (
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/drift"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/scheduling"
)

// Launch is what a NodeClaim is launched from besides its NodePool: the
// pool's node class, the provider that owns it, and the instance type the
// node runs. A nil Provider leaves the class's part out (a class of a
// cloud karpsim does not model).
type Launch struct {
	Provider     provider.Provider
	NodeClass    provider.NodeClass
	InstanceType *instancetypes.InstanceType
}

// NewNodeClaim is the NodeClaim object of a claim launched now, as
// Karpenter writes it when it creates the claim: the NodePool template's
// annotations, taints, startup taints, node class, expiry and grace period;
// the claim's requirements, with the instance types narrowed to the claim's
// options (cheapest first, carrying the NodePool's minValues) and the
// NodePool's minValues on every other key; the pods' requests plus daemon
// overhead as its resource requests; an owner reference to the NodePool
// when the NodePool has a UID (the API server refuses one without); the
// NodePool's hash; and karpenter.sh/nodeclaim-min-values-relaxed, "true"
// when MinValuesPolicy BestEffort lowered minValues (the claim's
// requirements carry the lowered ones), else "false". labels are the node's
// launch labels. The provider then stamps it as its Create does
// (provider.Provider.Launched): the class's hash and the image the class
// resolves for the type; the kubelet version returned is the one the node
// will report, "" when the provider does not say.
//
// Karpenter also narrows the capacity-type requirement to the capacity
// types the options offer; the claim keeps the NodePool's and pods' here.
func NewNodeClaim(claim scheduling.NodeClaim, labels map[string]string, np *apis.NodePool, from Launch, now time.Time) (*apis.NodeClaim, string) {
	tmpl := &np.Spec.Template
	out := &apis.NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: apis.GroupV1, Kind: apis.KindNodeClaim},
		ObjectMeta: metav1.ObjectMeta{
			Name:              claim.Name,
			Labels:            maps.Clone(labels),
			Annotations:       maps.Clone(tmpl.ObjectMeta.Annotations),
			CreationTimestamp: metav1.NewTime(now),
		},
	}
	if np.UID != "" {
		out.OwnerReferences = []metav1.OwnerReference{{APIVersion: apis.GroupV1, Kind: apis.KindNodePool,
			Name: np.Name, UID: np.UID, BlockOwnerDeletion: new(true)}}
	}
	out.Spec.Taints = apis.CopyTaints(tmpl.Spec.Taints)
	out.Spec.StartupTaints = apis.CopyTaints(tmpl.Spec.StartupTaints)
	out.Spec.Requirements = claimRequirements(claim, tmpl.Spec.Requirements)
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[apis.AnnotationMinValuesRelaxed] = strconv.FormatBool(len(claim.MinValuesRelaxed) > 0)
	out.Spec.Resources.Requests = claimRequests(claim.Requests)
	out.Spec.ExpireAfter = tmpl.Spec.ExpireAfter
	if tmpl.Spec.TerminationGracePeriod != nil {
		grace := *tmpl.Spec.TerminationGracePeriod
		out.Spec.TerminationGracePeriod = &grace
	}
	if ref := tmpl.Spec.NodeClassRef; ref != nil {
		cp := *ref
		out.Spec.NodeClassRef = &cp
	}
	out = drift.Stamp(out, np, nil)
	if from.Provider == nil {
		return out, ""
	}
	return from.Provider.Launched(out, from.NodeClass, from.InstanceType)
}

// claimRequirements are a claim's requirements as its NodeClaim states
// them, in key order: the instance-type requirement narrowed to the
// options, and each key the NodePool sets minValues on carrying them. The
// result is never nil (the CRD requires the field).
func claimRequirements(claim scheduling.NodeClaim, pool []apis.NodeSelectorRequirementWithMinValues) []apis.NodeSelectorRequirementWithMinValues {
	minValues := map[string]int{}
	for _, r := range pool {
		if r.MinValues != nil && *r.MinValues > minValues[r.Key] {
			minValues[r.Key] = *r.MinValues
		}
	}
	out := make([]apis.NodeSelectorRequirementWithMinValues, 0, len(claim.Requirements)+1)
	for _, r := range claim.Requirements {
		if r.Key == apis.LabelInstanceType && len(claim.InstanceTypeOptions) > 0 {
			continue
		}
		out = append(out, apis.NodeSelectorRequirementWithMinValues{
			Key: r.Key, Operator: r.Operator, Values: slices.Clone(r.Values)})
	}
	if len(claim.InstanceTypeOptions) > 0 {
		out = append(out, apis.NodeSelectorRequirementWithMinValues{
			Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: slices.Clone(claim.InstanceTypeOptions)})
	}
	for key, n := range claim.MinValuesRelaxed {
		if _, ok := minValues[key]; ok {
			minValues[key] = n
		}
	}
	for i := range out {
		// A minValues relaxed to nothing is left out: the CRD wants 1 or
		// more.
		if n, ok := minValues[out[i].Key]; ok && n > 0 {
			out[i].MinValues = new(n)
		}
	}
	slices.SortStableFunc(out, func(a, b apis.NodeSelectorRequirementWithMinValues) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// claimRequests reads back the requests a claim prints. They were printed
// from quantities, so each parses; one that did not would be left out
// rather than guessed.
func claimRequests(requests map[string]string) corev1.ResourceList {
	if len(requests) == 0 {
		return nil
	}
	out := make(corev1.ResourceList, len(requests))
	for name, v := range requests {
		if q, err := resource.ParseQuantity(v); err == nil {
			out[corev1.ResourceName(name)] = q
		}
	}
	return out
}
