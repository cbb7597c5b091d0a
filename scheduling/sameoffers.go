package scheduling

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// SameOffers reports whether p and q offer a solve the same, though their
// NodePools' requirements may differ: the same NodePools in the same
// order, of the same names, weights, taints and limits, none refusing to
// launch, each with the same options (the same instance types at the same
// prices, with the same DaemonSet overhead and host ports, in the same
// order), and, so that the requirements are read only where pods read
// them, no requirement asking for minValues, no offering with a label of
// its own (instancetypes.OfferingLabel) and no type of several variants.
//
// A solve reads a NodePool's requirements beyond its options only on the
// keys its pods, DaemonSets, nodes' pods, volumes and default spread
// read (ReadsLabel): a claim starts with the requirements and keeps them
// on every other key, narrowing its options by what its pods add, and the
// DaemonSets a NodePool runs are those its options carry. So the solves of
// an input by p and q, with the same options, give the same plan but for
// the claims' requirements (and a refusal's words) on the keys where the
// NodePools' requirements differ, when the input reads none of those keys
// and their requirements state the same on every key an offering reads
// (zone, capacity type, reservation), as narrowing a pool's instance types
// by their labels leaves them.
func (p *Prepared) SameOffers(q *Prepared) bool {
	if len(p.templates) != len(q.templates) || len(p.daemons) != len(q.daemons) {
		return false
	}
	for i, a := range p.templates {
		if !a.offersAs(q.templates[i]) {
			return false
		}
	}
	return true
}

// offersAs is SameOffers for one template each.
func (t *template) offersAs(u *template) bool {
	if t.refused != "" || u.refused != "" || t.variants || u.variants || t.minValues || u.minValues {
		return false
	}
	if t.name != u.name || t.weight != u.weight || !slices.EqualFunc(t.taints, u.taints, func(a, b corev1.Taint) bool { return a.MatchTaint(&b) && a.Value == b.Value }) {
		return false
	}
	if len(t.limitList) != len(u.limitList) || len(t.options) != len(u.options) {
		return false
	}
	for name, v := range t.limitList {
		if w, ok := u.limitList[name]; !ok || v.Cmp(w) != 0 {
			return false
		}
	}
	if len(t.offeringLabelKeys()) > 0 || len(u.offeringLabelKeys()) > 0 {
		return false
	}
	for i, a := range t.options {
		b := u.options[i]
		if a.it != b.it || a.price != b.price || a.exotic != b.exotic || !a.daemons.Equal(*b.daemons) || !slices.Equal(a.daemonPorts, b.daemonPorts) {
			return false
		}
	}
	for _, key := range offeringRequirementKeys {
		a, aok := t.requirements.Lookup(key)
		b, bok := u.requirements.Lookup(key)
		if aok != bok || aok && string(a.AppendKey(nil)) != string(b.AppendKey(nil)) {
			return false
		}
	}
	return true
}

// ReadsLabel reports whether a solve of in may read the node label key
// from anything but the NodePools: whether a pod, a DaemonSet pod or a
// node's pod selects it (node selector, node affinity, required or
// preferred) or spreads or co-locates by it (the topology key of a spread
// constraint or a pod (anti-)affinity term, required or preferred),
// whether a PersistentVolume's node affinity or a StorageClass's allowed
// topologies name it, or a default spread constraint spreads by it.
// Dynamic resource allocation, which may select nodes by any label,
// reads every key.
func ReadsLabel(in Input, key string) bool {
	if in.Options.DRA || in.Options.Devices != nil {
		return true
	}
	if d := in.Options.DefaultSpread; d != nil && slices.ContainsFunc(d.Constraints, func(c corev1.TopologySpreadConstraint) bool { return sameLabel(c.TopologyKey, key) }) {
		return true
	}
	reads := func(p *corev1.Pod) bool { return p != nil && podReadsLabel(p, key) }
	if slices.ContainsFunc(in.Pods, reads) || slices.ContainsFunc(in.DaemonSets, reads) {
		return true
	}
	for _, n := range in.Nodes {
		if n != nil && slices.ContainsFunc(n.Pods, reads) {
			return true
		}
	}
	for _, pv := range in.PersistentVolumes {
		if pv != nil && pv.Spec.NodeAffinity != nil && pv.Spec.NodeAffinity.Required != nil && termsRead(pv.Spec.NodeAffinity.Required.NodeSelectorTerms, key) {
			return true
		}
	}
	for _, sc := range in.StorageClasses {
		if sc == nil {
			continue
		}
		for _, t := range sc.AllowedTopologies {
			if slices.ContainsFunc(t.MatchLabelExpressions, func(e corev1.TopologySelectorLabelRequirement) bool { return sameLabel(e.Key, key) }) {
				return true
			}
		}
	}
	return false
}

// podReadsLabel is ReadsLabel for one pod.
func podReadsLabel(p *corev1.Pod, key string) bool {
	for k := range p.Spec.NodeSelector {
		if sameLabel(k, key) {
			return true
		}
	}
	if slices.ContainsFunc(p.Spec.TopologySpreadConstraints, func(c corev1.TopologySpreadConstraint) bool { return sameLabel(c.TopologyKey, key) }) {
		return true
	}
	a := p.Spec.Affinity
	if a == nil {
		return false
	}
	if na := a.NodeAffinity; na != nil {
		if na.RequiredDuringSchedulingIgnoredDuringExecution != nil && termsRead(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, key) {
			return true
		}
		for _, t := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			if termsRead([]corev1.NodeSelectorTerm{t.Preference}, key) {
				return true
			}
		}
	}
	byKey := func(t corev1.PodAffinityTerm) bool { return sameLabel(t.TopologyKey, key) }
	byWeighted := func(t corev1.WeightedPodAffinityTerm) bool { return sameLabel(t.PodAffinityTerm.TopologyKey, key) }
	if pa := a.PodAffinity; pa != nil && (slices.ContainsFunc(pa.RequiredDuringSchedulingIgnoredDuringExecution, byKey) || slices.ContainsFunc(pa.PreferredDuringSchedulingIgnoredDuringExecution, byWeighted)) {
		return true
	}
	if pa := a.PodAntiAffinity; pa != nil && (slices.ContainsFunc(pa.RequiredDuringSchedulingIgnoredDuringExecution, byKey) || slices.ContainsFunc(pa.PreferredDuringSchedulingIgnoredDuringExecution, byWeighted)) {
		return true
	}
	return false
}

// termsRead reports whether a node selector term's expressions or fields
// name the key.
func termsRead(terms []corev1.NodeSelectorTerm, key string) bool {
	named := func(r corev1.NodeSelectorRequirement) bool { return sameLabel(r.Key, key) }
	for _, t := range terms {
		if slices.ContainsFunc(t.MatchExpressions, named) || slices.ContainsFunc(t.MatchFields, named) {
			return true
		}
	}
	return false
}

// sameLabel reports whether two label keys name the same label, once
// normalized as requirements normalize them.
func sameLabel(a, b string) bool {
	return a == b || normalizedKey(a) == normalizedKey(b)
}
