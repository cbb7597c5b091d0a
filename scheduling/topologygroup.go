package scheduling

import (
	"fmt"
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/requirements"
)

// groupKind is what a topology group enforces.
type groupKind int

const (
	spreadGroup groupKind = iota
	affinityGroup
	antiAffinityGroup
)

func (k groupKind) String() string {
	return [...]string{"topology spread", "pod affinity", "pod anti-affinity"}[k]
}

// topologyGroup counts the pods a selector picks in each domain of one
// topology key, for every pod that shares the same constraint. Domains are
// kept sorted so that every choice among equals is the first by name
// (Karpenter walks a map and takes whichever comes first).
type topologyGroup struct {
	kind       groupKind
	key        string
	namespaces []string // sorted; the pods counted live in one of them
	selector   labels.Selector
	maxSkew    int32
	minDomains *int32
	filter     nodeFilter
	signature  string
	// id numbers the group among the solve's groups, or among its inverse
	// groups (see setShape).
	id int

	domains []string // sorted
	// counts holds, by the domain's number in index, one more than the
	// pods counted there: 0 for a domain the group has not registered.
	counts []int32
	// buf is reused by candidates.
	buf []string
	// single memoizes the requirement "key In [domain]" per domain, the
	// answer of most calls, so that answering allocates nothing.
	single map[string]requirements.Requirement
	// index numbers the domains and knows the placeholder hostnames of
	// claims (shared by every group of a solve), and occupiedClaims is how
	// many of those count a pod here: when it reaches the number of claims,
	// hostname anti-affinity rejects every claim.
	index          *domainIndex
	occupiedClaims int
}

// domainIndex numbers the domains of a solve's topology groups, shared by
// all of them, so that each group counts its pods in a slice rather than a
// map of its own (hostname groups hold every claim and node); it also
// knows which domains are claims' placeholder hostnames.
type domainIndex struct {
	ids map[string]int32
	// claim tells, by number, the claims' placeholder hostnames.
	claim []bool
}

func newDomainIndex() *domainIndex { return &domainIndex{ids: map[string]int32{}} }

// id returns the domain's number, numbering it if it is new.
func (x *domainIndex) id(domain string) int32 {
	if id, ok := x.ids[domain]; ok {
		return id
	}
	id := int32(len(x.claim))
	x.ids[domain] = id
	x.claim = append(x.claim, false)
	return id
}

// markClaim records that the domain is a claim's placeholder hostname.
func (x *domainIndex) markClaim(hostname string) {
	x.claim[x.id(hostname)] = true
}

// lookup returns the group's entry for the domain, 0 when it has none.
func (g *topologyGroup) lookup(domain string) int32 {
	if g.index == nil {
		return 0
	}
	id, ok := g.index.ids[domain]
	if !ok || int(id) >= len(g.counts) {
		return 0
	}
	return g.counts[id]
}

// count is how many selected pods the group counts in the domain.
func (g *topologyGroup) count(domain string) int32 {
	return max(g.lookup(domain)-1, 0)
}

// registered reports whether the domain is one of the group's.
func (g *topologyGroup) registered(domain string) bool {
	return g.lookup(domain) > 0
}

// nodeFilter says which nodes a spread constraint counts: with
// nodeAffinityPolicy Honor, those the pod's required node affinity allows;
// with nodeTaintsPolicy Honor, those whose taints it tolerates.
type nodeFilter struct {
	terms       []requirements.Requirements // any may match; none means all
	tolerations []corev1.Toleration
	honorTaints bool
}

func (f nodeFilter) matches(taints []corev1.Taint, reqs requirements.Requirements, undefined requirements.Undefined) bool {
	if f.honorTaints && tolerates(taints, f.tolerations) != nil {
		return false
	}
	if len(f.terms) == 0 {
		return true
	}
	for _, term := range f.terms {
		if reqs.CompatibleFast(term, undefined) {
			return true
		}
	}
	return false
}

func (f nodeFilter) String() string {
	var parts []string
	for _, t := range f.terms {
		parts = append(parts, t.String())
	}
	if f.honorTaints {
		parts = append(parts, fmt.Sprintf("tolerations %v", f.tolerations))
	}
	return strings.Join(parts, " | ")
}

