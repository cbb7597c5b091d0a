package scheduling

import (
	"fmt"
	"slices"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// topology tracks, for every topology spread constraint and pod
// (anti-)affinity term of the pods to place, how many selected pods each
// domain holds, and turns that into requirements on the nodes a pod may
// use (reference §1, "Topology").
type topology struct {
	groups map[string]*topologyGroup
	// terms and inverseTerms remember the group of each pod (anti-)affinity
	// term by its raw form (see termKey), so that the pods that share a
	// term, and the relaxed copies of a pod, find its group without
	// converting its selector and printing its signature again.
	terms        map[string]*topologyGroup
	inverseTerms map[string]*inverseGroup
	// spreads remember the group of each spread constraint by its raw
	// form and what it reads of its pod (see spreadKey).
	spreads map[string]*topologyGroup
	// shapes are the pods' podTopology values, by what they hold (see
	// setShape): pods of one workload share one.
	shapes map[string]*podTopology
	// keyBuf and keyLabels are termKey's and spreadKey's scratch space,
	// values record's, scratch setShape's.
	keyBuf    []byte
	keyLabels []string
	values    []string
	scratch   shapeScratch
	// order is groups in creation order, for deterministic recording.
	order []*topologyGroup
	// inverse are the required anti-affinity terms of pods, counted where
	// those pods are, which keep the pods they select away.
	inverse []*inverseGroup
	// sources are the domains each topology key may take, and who offers
	// them (NodePools with their taints, or existing nodes).
	sources  map[string][]domainSource
	s        *solver
	warnings []string
	// index numbers the groups' domains and knows the claims' placeholder
	// hostnames.
	index *domainIndex
}

// inverseGroup is an anti-affinity group owned by the pods whose term it is.
type inverseGroup struct {
	*topologyGroup
	owners map[string]bool // pod keys
}

type domainSource struct {
	domain string
	taints []corev1.Taint
	// node is set for a domain an existing node is in: the group's filter
	// then decides by the node's labels as well as its taints, as Karpenter
	// registers only the domains of nodes a spread counts.
	node *existingNode
}

// newTopology builds the groups of every pod to place and counts the pods
// already bound in the cluster. It returns nil when no pod, to place or
// bound, has a topology constraint: the solver then skips topology.
func newTopology(s *solver) *topology {
	t := &topology{groups: map[string]*topologyGroup{}, terms: map[string]*topologyGroup{}, inverseTerms: map[string]*inverseGroup{}, spreads: map[string]*topologyGroup{}, shapes: map[string]*podTopology{},
		sources: map[string][]domainSource{}, s: s, index: newDomainIndex()}
	for _, e := range s.existing {
		for _, p := range e.node.Pods {
			if hasRequiredAntiAffinity(p) && apis.IsActive(p) {
				t.addInverse(p, apis.PodKey(p), e.labels)
			}
		}
	}
	found := len(t.inverse) > 0
	for _, p := range s.pods {
		if p.invalid() == nil && hasTopology(p.pod, s.prefs) {
			t.attach(p)
			found = true
		}
	}
	if !found {
		return nil
	}
	for _, p := range s.pods {
		if p.invalid() == nil {
			t.setInverse(p)
		}
	}
	return t
}

// attach gives the pod its groups, creating and counting new ones, and the
// inverse groups of its own required anti-affinity terms.
//
// The requirements the pod's volumes added to its node affinity constrain
// where it goes, but not which nodes its spreads count nor which domains
// its constraints weigh (Karpenter issue 2777): the groups and the pod's
// domains are read from the pod without them.
func (t *topology) attach(p *podInfo) {
	pod := p.pod
	if len(p.volumeReqs()) > 0 {
		pod = withoutVolumeRequirements(p.pod, p.volumeReqs())
		// strict is only read for pods with topology terms.
		if strict, err := requirements.FromPod(pod, requirements.StrictOnly); err == nil && p.strict.Len() > 0 {
			p.strict = strict
		}
	}
	t.scratch.groups = t.groupsOf(pod, t.scratch.groups[:0], t.s.prefs)
	if hasRequiredAntiAffinity(pod) {
		t.addInverse(pod, p.key, requirements.Requirements{})
	}
	t.setShape(p, t.scratch.groups)
}

// setInverse records the inverse groups that select the pod, and the
// domains the pod allows on every group's key. Inverse groups all exist
// once the pods are attached: relaxation never changes a pod's required
// anti-affinity.
func (t *topology) setInverse(p *podInfo) {
	t.setShape(p, p.topology().groups)
}

// addInverse registers the pod as an owner of the inverse groups of its
// required anti-affinity terms, counted in its node's domains if it is bound.
func (t *topology) addInverse(p *corev1.Pod, key string, nodeLabels requirements.Requirements) {
	for _, term := range p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		ig := t.inverseGroup(p, term)
		ig.owners[key] = true
		if r, ok := nodeLabels.Lookup(ig.key); ok && r.Len() == 1 {
			ig.record(r.Any())
		}
	}
}

