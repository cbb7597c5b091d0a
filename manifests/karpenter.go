package manifests

import (
	"fmt"

	"github.com/karpsim/karpsim/apis"
)

// karpenterObject is a v1 Karpenter object after decoding or conversion.
type karpenterObject interface {
	SetDefaults()
	Validate() error
}

// decodeKarpenter decodes, converts, defaults and validates a Karpenter
// object, then adds it to the Set. Problems are reported once per field:
// a field that did not decode, or whose text breaks a CRD pattern, is not
// reported again by validation.
func (l *loader) decodeKarpenter(src Source, label, apiVersion, kind string, tree map[string]any) {
	raw := apis.ValidateRaw(apiVersion, kind, tree)
	var obj karpenterObject
	var problems apis.FieldErrors
	var unknown []string
	var changes []apis.Change
	switch kind {
	case apis.KindNodePool:
		obj, problems, unknown, changes = decodeNodePool(apiVersion, tree)
		if apiVersion == apis.GroupV1 {
			l.warnMissingConsolidateAfter(src, label, tree)
		}
	case apis.KindNodeClaim:
		obj, problems, unknown, changes = decodeNodeClaim(apiVersion, tree)
		if nc, ok := obj.(*apis.NodeClaim); ok && apiVersion == apis.GroupV1B1 {
			l.v1beta1Claims = append(l.v1beta1Claims, nc)
		}
	case apis.KindEC2NodeClass:
		obj, problems, unknown, changes = decodeEC2NodeClass(apiVersion, tree)
	case apis.KindAKSNodeClass:
		obj, problems, unknown, changes = decodeAKSNodeClass(apiVersion, tree)
	case apis.KindNodeOverlay:
		obj, problems, unknown = decodeNodeOverlay(tree)
	case apis.KindKubeSchedulerConfiguration:
		obj, problems, unknown = decodeSchedulerConfig(tree)
	}
	l.warnUnknown(src, label, unknown)
	l.noteUnknown(src, label, karpenterType(kind, apiVersion), unknown)
	to := "v1"
	if kind == apis.KindAKSNodeClass {
		to = "v1beta1"
	}
	for _, c := range changes {
		l.warn(src, label, "converted to "+to+": "+c.String())
	}
	// A field's pattern error explains more than its decoding error, which
	// explains more than what validation says of the value left after it.
	l.report(src, label, ErrInvalid, raw, nil)
	skip := pathsOf(raw)
	l.report(src, label, ErrDecode, problems, skip)
	skip = append(skip, pathsOf(problems)...)
	if obj == nil {
		return
	}
	obj.SetDefaults()
	if err := obj.Validate(); err != nil {
		fieldErrs, _ := err.(apis.FieldErrors)
		l.report(src, label, ErrInvalid, fieldErrs, skip)
	}
	l.add(src, obj)
}

func (l *loader) add(src Source, obj karpenterObject) {
	switch o := obj.(type) {
	case *apis.NodePool:
		l.set.NodePools = append(l.set.NodePools, o)
	case *apis.NodeClaim:
		l.set.NodeClaims = append(l.set.NodeClaims, o)
	case *apis.EC2NodeClass:
		l.set.EC2NodeClasses = append(l.set.EC2NodeClasses, o)
	case *apis.AKSNodeClass:
		l.set.AKSNodeClasses = append(l.set.AKSNodeClasses, o)
	case *apis.NodeOverlay:
		l.set.NodeOverlays = append(l.set.NodeOverlays, o)
	case *apis.KubeSchedulerConfiguration:
		if l.set.SchedulerConfig != nil {
			l.fail(src, apis.KindKubeSchedulerConfiguration, "", ErrInvalid, fmt.Sprintf("%s: a second KubeSchedulerConfiguration: give kube-scheduler's configuration once", src.where()))
			return
		}
		l.set.SchedulerConfig = o
	}
	l.set.setSource(obj, src)
}

func pathsOf(errs apis.FieldErrors) []string {
	paths := make([]string, len(errs))
	for i, e := range errs {
		paths[i] = e.Path
	}
	return paths
}

// The decode functions return a nil interface, not a typed nil pointer,
// when the object could not be decoded.