func newTopologyGroup(kind groupKind, key string, namespaces []string, selector labels.Selector, maxSkew int32, minDomains *int32, filter nodeFilter) *topologyGroup {
	slices.Sort(namespaces)
	namespaces = slices.Compact(namespaces)
	g := &topologyGroup{kind: kind, key: key, namespaces: namespaces, selector: selector, maxSkew: maxSkew, minDomains: minDomains, filter: filter}
	min := "-"
	if minDomains != nil {
		min = fmt.Sprint(*minDomains)
	}
	g.signature = fmt.Sprintf("%d|%s|%v|%s|%d|%s|%s", kind, key, namespaces, selector, maxSkew, min, filter)
	return g
}

// register adds a domain with no pods, if it is new.
func (g *topologyGroup) register(domain string) {
	g.entry(domain)
}

// entry registers the domain if it is new and returns its entry in counts.
func (g *topologyGroup) entry(domain string) *int32 {
	if g.index == nil {
		g.index = newDomainIndex()
	}
	id := g.index.id(domain)
	if int(id) >= len(g.counts) {
		g.counts = append(g.counts, make([]int32, int(id)+1-len(g.counts))...)
	}
	if c := &g.counts[id]; *c > 0 {
		return c
	}
	i, _ := slices.BinarySearch(g.domains, domain)
	g.domains = slices.Insert(g.domains, i, domain)
	g.counts[id] = 1
	return &g.counts[id]
}

// record counts one more pod in each of the domains.
func (g *topologyGroup) record(domains ...string) {
	for _, d := range domains {
		c := g.entry(d)
		if *c == 1 && g.index.claim[g.index.ids[d]] {
			g.occupiedClaims++
		}
		*c++
	}
}

// selects reports whether the group counts pods like p.
func (g *topologyGroup) selects(p *corev1.Pod) bool {
	ns := p.Namespace
	if ns == "" {
		ns = "default"
	}
	if _, found := slices.BinarySearch(g.namespaces, ns); !found && !slices.Contains(g.namespaces, allNamespaces) {
		return false
	}
	return g.selector.Matches(labels.Set(p.Labels))
}

// allNamespaces in a group's namespaces means every namespace (an empty
// namespaceSelector).
const allNamespaces = "*"

// next returns the domains the pod may go to: podDomains are those its own
// required node affinity allows, nodeDomains those the node or claim
// allows.
func (g *topologyGroup) next(p *corev1.Pod, podDomains, nodeDomains requirements.Requirement) requirements.Requirement {
	switch g.kind {
	case spreadGroup:
		return g.nextSpread(p, podDomains, nodeDomains)
	case affinityGroup:
		return g.nextAffinity(p, podDomains, nodeDomains)
	default:
		return g.nextAntiAffinity(podDomains, nodeDomains)
	}
}

// candidates are the registered domains the node allows, in name order.
// When the node allows a few domains (always so for hostname, where the
// universe grows with every claim), those are walked instead of the whole
// universe: the answer is intersected with the node's requirements anyway.
func (g *topologyGroup) candidates(nodeDomains requirements.Requirement) []string {
	if nodeDomains.Operator() != corev1.NodeSelectorOpIn || nodeDomains.Len() >= len(g.domains) {
		return g.domains
	}
	g.buf = nodeDomains.AppendValues(g.buf[:0])
	out := g.buf[:0]
	for _, d := range g.buf {
		if g.registered(d) {
			out = append(out, d)
		}
	}
	return out
}

// nextSpread picks the least-loaded domain the node allows whose count
// (with the pod, if it counts itself) stays within maxSkew of the global
// minimum.
func (g *topologyGroup) nextSpread(p *corev1.Pod, podDomains, nodeDomains requirements.Requirement) requirements.Requirement {
	return g.nextSpreadPreferring(p, podDomains, nodeDomains, nil)
}

// nextSpreadPreferring is nextSpread taking, among the least-loaded
// domains, the first by name that allowed accepts (the first by name when
// none does, or allowed is nil).
func (g *topologyGroup) nextSpreadPreferring(p *corev1.Pod, podDomains, nodeDomains requirements.Requirement, allowed func(string) bool) requirements.Requirement {
	min := g.minCount(podDomains)
	self := int32(0)
	if g.selects(p) {
		self = 1
	}
	best, bestCount, bestAllowed := "", int32(math.MaxInt32), false
	for _, d := range g.candidates(nodeDomains) {
		if !nodeDomains.Has(d) {
			continue
		}
		count := g.count(d) + self
		if count-min > g.maxSkew {
			continue
		}
		if count < bestCount {
			best, bestCount = d, count
			bestAllowed = allowed == nil || allowed(d)
		} else if count == bestCount && !bestAllowed && allowed(d) {
			best, bestAllowed = d, true
		}
	}
	if best == "" {
		return g.in(nil)
	}
	return g.inOne(best, nodeDomains)
}