// inverseGroup returns the inverse group of a required anti-affinity term,
// creating it if it is new.
func (t *topology) inverseGroup(p *corev1.Pod, term corev1.PodAffinityTerm) *inverseGroup {
	memo, memoize := t.termKey(antiAffinityGroup, p, term)
	if memoize {
		if ig, ok := t.inverseTerms[string(memo)]; ok {
			return ig
		}
	}
	g, clean := t.termGroup(antiAffinityGroup, p, term)
	var ig *inverseGroup
	for _, existing := range t.inverse {
		if existing.signature == g.signature {
			ig = existing
		}
	}
	if ig == nil {
		g.index, g.id = t.index, len(t.inverse)
		ig = &inverseGroup{topologyGroup: g, owners: map[string]bool{}}
		t.registerDomains(g, p, true)
		t.inverse = append(t.inverse, ig)
	}
	if memoize && clean {
		t.inverseTerms[string(memo)] = ig
	}
	return ig
}

// groupsOf appends to dst the groups a pod's constraints form, counting
// the new ones: its spread constraints, then its pod affinity and
// anti-affinity terms, required and preferred (preferences hold until
// relaxed, and count only WithPreferences).
func (t *topology) groupsOf(p *corev1.Pod, dst []*topologyGroup, prefs requirements.Preferences) []*topologyGroup {
	for _, c := range p.Spec.TopologySpreadConstraints {
		if counts(c, prefs) {
			dst = append(dst, t.countedSpreadGroup(p, c))
		}
	}
	preferred := prefs == requirements.WithPreferences
	a := p.Spec.Affinity
	if a == nil {
		return dst
	}
	if a.PodAffinity != nil {
		for _, term := range a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			dst = append(dst, t.countedTermGroup(affinityGroup, p, term))
		}
		for _, term := range a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if preferred {
				dst = append(dst, t.countedTermGroup(affinityGroup, p, term.PodAffinityTerm))
			}
		}
	}
	if a.PodAntiAffinity != nil {
		for _, term := range a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
			dst = append(dst, t.countedTermGroup(antiAffinityGroup, p, term))
		}
		for _, term := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			if preferred {
				dst = append(dst, t.countedTermGroup(antiAffinityGroup, p, term.PodAffinityTerm))
			}
		}
	}
	return dst
}

// counted returns the group with g's signature, counting g as a new group
// if there is none yet; p is the pod whose constraint made g.
func (t *topology) counted(g *topologyGroup, p *corev1.Pod) *topologyGroup {
	if existing, ok := t.groups[g.signature]; ok {
		return existing
	}
	g.index, g.id = t.index, len(t.order)
	t.count(g, p)
	t.groups[g.signature] = g
	t.order = append(t.order, g)
	return g
}

// countedTermGroup is counted for the group of a pod (anti-)affinity term,
// found by the term's raw form if a term like it was seen before.
func (t *topology) countedTermGroup(kind groupKind, p *corev1.Pod, term corev1.PodAffinityTerm) *topologyGroup {
	memo, memoize := t.termKey(kind, p, term)
	if memoize {
		if g, ok := t.terms[string(memo)]; ok {
			return g
		}
	}
	g, clean := t.termGroup(kind, p, term)
	g = t.counted(g, p)
	if memoize && clean {
		t.terms[string(memo)] = g
	}
	return g
}