func decodeNodePool(apiVersion string, tree map[string]any) (karpenterObject, apis.FieldErrors, []string, []apis.Change) {
	if apiVersion == apis.GroupV1 {
		np, problems, unknown := decodeTyped[apis.NodePool](tree)
		if np == nil {
			return nil, problems, unknown, nil
		}
		return np, problems, unknown, nil
	}
	old, problems, unknown := decodeTyped[apis.NodePoolV1Beta1](tree)
	if old == nil {
		return nil, problems, unknown, nil
	}
	np, changes := old.ConvertToV1()
	return np, problems, unknown, changes
}

func decodeNodeClaim(apiVersion string, tree map[string]any) (karpenterObject, apis.FieldErrors, []string, []apis.Change) {
	if apiVersion == apis.GroupV1 {
		nc, problems, unknown := decodeTyped[apis.NodeClaim](tree)
		if nc == nil {
			return nil, problems, unknown, nil
		}
		return nc, problems, unknown, nil
	}
	old, problems, unknown := decodeTyped[apis.NodeClaimV1Beta1](tree)
	if old == nil {
		return nil, problems, unknown, nil
	}
	nc, changes := old.ConvertToV1()
	return nc, problems, unknown, changes
}

func decodeEC2NodeClass(apiVersion string, tree map[string]any) (karpenterObject, apis.FieldErrors, []string, []apis.Change) {
	if apiVersion == apis.AWSGroupV1 {
		nc, problems, unknown := decodeTyped[apis.EC2NodeClass](tree)
		if nc == nil {
			return nil, problems, unknown, nil
		}
		return nc, problems, unknown, nil
	}
	old, problems, unknown := decodeTyped[apis.EC2NodeClassV1Beta1](tree)
	if old == nil {
		return nil, problems, unknown, nil
	}
	nc, changes := old.ConvertToV1()
	return nc, problems, unknown, changes
}

// decodeAKSNodeClass decodes an AKSNodeClass. v1alpha2 has v1beta1's
// schema, so an object of either version decodes alike; a v1alpha2 one is
// noted as converted.
func decodeAKSNodeClass(apiVersion string, tree map[string]any) (karpenterObject, apis.FieldErrors, []string, []apis.Change) {
	nc, problems, unknown := decodeTyped[apis.AKSNodeClass](tree)
	if nc == nil {
		return nil, problems, unknown, nil
	}
	var changes []apis.Change
	if apiVersion == apis.AzureGroupV1Alpha2 {
		nc.APIVersion = apis.AzureGroupV1Beta1
		changes = []apis.Change{{Path: "apiVersion", Message: apis.AzureGroupV1Alpha2 + " → " + apis.AzureGroupV1Beta1}}
	}
	return nc, problems, unknown, changes
}

func decodeNodeOverlay(tree map[string]any) (karpenterObject, apis.FieldErrors, []string) {
	o, problems, unknown := decodeTyped[apis.NodeOverlay](tree)
	if o == nil {
		return nil, problems, unknown
	}
	return o, problems, unknown
}

func decodeSchedulerConfig(tree map[string]any) (karpenterObject, apis.FieldErrors, []string) {
	c, problems, unknown := decodeTyped[apis.KubeSchedulerConfiguration](tree)
	if c == nil {
		return nil, problems, unknown
	}
	return c, problems, unknown
}

// warnMissingConsolidateAfter flags a v1 NodePool whose disruption block
// leaves out consolidateAfter. The CRD defaults it only when the whole block
// is left out, so the API server refuses such a NodePool; karpsim accepts
// it with 0s, the value the API server would have defaulted without the
// block.
func (l *loader) warnMissingConsolidateAfter(src Source, label string, tree map[string]any) {
	spec, _ := tree["spec"].(map[string]any)
	disruption, ok := spec["disruption"].(map[string]any)
	if !ok {
		return
	}
	if _, set := disruption["consolidateAfter"]; set {
		return
	}
	l.warn(src, label, fmt.Sprintf("spec.disruption.consolidateAfter: not set, so karpsim uses %s; note that the Kubernetes API server refuses this NodePool (\"spec.disruption.consolidateAfter: Required value\"): it defaults consolidateAfter only when the whole disruption block is left out",
		apis.FormatDuration(apis.DefaultConsolidateAfter)))
}