// minCount is the smallest count among the domains the pod allows; always 0
// for hostname (a new node is an empty domain), and 0 when fewer domains
// than minDomains are eligible.
func (g *topologyGroup) minCount(podDomains requirements.Requirement) int32 {
	if g.key == apis.LabelHostname {
		return 0
	}
	min, eligible := int32(math.MaxInt32), int32(0)
	for _, d := range g.domains {
		if podDomains.Has(d) {
			eligible++
			min = minInt32(min, g.count(d))
		}
	}
	if g.minDomains != nil && eligible < *g.minDomains {
		return 0
	}
	return min
}

// nextAffinity allows the domains that already hold a selected pod; a pod
// that selects itself may start in one empty domain when none does.
func (g *topologyGroup) nextAffinity(p *corev1.Pod, podDomains, nodeDomains requirements.Requirement) requirements.Requirement {
	var buf [4]string // on the stack: in copies what it keeps
	options := g.occupied(podDomains, buf[:0])
	if len(options) == 0 && g.selects(p) {
		options = g.firstDomain(func(d string) bool { return podDomains.Has(d) && nodeDomains.Has(d) })
		if len(options) == 0 {
			options = g.firstDomain(podDomains.Has)
		}
	}
	if len(options) == 1 {
		return g.inOne(options[0], nodeDomains)
	}
	return g.in(options)
}

// occupied appends to dst the domains the pod allows that hold a selected
// pod: when there are any, they are an affinity group's answer whatever
// the node.
func (g *topologyGroup) occupied(podDomains requirements.Requirement, dst []string) []string {
	for _, d := range g.domains {
		if podDomains.Has(d) && g.count(d) > 0 {
			dst = append(dst, d)
		}
	}
	return dst
}

func (g *topologyGroup) firstDomain(ok func(string) bool) []string {
	for _, d := range g.domains {
		if ok(d) {
			return []string{d}
		}
	}
	return nil
}

// nextAntiAffinity allows only the domains with no selected pod (of those
// the node allows: see candidates).
func (g *topologyGroup) nextAntiAffinity(podDomains, nodeDomains requirements.Requirement) requirements.Requirement {
	var buf [4]string // on the stack: in copies what it keeps
	options := buf[:0]
	for _, d := range g.candidates(nodeDomains) {
		if g.count(d) == 0 && podDomains.Has(d) {
			options = append(options, d)
		}
	}
	if len(options) == 1 {
		return g.inOne(options[0], nodeDomains)
	}
	return g.in(options)
}

// inOne is the requirement "key In [value]": the node's own requirement
// when it is just that (a claim's hostname, a zonal claim's zone), shared
// rather than built, or in's.
func (g *topologyGroup) inOne(value string, nodeDomains requirements.Requirement) requirements.Requirement {
	if nodeDomains.IsOnly(value) && nodeDomains.Key() == g.key {
		return nodeDomains
	}
	return g.in([]string{value})
}

// in is the requirement "key In values", DoesNotExist when there are none;
// single values come from the memo.
func (g *topologyGroup) in(values []string) requirements.Requirement {
	switch len(values) {
	case 0:
		return requirements.DoesNotExist(g.key)
	case 1:
		if r, ok := g.single[values[0]]; ok {
			return r
		}
		if g.single == nil {
			g.single = map[string]requirements.Requirement{}
		}
		r := requirements.In(g.key, values[0])
		g.single[values[0]] = r
		return r
	}
	return requirements.In(g.key, values...)
}

// describe prints the counts, for explanations.
func (g *topologyGroup) describe() string {
	parts := make([]string, 0, min(len(g.domains), 6))
	for i, d := range g.domains {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(g.domains)-5))
			break
		}
		parts = append(parts, fmt.Sprintf("%s=%d", d, g.count(d)))
	}
	return fmt.Sprintf("%s on %s (counts %s)", g.kind, g.key, strings.Join(parts, ", "))
}

func minInt32(a, b int32) int32 {
	if a < b {
		return a
	}
	return b
}