// termKey encodes everything termGroup reads of a term and its pod, each
// string prefixed with its length: terms with equal keys form groups with
// equal signatures. Terms whose group comes with a warning naming the pod
// (a namespaceSelector with labels) are not to be remembered, and have no
// key. The key is scratch space, good until the next call.
func (t *topology) termKey(kind groupKind, p *corev1.Pod, term corev1.PodAffinityTerm) ([]byte, bool) {
	b := append(t.keyBuf[:0], byte('0'+kind))
	b = appendKeyString(b, term.TopologyKey)
	switch ns := term.NamespaceSelector; {
	case ns != nil && len(ns.MatchLabels) == 0 && len(ns.MatchExpressions) == 0:
		b = append(b, '*')
	case ns != nil:
		return nil, false
	case len(term.Namespaces) == 0:
		b = appendKeyString(append(b, 'p'), apis.NamespaceOf(p.Namespace))
	default:
		b = strconv.AppendInt(append(b, 'n'), int64(len(term.Namespaces)), 10)
		for _, n := range term.Namespaces {
			b = appendKeyString(b, n)
		}
	}
	b = t.appendSelectorKey(b, term.LabelSelector)
	t.keyBuf = b
	return b, true
}

// appendKeyString appends s to a key, prefixed with its length.
func appendKeyString(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	return append(append(b, ':'), s...)
}

// spreadGroup builds (without counting) the group of a spread constraint;
// clean is false when it warned about the pod.
func (t *topology) spreadGroup(p *corev1.Pod, c corev1.TopologySpreadConstraint) (g *topologyGroup, clean bool) {
	selector, clean := t.selector(p, c.LabelSelector)
	for _, key := range c.MatchLabelKeys {
		if value, ok := p.Labels[key]; ok {
			if r, err := labels.NewRequirement(key, selection.In, []string{value}); err == nil {
				selector = selector.Add(*r)
			}
		}
	}
	var filter nodeFilter
	if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		filter.terms = nodeAffinityTerms(p)
	}
	if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		filter.honorTaints, filter.tolerations = true, p.Spec.Tolerations
	}
	return newTopologyGroup(spreadGroup, c.TopologyKey, []string{apis.NamespaceOf(p.Namespace)}, selector, c.MaxSkew, c.MinDomains, filter), clean
}

// termGroup builds (without counting) the group of a pod (anti-)affinity
// term; clean is false when it warned about the pod.
func (t *topology) termGroup(kind groupKind, p *corev1.Pod, term corev1.PodAffinityTerm) (g *topologyGroup, clean bool) {
	namespaces, clean := term.Namespaces, true
	switch {
	case term.NamespaceSelector != nil && len(term.NamespaceSelector.MatchLabels) == 0 && len(term.NamespaceSelector.MatchExpressions) == 0:
		namespaces = []string{allNamespaces}
	case term.NamespaceSelector != nil:
		t.warn(fmt.Sprintf("pod %s: namespaceSelector %s needs Namespace objects, which karpsim does not read: only the listed namespaces and the pod's own count", apis.PodKey(p), metav1.FormatLabelSelector(term.NamespaceSelector)))
		namespaces, clean = append(slices.Clone(namespaces), apis.NamespaceOf(p.Namespace)), false
	case len(namespaces) == 0:
		namespaces = []string{apis.NamespaceOf(p.Namespace)}
	}
	selector, ok := t.selector(p, term.LabelSelector)
	return newTopologyGroup(kind, term.TopologyKey, slices.Clone(namespaces), selector, 0, nil, nodeFilter{}), clean && ok
}

// selector converts a label selector; an invalid one selects nothing, with
// a warning about the pod, and ok false.
func (t *topology) selector(p *corev1.Pod, s *metav1.LabelSelector) (selector labels.Selector, ok bool) {
	selector, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		t.warn(fmt.Sprintf("pod %s: label selector %s: %v; it selects no pod", apis.PodKey(p), metav1.FormatLabelSelector(s), err))
		return labels.Nothing(), false
	}
	return selector, true
}

func (t *topology) warn(msg string) {
	if !slices.Contains(t.warnings, msg) {
		t.warnings = append(t.warnings, msg)
	}
}

