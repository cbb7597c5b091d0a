package clusterautoscaler

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// equivalence is pods CA treats as one: the same controller and the same
// scheduling-relevant spec; exemplar speaks for them all.
type equivalence struct {
	key      string
	pods     []*corev1.Pod
	exemplar *corev1.Pod
	requests resources.Vector
	// onePerNode: the pods repel each other on a node (required hostname
	// anti-affinity to their own labels, or host ports).
	onePerNode bool
}

// option is one node group's answer to the pending pods: how many nodes it
// needs for which pods.
type option struct {
	g     *group
	nodes int
	pods  []*corev1.Pod
}

// scaleUp is CA's scale-up: pending pods that no upcoming node will take
// are simulated on each group's template, the expander picks an option,
// and the chosen group (and, when balancing, its similar groups) grow. It
// reports whether any group grew.
func (a *Autoscaler) scaleUp(nodes []*Node) bool {
	clear(a.why)
	clear(a.fits)
	pending := a.cfg.Cluster.Pending()
	if len(pending) == 0 {
		a.lastNoScaleUp = ""
		return false
	}
	waiting, stuck := a.upcomingFit(pending, nodes)
	for _, p := range waiting {
		a.why[apis.PodKey(p)] = "waiting for an upcoming node"
	}
	if len(stuck) == 0 {
		return false
	}
	eqs := a.equivalences(stuck)
	var options []option
	reasons := map[string][]string{} // by pod key
	total := a.totalTarget()
	// --max-nodes-total counts every node, those of no group too.
	for _, n := range nodes {
		if n.Group == "" && !n.Deleting {
			total++
		}
	}
	for _, g := range a.groups {
		opt, refused := a.evaluate(g, eqs, total)
		if refused != "" {
			for _, eq := range eqs {
				for _, p := range eq.pods {
					reasons[apis.PodKey(p)] = append(reasons[apis.PodKey(p)], refused)
				}
			}
			continue
		}
		if opt.nodes > 0 {
			options = append(options, opt)
		}
		for _, eq := range eqs {
			if why := a.fitCache(g, eq); why != "" {
				for _, p := range eq.pods {
					reasons[apis.PodKey(p)] = append(reasons[apis.PodKey(p)], why)
				}
			}
		}
	}
	if len(options) == 0 {
		a.noScaleUp(stuck, reasons)
		return false
	}
	best, why := a.expand(options)
	plan := []option{best}
	if a.st.balance {
		plan = a.balance(best, options, total)
	}
	for _, p := range stuck {
		if !slices.Contains(best.pods, p) {
			a.why[apis.PodKey(p)] = "not helped by this scale-up: " + strings.Join(reasons[apis.PodKey(p)], "; ")
		}
	}
	a.lastNoScaleUp = ""
	for _, o := range plan {
		before := o.g.target
		o.g.target += o.nodes
		a.requestLaunches(o.g, o.nodes)
		reason := fmt.Sprintf("node group %s: %d → %d nodes for %d pending pods; expander %s", o.g.spec.Name, before, o.g.target, len(best.pods), why)
		if len(plan) > 1 {
			reason += fmt.Sprintf("; balanced over %d similar node groups", len(plan))
		}
		a.record(Decision{Kind: KindScaleUp, Pods: len(o.pods), InstanceType: o.g.types[0].Name, CapacityType: o.g.spec.CapacityType,
			PricePerHour: o.g.price * float64(o.nodes), Reason: reason})
	}
	return true
}

