package invariants

import (
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"

	"github.com/karpsim/karpsim/apis"
)

// checkPodAffinity reports placed pods whose required pod affinity no pod
// satisfies in their topology domain, and pairs of pods sharing a domain
// against a required anti-affinity term of either, one of them placed by
// the decision.
//
// A pod that matches its own affinity term may open the first domain when
// no pod anywhere matches the term (Kubernetes' bootstrap rule). The order
// the decision placed its pods in is not known, so such a pod is only
// faulted when a pod that matches the term was bound before the decision,
// in another domain.
func (w *world) checkPodAffinity() []Violation {
	var out []Violation
	all := w.entries()
	for _, e := range all {
		affinity, anti := requiredTerms(e.pod)
		if e.placed {
			for _, t := range affinity {
				term := readTerm(e.pod, t, true)
				if w.unknownMatch(term.matches) {
					continue
				}
				if v, bad := affinityUnmet(e, term, all); bad {
					out = append(out, v)
				}
			}
		}
		for _, t := range anti {
			out = append(out, antiAffinityBroken(e, readTerm(e.pod, t, false), all)...)
		}
	}
	return out
}

func affinityUnmet(e entry, t podTerm, all []entry) (Violation, bool) {
	v := Violation{Rule: RulePodAffinity, Pod: apis.PodKey(e.pod), Node: e.node.name, NodePool: e.node.pool}
	dom, ok := e.node.labels[t.key]
	if !ok {
		v.Detail = "the node has no " + t.key + " label, the topology key of a required affinity term"
		return v, true
	}
	elsewhere := ""
	for _, o := range all {
		if o.pod == e.pod || !t.matches(o.pod) {
			continue
		}
		od, ok := o.node.labels[t.key]
		if !ok {
			continue
		}
		if od == dom {
			return v, false
		}
		if !o.placed && elsewhere == "" {
			elsewhere = apis.PodKey(o.pod) + " in " + t.key + "=" + od
		}
	}
	if t.matches(e.pod) && elsewhere == "" {
		return v, false
	}
	v.Detail = fmt.Sprintf("no pod its required affinity selects runs in %s=%s", t.key, dom)
	if elsewhere != "" {
		v.Detail += "; one ran before, " + elsewhere
	}
	return v, true
}

func antiAffinityBroken(e entry, t podTerm, all []entry) []Violation {
	dom, ok := e.node.labels[t.key]
	if !ok {
		return nil
	}
	var out []Violation
	for _, o := range all {
		if o.pod == e.pod || (!e.placed && !o.placed) || !t.matches(o.pod) {
			continue
		}
		if od, ok := o.node.labels[t.key]; ok && od == dom {
			out = append(out, Violation{Rule: RulePodAntiAffinity, Pod: apis.PodKey(e.pod), Node: e.node.name, NodePool: e.node.pool,
				Detail: fmt.Sprintf("shares %s=%s with %s on %s, which its required anti-affinity excludes", t.key, dom, apis.PodKey(o.pod), o.node.name)})
		}
	}
	return out
}

// checkTopologySpread reports DoNotSchedule spread constraints whose skew
// a placement took past maxSkew.
//
// For a constraint of a placed pod, the domains are those of the nodes the
// pod could run on (its nodeSelector and required node affinity, unless
// nodeAffinityPolicy is Ignore; its tolerations when nodeTaintsPolicy is
// Honor), and a domain's count is its pods in the pod's namespace that the
// selector matches. The last pod placed in a domain saw every other pod
// there and a global minimum no larger than the final one, so the final
// count less the final minimum is at most maxSkew — provided every pod of
// the decision that counts in that domain carries the same constraint.
// Only then is the domain checked: it holds for any placement order.
// minDomains is not checked.
func (w *world) checkTopologySpread() []Violation {
	var out []Violation
	for _, e := range w.entries() {
		if !e.placed {
			continue
		}
		for _, c := range e.pod.Spec.TopologySpreadConstraints {
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				continue
			}
			if v, bad := w.spreadBroken(e, c); bad {
				out = append(out, v)
			}
		}
	}
	return out
}

func (w *world) spreadBroken(e entry, c corev1.TopologySpreadConstraint) (Violation, bool) {
	v := Violation{Rule: RuleTopologySpread, Pod: apis.PodKey(e.pod), Node: e.node.name, NodePool: e.node.pool}
	dom, ok := e.node.labels[c.TopologyKey]
	if !ok {
		v.Detail = "the node has no " + c.TopologyKey + " label, the key of a DoNotSchedule spread constraint"
		return v, true
	}
	sel := spreadSelector(e.pod, c)
	ns := apis.NamespaceOf(e.pod.Namespace)
	if w.unknownMatch(func(p *corev1.Pod) bool {
		return apis.NamespaceOf(p.Namespace) == ns && sel.Matches(labels.Set(p.Labels))
	}) {
		return v, false
	}
	counts := map[string]int{}
	for _, n := range w.nodes {
		d, ok := n.labels[c.TopologyKey]
		if !ok || !spreadEligible(e.pod, c, n) {
			continue
		}
		counts[d] += 0
		for _, p := range n.all() {
			if apis.NamespaceOf(p.Namespace) == ns && apis.IsActive(p) && sel.Matches(labels.Set(p.Labels)) {
				counts[d]++
			}
		}
		if d != dom {
			continue
		}
		for _, p := range n.placed {
			if apis.NamespaceOf(p.Namespace) == ns && sel.Matches(labels.Set(p.Labels)) && !hasConstraint(p, c) {
				return v, false // another kind of pod may have come last
			}
		}
	}
	lowest, at := -1, ""
	for d, n := range counts {
		if lowest < 0 || n < lowest || (n == lowest && d < at) {
			lowest, at = n, d
		}
	}
	if skew := counts[dom] - lowest; skew > int(c.MaxSkew) {
		v.Detail = fmt.Sprintf("%s=%s has %d matching pods, %s=%s has %d: skew %d, maxSkew %d",
			c.TopologyKey, dom, counts[dom], c.TopologyKey, at, lowest, skew, c.MaxSkew)
		return v, true
	}
	return v, false
}

// spreadSelector is the constraint's selector with its matchLabelKeys
// taken from the pod; a missing selector matches nothing.
func spreadSelector(p *corev1.Pod, c corev1.TopologySpreadConstraint) labels.Selector {
	sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
	if err != nil || c.LabelSelector == nil {
		return labels.Nothing()
	}
	for _, k := range c.MatchLabelKeys {
		if v, ok := p.Labels[k]; ok {
			if r, err := labels.NewRequirement(k, selection.In, []string{v}); err == nil {
				sel = sel.Add(*r)
			}
		}
	}
	return sel
}

// spreadEligible reports whether a node's domain counts for the pod's
// constraint.
func spreadEligible(p *corev1.Pod, c corev1.TopologySpreadConstraint, n *wnode) bool {
	if c.NodeAffinityPolicy == nil || *c.NodeAffinityPolicy == corev1.NodeInclusionPolicyHonor {
		if rule, _ := selectorMismatch(p, n.name, n.labels); rule != "" {
			return false
		}
	}
	if c.NodeTaintsPolicy != nil && *c.NodeTaintsPolicy == corev1.NodeInclusionPolicyHonor {
		if _, bad := untolerated(p, n.taints); bad {
			return false
		}
	}
	return true
}

func hasConstraint(p *corev1.Pod, c corev1.TopologySpreadConstraint) bool {
	for _, o := range p.Spec.TopologySpreadConstraints {
		if reflect.DeepEqual(o, c) {
			return true
		}
	}
	return false
}