// nodeAffinityTerms are the node requirements a spread constraint honors:
// the nodeSelector with each required node-affinity term, or the
// nodeSelector alone.
func nodeAffinityTerms(p *corev1.Pod) []requirements.Requirements {
	base := requirements.FromLabels(p.Spec.NodeSelector)
	a := p.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		if base.Len() == 0 {
			return nil
		}
		return []requirements.Requirements{base}
	}
	var terms []requirements.Requirements
	for _, term := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		if r, err := requirements.FromNodeSelectorRequirements(term.MatchExpressions...); err == nil {
			terms = append(terms, base.Intersect(r))
		}
	}
	return terms
}

// count registers the group's domains and counts the bound pods it selects
// on the nodes its filter admits; p is the pod whose constraint made g.
func (t *topology) count(g *topologyGroup, p *corev1.Pod) {
	t.registerDomains(g, p, false)
	for _, e := range t.s.existing {
		domain, ok := e.node.Labels[g.key]
		if !ok && g.key == apis.LabelHostname {
			domain, ok = e.node.Name, true
		}
		if !ok || !g.filter.matches(e.node.Taints, e.labels, requirements.DenyUndefined) {
			continue
		}
		for _, p := range e.node.Pods {
			if apis.IsActive(p) && g.selects(p) {
				g.record(domain)
			}
		}
	}
}

// registerDomains adds the domains of the group's key that its filter
// admits: those NodePools can launch and those existing nodes have. p is
// the pod whose constraint made the group, and inverse tells an inverse
// anti-affinity group.
//
// A pod (anti-)affinity group, whose filter admits every node, takes a
// NodePool's domains only if p tolerates the pool's taints: Karpenter
// builds these groups with an unset taint policy, which its domain walk
// treats as Honor (topologydomaingroup.go ForEachDomain), against the
// tolerations of the pod that made the group. A selected pod that
// tolerates more then finds no empty domain in the pools p does not
// tolerate. An inverse group takes no existing node's domain either, but
// its hostnames: Karpenter counts existing nodes' domains only into the
// groups a pod owns (topology.go countDomains) and registers every
// existing node's hostname in every group (existingnode.go).
func (t *topology) registerDomains(g *topologyGroup, p *corev1.Pod, inverse bool) {
	for _, src := range t.domainSources(g.key) {
		switch {
		case src.node != nil:
			if inverse && g.key != apis.LabelHostname {
				continue
			}
			if g.filter.matches(src.taints, src.node.labels, requirements.DenyUndefined) {
				g.register(src.domain)
			}
		case g.kind != spreadGroup:
			if tolerates(src.taints, p.Spec.Tolerations) == nil {
				g.register(src.domain)
			}
		case !g.filter.honorTaints || tolerates(src.taints, g.filter.tolerations) == nil:
			g.register(src.domain)
		}
	}
}

// domainSources lists, once per key, the domains NodePools can launch into
// (their requirements and labels intersected with each instance type's)
// and those existing nodes are in.
func (t *topology) domainSources(key string) []domainSource {
	if src, ok := t.sources[key]; ok {
		return src
	}
	var src []domainSource
	for _, tmpl := range t.s.templates {
		seen := map[string]bool{}
		poolReq := tmpl.requirements.Get(key)
		for _, o := range tmpl.options {
			r := poolReq.Intersection(o.it.Requirements.Get(key))
			if r.Operator() != corev1.NodeSelectorOpIn {
				continue
			}
			t.values = r.AppendValues(t.values[:0])
			for _, d := range t.values {
				if !seen[d] {
					seen[d] = true
					src = append(src, domainSource{domain: d, taints: tmpl.taints})
				}
			}
		}
	}
	for _, e := range t.s.existing {
		if d, ok := e.node.Labels[key]; ok {
			src = append(src, domainSource{domain: d, taints: e.node.Taints, node: e})
		}
	}
	t.sources[key] = src
	return src
}

// registerClaim makes a new claim's placeholder hostname a domain of every
// hostname group.
func (t *topology) registerClaim(hostname string) {
	t.index.markClaim(hostname)
	for _, g := range t.order {
		if g.key == apis.LabelHostname {
			g.register(hostname)
		}
	}
	for _, g := range t.inverse {
		if g.key == apis.LabelHostname {
			g.register(hostname)
		}
	}
	if src, ok := t.sources[apis.LabelHostname]; ok {
		t.sources[apis.LabelHostname] = append(src, domainSource{domain: hostname})
	}
}