// upcomingFit splits the pending pods into those that fit on nodes still
// coming up (instances requested or launched, not ready), as CA counts
// them to avoid scaling up twice for the same pods, and the rest. An
// instance that failed to launch stays upcoming until
// max-node-provision-time gives up on it: CA sees only the desired
// capacity and the nodes that registered.
func (a *Autoscaler) upcomingFit(pending []*corev1.Pod, nodes []*Node) (waiting, stuck []*corev1.Pod) {
	ready := map[string]int{}
	for _, n := range nodes {
		if n.Ready && !n.Deleting {
			ready[n.Group]++
		}
	}
	var upcoming []*scheduling.Node
	for _, g := range a.groups {
		for i := range g.target - ready[g.spec.Name] {
			upcoming = append(upcoming, g.emptyTemplate(fmt.Sprintf("%s%s-%04d", defaultUpcomingHostnamePrefix, g.spec.Name, i)))
		}
	}
	if len(upcoming) == 0 {
		return nil, pending
	}
	res := scheduling.Solve(scheduling.Input{Pods: pending, Nodes: upcoming, DaemonSets: a.cfg.Cluster.DaemonSets(), Options: a.cfg.Scheduling})
	placed := map[string]bool{}
	for _, b := range res.Bindings {
		placed[b.Pod] = true
	}
	for _, p := range pending {
		if placed[apis.PodKey(p)] {
			waiting = append(waiting, p)
		} else {
			stuck = append(stuck, p)
		}
	}
	return waiting, stuck
}

func (a *Autoscaler) totalTarget() int {
	total := 0
	for _, g := range a.groups {
		total += g.target
	}
	return total
}

// room is how many nodes the group may still add: its max size, and
// --max-nodes-total less total, the nodes of the cluster and those coming.
func (a *Autoscaler) room(g *group, total int) int {
	r := g.spec.Max - g.target
	if a.st.maxNodesTotal > 0 {
		r = min(r, a.st.maxNodesTotal-total)
	}
	return min(r, DefaultMaxNodesPerScaleUp)
}

// evaluate is one group's scale-up option for the pods, or why the group
// cannot be considered at all.
func (a *Autoscaler) evaluate(g *group, eqs []*equivalence, total int) (option, string) {
	now := a.now()
	switch {
	case g.backedOff(now):
		return option{}, fmt.Sprintf("%s: node group backed off until +%v after a failed scale-up", g.spec.Name, g.backoffUntil.Sub(now).Round(1e9))
	case g.target >= g.spec.Max:
		return option{}, fmt.Sprintf("%s: max node group size reached (%d)", g.spec.Name, g.spec.Max)
	case a.room(g, total) <= 0:
		return option{}, fmt.Sprintf("%s: max total nodes in cluster reached (%d)", g.spec.Name, a.st.maxNodesTotal)
	}
	var fitting []*equivalence
	for _, eq := range eqs {
		if a.fitCache(g, eq) == "" {
			fitting = append(fitting, eq)
		}
	}
	if len(fitting) == 0 {
		return option{g: g}, ""
	}
	nodes, pods := a.estimate(g, fitting, a.room(g, total))
	return option{g: g, nodes: nodes, pods: pods}, ""
}

// fitCache says why the equivalence's pods cannot run on an empty template
// node of the group, "" when they can: taints, selectors, affinity,
// resources, as the kube-scheduler checks them.
func (a *Autoscaler) fitCache(g *group, eq *equivalence) string {
	key := g.spec.Name + "\x00" + eq.key
	if why, ok := a.fits[key]; ok {
		return why
	}
	why := a.fit(g, eq)
	a.fits[key] = why
	return why
}

func (a *Autoscaler) fit(g *group, eq *equivalence) string {
	in := scheduling.Input{Pods: []*corev1.Pod{eq.exemplar}, Nodes: []*scheduling.Node{g.emptyTemplate(g.template.Name)},
		DaemonSets: a.cfg.Cluster.DaemonSets(), Options: a.cfg.Scheduling}
	res := scheduling.Solve(in)
	if len(res.Unschedulable) == 0 {
		return ""
	}
	// The template's own verdict, in the last try (preferences relaxed):
	// the solver's summary would speak of NodePools, which CA has none of.
	why := res.Unschedulable[0].Reason
	if _, ex, err := scheduling.Explain(in, apis.PodKey(eq.exemplar)); err == nil && len(ex.Attempts) > 0 {
		if last := ex.Attempts[len(ex.Attempts)-1]; len(last.Nodes) > 0 && last.Nodes[0].Reason != "" {
			why = last.Nodes[0].Reason
		}
	}
	return fmt.Sprintf("%s: %s", g.spec.Name, why)
}

