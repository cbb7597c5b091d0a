package scheduling

import (
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// podTopology is what topology asks of a pod: the groups its constraints
// form, the inverse anti-affinity groups that select it, and the domains
// its required terms allow on each group's key, in the same order. Pods of
// one workload have the same, and share one podTopology (setShape):
// it is read, never changed.
type podTopology struct {
	groups []*topologyGroup
	// inverse are the inverse anti-affinity groups that select the pod.
	inverse []*inverseGroup
	// groupDomains and inverseDomains are the domains the pod's required
	// terms allow on each group's key, in the same order, read once.
	groupDomains, inverseDomains []requirements.Requirement
}

// noTopology is the podTopology of a pod topology does not concern.
var noTopology podTopology

// topology returns the pod's podTopology, noTopology for none.
func (p *podInfo) topology() *podTopology {
	if p.topo == nil {
		return &noTopology
	}
	return p.topo
}

// shapeScratch is the scratch space of setShape and spreadKey.
type shapeScratch struct {
	groups  []*topologyGroup
	inverse []*inverseGroup
	domains []requirements.Requirement
	key     []byte
	domain  []byte
	labels  []string
}

// setShape gives the pod the podTopology of the groups, the inverse groups
// that select it and the domains its strict requirements allow on their
// keys; nil when there are none. groups may be scratch space: they are
// copied when the shape is new.
func (t *topology) setShape(p *podInfo, groups []*topologyGroup) {
	sc := &t.scratch
	inverse := sc.inverse[:0]
	for _, g := range t.inverse {
		if g.selects(p.pod) {
			inverse = append(inverse, g)
		}
	}
	sc.inverse = inverse
	if len(groups) == 0 && len(inverse) == 0 {
		p.topo = nil
		return
	}
	domains := sc.domains[:0]
	for _, g := range groups {
		domains = append(domains, p.strict.Get(g.key))
	}
	for _, g := range inverse {
		domains = append(domains, p.strict.Get(g.key))
	}
	sc.domains = domains
	// The key: the groups' and inverse groups' numbers, then each domain's
	// exact encoding, prefixed with its length.
	key := strconv.AppendInt(sc.key[:0], int64(len(groups)), 10)
	for _, g := range groups {
		key = strconv.AppendInt(append(key, ','), int64(g.id), 10)
	}
	key = strconv.AppendInt(append(key, '|'), int64(len(inverse)), 10)
	for _, g := range inverse {
		key = strconv.AppendInt(append(key, ','), int64(g.id), 10)
	}
	for _, d := range domains {
		sc.domain = d.AppendKey(sc.domain[:0])
		key = strconv.AppendInt(append(key, '|'), int64(len(sc.domain)), 10)
		key = append(append(key, ':'), sc.domain...)
	}
	sc.key = key
	if shape, ok := t.shapes[string(key)]; ok {
		p.topo = shape
		return
	}
	shape := &podTopology{
		groups:         slices.Clone(groups),
		inverse:        slices.Clone(inverse),
		groupDomains:   slices.Clone(domains[:len(groups)]),
		inverseDomains: slices.Clone(domains[len(groups):]),
	}
	t.shapes[string(key)] = shape
	p.topo = shape
}

// countedSpreadGroup is counted for the group of a spread constraint,
// found by the constraint's raw form, and what it reads of its pod, if a
// constraint like it was seen before.
func (t *topology) countedSpreadGroup(p *corev1.Pod, c corev1.TopologySpreadConstraint) *topologyGroup {
	memo, memoize := t.spreadKey(p, c)
	if memoize {
		if g, ok := t.spreads[string(memo)]; ok {
			return g
		}
	}
	g, clean := t.spreadGroup(p, c)
	g = t.counted(g, p)
	if memoize && clean {
		t.spreads[string(memo)] = g
	}
	return g
}

// spreadKey encodes everything spreadGroup reads of a spread constraint and
// its pod, each string prefixed with its length: constraints with equal
// keys form groups with equal signatures. A constraint that honors taints
// of a pod with tolerations is not remembered (the signature prints the
// tolerations as they are, pointers and all) and has no key. The key is
// scratch space, good until the next call.
func (t *topology) spreadKey(p *corev1.Pod, c corev1.TopologySpreadConstraint) ([]byte, bool) {
	honorTaints := c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor
	if honorTaints && len(p.Spec.Tolerations) > 0 {
		return nil, false
	}
	b := appendKeyString(append(t.keyBuf[:0], 's'), c.TopologyKey)
	b = strconv.AppendInt(append(b, 'k'), int64(c.MaxSkew), 10)
	if c.MinDomains != nil {
		b = strconv.AppendInt(append(b, 'm'), int64(*c.MinDomains), 10)
	}
	b = appendKeyString(append(b, 'p'), apis.NamespaceOf(p.Namespace))
	b = t.appendSelectorKey(b, c.LabelSelector)
	b = strconv.AppendInt(append(b, 'L'), int64(len(c.MatchLabelKeys)), 10)
	for _, key := range c.MatchLabelKeys {
		b = appendKeyString(b, key)
		if value, ok := p.Labels[key]; ok {
			b = appendKeyString(append(b, '='), value)
		} else {
			b = append(b, '-')
		}
	}
	if honorTaints {
		b = append(b, 'T')
	}
	if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		b = t.appendNodeAffinityKey(append(b, 'A'), p)
	}
	t.keyBuf = b
	return b, true
}

// appendNodeAffinityKey appends what nodeAffinityTerms reads of the pod:
// its nodeSelector and the match expressions of its required node-affinity
// terms.
func (t *topology) appendNodeAffinityKey(b []byte, p *corev1.Pod) []byte {
	keys := t.scratch.labels[:0]
	for k := range p.Spec.NodeSelector {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	t.scratch.labels = keys
	b = strconv.AppendInt(append(b, 'n'), int64(len(keys)), 10)
	for _, k := range keys {
		b = appendKeyString(appendKeyString(b, k), p.Spec.NodeSelector[k])
	}
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return append(b, '-')
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	b = strconv.AppendInt(append(b, 'r'), int64(len(terms)), 10)
	for _, term := range terms {
		b = strconv.AppendInt(append(b, 'e'), int64(len(term.MatchExpressions)), 10)
		for _, e := range term.MatchExpressions {
			b = appendExpressionKey(b, e.Key, string(e.Operator), e.Values)
		}
	}
	return b
}

// appendSelectorKey appends a label selector's exact form: its match labels
// in key order and its match expressions as they are.
func (t *topology) appendSelectorKey(b []byte, sel *metav1.LabelSelector) []byte {
	if sel == nil {
		return append(b, '-')
	}
	keys := t.keyLabels[:0]
	for k := range sel.MatchLabels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	t.keyLabels = keys
	b = strconv.AppendInt(append(b, 'l'), int64(len(keys)), 10)
	for _, k := range keys {
		b = appendKeyString(appendKeyString(b, k), sel.MatchLabels[k])
	}
	b = strconv.AppendInt(append(b, 'e'), int64(len(sel.MatchExpressions)), 10)
	for _, e := range sel.MatchExpressions {
		b = appendExpressionKey(b, e.Key, string(e.Operator), e.Values)
	}
	return b
}

// appendExpressionKey appends one match expression.
func appendExpressionKey(b []byte, key, op string, values []string) []byte {
	b = appendKeyString(appendKeyString(b, key), op)
	b = strconv.AppendInt(append(b, 'v'), int64(len(values)), 10)
	for _, v := range values {
		b = appendKeyString(b, v)
	}
	return b
}