// requirements appends to dst what the pod's groups, and the inverse groups
// that select it, require of a node or claim with requirements reqs and
// taints, one requirement per group; it returns the group at fault when
// some group leaves no domain.
func (t *topology) requirements(p *podInfo, reqs requirements.Requirements, taints []corev1.Taint, undefined requirements.Undefined, dst []requirements.Requirement) ([]requirements.Requirement, *topologyGroup) {
	pt := p.topology()
	if pt.spreadsBeside() {
		return t.requirementsWithTies(p, reqs, taints, undefined, dst)
	}
	for i, g := range pt.groups {
		next := g.next(p.pod, pt.groupDomains[i], reqs.Get(g.key))
		if next.Len() == 0 {
			return dst, g
		}
		dst = append(dst, next)
	}
	for i, g := range pt.inverse {
		if !g.filter.matches(taints, reqs, undefined) {
			continue
		}
		next := g.next(p.pod, pt.inverseDomains[i], reqs.Get(g.key))
		if next.Len() == 0 {
			return dst, g.topologyGroup
		}
		dst = append(dst, next)
	}
	return dst, nil
}

// requirementsWithTies is requirements for a pod with a spread beside other
// groups. Karpenter breaks a spread's tie between equally loaded domains at
// random (it walks a set in map order), so on the claims it tries in turn
// it nearly always draws, sooner or later, a tied domain the pod's other
// groups allow. karpsim takes that domain on the first claim: each spread
// prefers, among its tied domains, the first by name the other groups'
// answers (and the spreads before it) allow. The other groups are answered
// first; the answers keep the groups' order, and so does the group at
// fault, since a spread leaves no domain whatever the others answer.
func (t *topology) requirementsWithTies(p *podInfo, reqs requirements.Requirements, taints []corev1.Taint, undefined requirements.Undefined, dst []requirements.Requirement) ([]requirements.Requirement, *topologyGroup) {
	pt := p.topology()
	start := len(dst)
	var faultBuf [8]*topologyGroup // on the stack: the group behind each answer
	fault := faultBuf[:0]
	for i, g := range pt.groups {
		var next requirements.Requirement
		if g.kind != spreadGroup {
			next = g.next(p.pod, pt.groupDomains[i], reqs.Get(g.key))
		}
		dst, fault = append(dst, next), append(fault, g)
	}
	for i, g := range pt.inverse {
		if !g.filter.matches(taints, reqs, undefined) {
			continue
		}
		dst, fault = append(dst, g.next(p.pod, pt.inverseDomains[i], reqs.Get(g.key))), append(fault, g.topologyGroup)
	}
	answers := dst[start:]
	for i, g := range pt.groups {
		if g.kind != spreadGroup {
			continue
		}
		allowed := func(d string) bool {
			for j, a := range answers {
				if j != i && a.Key() == g.key && (fault[j].kind != spreadGroup || j < i) && !a.Has(d) {
					return false
				}
			}
			return true
		}
		answers[i] = g.nextSpreadPreferring(p.pod, pt.groupDomains[i], reqs.Get(g.key), allowed)
	}
	for i, a := range answers {
		if a.Len() == 0 {
			return dst[:start+i], fault[i]
		}
	}
	return dst, nil
}

// spreadsBeside reports whether the pod has a spread and some other group,
// its own or an inverse one, whose answer may settle the spread's tie.
func (pt *podTopology) spreadsBeside() bool {
	if len(pt.groups)+len(pt.inverse) < 2 {
		return false
	}
	return slices.ContainsFunc(pt.groups, func(g *topologyGroup) bool { return g.kind == spreadGroup })
}

// admits reports, without allocating, whether reqs leave room for every
// topology requirement; requirements on one key are met one at a time,
// which is what matters for the groups' single-domain answers.
func admits(reqs requirements.Requirements, topoReqs []requirements.Requirement, undefined requirements.Undefined) bool {
	for _, r := range topoReqs {
		if !reqs.AllowsFast(r, undefined) {
			return false
		}
	}
	return true
}