// noScaleUp records that no group can help the pods, each pod with every
// group's reason.
func (a *Autoscaler) noScaleUp(stuck []*corev1.Pod, reasons map[string][]string) {
	for _, p := range stuck {
		a.why[apis.PodKey(p)] = "pod didn't trigger scale-up: " + strings.Join(reasons[apis.PodKey(p)], "; ")
	}
	first := apis.PodKey(stuck[0])
	why := fmt.Sprintf("%d pods didn't trigger scale-up; first, %s: %s", len(stuck), first, strings.Join(reasons[first], "; "))
	if why != a.lastNoScaleUp {
		a.record(Decision{Kind: KindNoScaleUp, Pods: len(stuck), Reason: why})
	}
	a.lastNoScaleUp = why
}

// equivalences groups pods by controller and scheduling spec, in the order
// of their first pod.
func (a *Autoscaler) equivalences(pods []*corev1.Pod) []*equivalence {
	var out []*equivalence
	byKey := map[string]*equivalence{}
	for _, p := range pods {
		f := a.facts(p)
		eq := byKey[f.key]
		if eq == nil {
			eq = &equivalence{key: f.key, exemplar: p, requests: f.requests, onePerNode: repelsItself(p)}
			byKey[f.key] = eq
			out = append(out, eq)
		}
		eq.pods = append(eq.pods, p)
	}
	return out
}

// equivalenceKey is the pod's controller (or the pod itself, without one)
// and what scheduling reads of its spec.
func equivalenceKey(p *corev1.Pod) string {
	owner := "pod:" + apis.PodKey(p)
	if ref := metav1.GetControllerOf(p); ref != nil {
		owner = ref.Kind + ":" + apis.NamespaceOf(p.Namespace) + "/" + ref.Name
	}
	// JSON, unlike fmt, prints what pointers point to, and sorts maps.
	scheduling, err := json.Marshal(struct {
		NodeSelector map[string]string
		Affinity     *corev1.Affinity
		Tolerations  []corev1.Toleration
		Spread       []corev1.TopologySpreadConstraint
		Labels       map[string]string
	}{p.Spec.NodeSelector, p.Spec.Affinity, p.Spec.Tolerations, p.Spec.TopologySpreadConstraints, p.Labels})
	if err != nil {
		return "pod:" + apis.PodKey(p)
	}
	return owner + "|" + podRequests(p).String() + "|" + string(scheduling)
}

// repelsItself: a pod with a required anti-affinity on the hostname to its
// own labels, or with host ports, runs at most once per node.
func repelsItself(p *corev1.Pod) bool {
	for _, c := range p.Spec.Containers {
		for _, port := range c.Ports {
			if port.HostPort != 0 {
				return true
			}
		}
	}
	if p.Spec.Affinity == nil || p.Spec.Affinity.PodAntiAffinity == nil {
		return false
	}
	for _, term := range p.Spec.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution {
		if term.TopologyKey != apis.LabelHostname {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(term.LabelSelector)
		if err == nil && sel.Matches(labels.Set(p.Labels)) {
			return true
		}
	}
	return false
}

// sortByScore orders equivalences as CA's estimator does: the biggest
// share of the template's cpu plus memory first; ties in their order.
func sortByScore(eqs []*equivalence, alloc resources.Vector) []*equivalence {
	score := func(eq *equivalence) float64 {
		s := 0.0
		if c := alloc.CPU(); c > 0 {
			s += float64(eq.requests.CPU()) / float64(c)
		}
		if m := alloc.Memory(); m > 0 {
			s += float64(eq.requests.Memory()) / float64(m)
		}
		return s
	}
	out := slices.Clone(eqs)
	slices.SortStableFunc(out, func(x, y *equivalence) int { return cmp.Compare(score(y), score(x)) })
	return out
}
