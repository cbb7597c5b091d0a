package apis

import (
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
)

// ValidatePersistentVolume checks what karpsim reads of a PersistentVolume
// as the API server's ValidatePersistentVolumeSpec does: a node affinity,
// when set, holds required node selector terms, each valid as a pod's
// required node affinity term is.
func ValidatePersistentVolume(pv *corev1.PersistentVolume) FieldErrors {
	e := &errs{}
	if a := pv.Spec.NodeAffinity; a != nil {
		path := "spec.nodeAffinity"
		if a.Required == nil {
			e.add(child(path, "required"), "required: a volume's node affinity must give required node selector terms")
		} else {
			validateNodeSelectorTerms(e, child(child(path, "required"), "nodeSelectorTerms"), a.Required.NodeSelectorTerms)
		}
	}
	return e.list
}

// ValidateStorageClass checks what karpsim reads of a StorageClass as the
// API server's ValidateStorageClass does: a known volumeBindingMode, and
// allowedTopologies whose terms each hold at least one requirement, each
// with a label key used once in its term and at least one value, none
// repeated.
func ValidateStorageClass(sc *storagev1.StorageClass) FieldErrors {
	e := &errs{}
	if m := sc.VolumeBindingMode; m != nil && *m != storagev1.VolumeBindingImmediate && *m != storagev1.VolumeBindingWaitForFirstConsumer {
		e.add("volumeBindingMode", "%s is not supported (use Immediate or WaitForFirstConsumer)", shown(string(*m)))
	}
	for i, term := range sc.AllowedTopologies {
		p := index("allowedTopologies", i)
		if len(term.MatchLabelExpressions) == 0 {
			e.add(child(p, "matchLabelExpressions"), "required: a topology term holds at least one requirement")
		}
		seen := map[string]bool{}
		for j, req := range term.MatchLabelExpressions {
			rp := index(child(p, "matchLabelExpressions"), j)
			validateKey(e, child(rp, "key"), "label key", req.Key)
			if seen[req.Key] {
				e.add(child(rp, "key"), "duplicate: key %s appears twice in this term", shown(req.Key))
			}
			seen[req.Key] = true
			if len(req.Values) == 0 {
				e.add(child(rp, "values"), "required: at least one value")
			}
			values := map[string]bool{}
			for k, v := range req.Values {
				if values[v] {
					e.add(index(child(rp, "values"), k), "duplicate: value %s appears twice", shown(v))
				}
				values[v] = true
			}
		}
	}
	return e.list
}

// ValidateService checks what karpsim reads of a Service as the API
// server's ValidateService does: its selector's keys are label keys and its
// values label values.
func ValidateService(svc *corev1.Service) FieldErrors {
	e := &errs{}
	for _, k := range sortedKeys(svc.Spec.Selector) {
		p := key("spec.selector", shown(k))
		validateKey(e, p, "label key", k)
		validateValue(e, p, "label value", svc.Spec.Selector[k])
	}
	return e.list
}

// ValidateCSINode checks what karpsim reads of a CSINode as the API
// server's ValidateCSINode does: each driver named (a DNS-1123 subdomain of
// at most 63 characters), once, with a node ID, and an allocatable count,
// when given, of zero or more.
func ValidateCSINode(n *storagev1.CSINode) FieldErrors {
	e := &errs{}
	seen := map[string]bool{}
	for i, d := range n.Spec.Drivers {
		p := index("spec.drivers", i)
		switch problems := k8svalidation.IsDNS1123Subdomain(d.Name); {
		case d.Name == "":
			e.add(child(p, "name"), "required: a driver's name")
		case len(problems) > 0 || len(d.Name) > 63:
			e.add(child(p, "name"), "%s: a CSI driver's name is a DNS-1123 subdomain of at most 63 characters", shown(d.Name))
		case seen[d.Name]:
			e.add(child(p, "name"), "duplicate: driver %s appears twice", shown(d.Name))
		}
		seen[d.Name] = true
		if d.NodeID == "" {
			e.add(child(p, "nodeID"), "required: the node's ID with the driver")
		}
		if a := d.Allocatable; a != nil && a.Count != nil && *a.Count < 0 {
			e.add(child(child(p, "allocatable"), "count"), "%d: must be 0 or more", *a.Count)
		}
	}
	return e.list
}