// rejectsHost reports, in constant time, whether hostname topology alone
// keeps the pod off the node or claim with this hostname: an anti-affinity
// group that already counts a pod there, or a hostname spread that would
// exceed its skew (its global minimum is always 0). It lets the solver skip
// most claims without building requirements.
func (t *topology) rejectsHost(p *podInfo, hostname string) bool {
	pt := p.topology()
	for _, g := range pt.groups {
		if g.key != apis.LabelHostname {
			continue
		}
		switch g.kind {
		case antiAffinityGroup:
			if g.count(hostname) > 0 {
				return true
			}
		case spreadGroup:
			self := int32(0)
			if g.selects(p.pod) {
				self = 1
			}
			if g.count(hostname)+self > g.maxSkew {
				return true
			}
		}
	}
	for _, g := range pt.inverse {
		if g.key == apis.LabelHostname && g.count(hostname) > 0 {
			return true
		}
	}
	return false
}

// record counts the pod, placed where reqs say, in every group that selects
// it: spread and affinity only once its domain is decided, anti-affinity in
// every domain it could still land in. Inverse groups the pod owns record
// where it may be.
func (t *topology) record(p *podInfo, reqs requirements.Requirements, taints []corev1.Taint, undefined requirements.Undefined) {
	for _, g := range t.order {
		if !g.selects(p.pod) || !g.filter.matches(taints, reqs, undefined) {
			continue
		}
		domains := reqs.Get(g.key)
		switch {
		case g.kind == antiAffinityGroup:
			t.values = domains.AppendValues(t.values[:0])
			g.record(t.values...)
		case domains.Operator() == corev1.NodeSelectorOpIn && domains.Len() == 1:
			g.record(domains.Any())
		}
	}
	for _, g := range t.inverse {
		if g.owners[p.key] {
			t.values = reqs.Get(g.key).AppendValues(t.values[:0])
			g.record(t.values...)
		}
	}
}

// rejectsAllClaims reports whether hostname anti-affinity rejects every one
// of the claims: each already holds a pod the pod's anti-affinity, or an
// inverse anti-affinity that selects it, repels. The solver then skips
// them; rejectsHost would refuse each.
func (t *topology) rejectsAllClaims(p *podInfo, claims int) bool {
	if claims == 0 {
		return false
	}
	pt := p.topology()
	for _, g := range pt.groups {
		if g.kind == antiAffinityGroup && g.key == apis.LabelHostname && g.occupiedClaims >= claims {
			return true
		}
	}
	for _, g := range pt.inverse {
		if g.key == apis.LabelHostname && g.occupiedClaims >= claims {
			return true
		}
	}
	return false
}

// affinityAnswer is what an affinity group answers whatever the node or
// claim: the domains of its key that hold a selected pod.
type affinityAnswer struct {
	key     string
	domains []string
}

// affinityAnswers sets dst to the answers of the pod's affinity groups that
// do not depend on the claim: those with a selected pod in a domain the pod
// allows answer with exactly those domains. The answers only change when a
// pod is recorded, so they hold for a whole walk over the claims; a claim
// whose own requirement on such a key allows none of them rejects the pod
// (see claim.excludes). The entries' domain slices are reused.
func (t *topology) affinityAnswers(p *podInfo, dst []affinityAnswer) []affinityAnswer {
	dst = dst[:0]
	pt := p.topology()
	for i, g := range pt.groups {
		if g.kind != affinityGroup {
			continue
		}
		n := len(dst)
		if n < cap(dst) {
			dst = dst[:n+1]
		} else {
			dst = append(dst, affinityAnswer{})
		}
		a := &dst[n]
		a.key, a.domains = g.key, g.occupied(pt.groupDomains[i], a.domains[:0])
		if len(a.domains) == 0 {
			dst = dst[:n]
		}
	}
	return dst
}

// constrains reports whether placing the pod involves topology at all.
func (t *topology) constrains(p *podInfo) bool {
	return p.topo != nil
}

func hasRequiredAntiAffinity(p *corev1.Pod) bool {
	a := p.Spec.Affinity
	return a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0
}
