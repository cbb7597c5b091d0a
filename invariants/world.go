package invariants

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// world is the cluster a decision leaves: every node (existing, in flight
// or new) with the pods it had and the pods the decision placed on it.
type world struct {
	nodes  []*wnode
	byName map[string]*wnode
	// daemonSets are one pod per DaemonSet: overhead on every node whose
	// taints they tolerate and whose labels they select.
	daemonSets []*corev1.Pod
	// unknown are pods the decision places without saying where (a
	// consolidation simulation's pending pods and those of nodes already
	// being deleted): an affinity term or spread selector that matches one
	// is not checked, since that pod may count anywhere.
	unknown []*corev1.Pod
}

// unknownMatch reports whether an unknown pod in one of the namespaces
// matches.
func (w *world) unknownMatch(matches func(*corev1.Pod) bool) bool {
	for _, p := range w.unknown {
		if p != nil && apis.IsActive(p) && matches(p) {
			return true
		}
	}
	return false
}

type wnode struct {
	name, pool string
	labels     map[string]string
	// taints are those a placement must tolerate.
	taints      []corev1.Taint
	allocatable resources.Vector
	capacity    resources.Vector
	// sized is false when the node's allocatable is unknown (a claim whose
	// instance type is not in its NodePool's catalog).
	sized bool
	// pods were bound before the decision; placed are the decision's.
	pods, placed []*corev1.Pod
	// isNew is set for a NodeClaim the decision launches.
	isNew bool
}

func newWorld(daemonSets []*corev1.Pod) *world {
	return &world{byName: map[string]*wnode{}, daemonSets: daemonSets}
}

func (w *world) add(n *wnode) {
	w.nodes = append(w.nodes, n)
	w.byName[n.name] = n
}

// existingNode reads a scheduling.Node. A node not yet initialized keeps
// the taints it starts with only until it is: they do not forbid a
// placement.
func existingNode(n *scheduling.Node) *wnode {
	wn := &wnode{name: n.Name, pool: n.NodePool, labels: withHostname(n.Labels, n.Name),
		allocatable: resources.FromList(n.Allocatable), capacity: resources.FromList(n.Capacity), sized: true}
	for _, t := range n.Taints {
		if !n.Initialized && startingTaints[t.Key] {
			continue
		}
		wn.taints = append(wn.taints, t)
	}
	for _, p := range n.Pods {
		if p != nil && !apis.IsTerminal(p) {
			wn.pods = append(wn.pods, p)
		}
	}
	return wn
}

// withHostname returns labels with kubernetes.io/hostname set to the node's
// name when it has none: the domain a hostname term sees.
func withHostname(labels map[string]string, name string) map[string]string {
	if _, ok := labels[apis.LabelHostname]; ok {
		return labels
	}
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[apis.LabelHostname] = name
	return out
}

// all returns every pod on the node, bound and placed.
func (n *wnode) all() []*corev1.Pod {
	return append(slices.Clip(n.pods), n.placed...)
}

// entry is a pod where the decision leaves it.
type entry struct {
	pod    *corev1.Pod
	node   *wnode
	placed bool
}

func (w *world) entries() []entry {
	var out []entry
	for _, n := range w.nodes {
		for _, p := range n.pods {
			out = append(out, entry{p, n, false})
		}
		for _, p := range n.placed {
			out = append(out, entry{p, n, true})
		}
	}
	return out
}

// daemonOverhead is what the DaemonSets that would run on the node still
// need: their pods' requests less those of the DaemonSet pods already
// bound there, never below zero.
func (w *world) daemonOverhead(n *wnode) resources.Vector {
	var want, have resources.Vector
	for _, ds := range w.daemonSets {
		if _, bad := untolerated(ds, n.taints); bad {
			continue
		}
		if rule, _ := selectorMismatch(ds, n.name, n.labels); rule != "" {
			continue
		}
		if r, err := resources.PodRequests(ds); err == nil {
			want = want.Add(r)
		}
	}
	for _, p := range n.pods {
		if apis.IsDaemonSetPod(p) {
			if r, err := resources.PodRequests(p); err == nil {
				have = have.Add(r)
			}
		}
	}
	return want.Sub(have).Max(resources.Vector{})
}

// checkResources reports a node whose pods and DaemonSet overhead exceed
// its allocatable, or whose pod count exceeds its max pods.
func (w *world) checkResources(n *wnode) []Violation {
	if !n.sized {
		return nil
	}
	var sum resources.Vector
	for _, p := range n.all() {
		r, err := resources.PodRequests(p)
		if err != nil {
			return []Violation{{Rule: RuleOvercommit, Pod: apis.PodKey(p), Node: n.name, NodePool: n.pool,
				Detail: "placed although its requests cannot be read: " + err.Error()}}
		}
		sum = sum.Add(r)
	}
	daemons := w.daemonOverhead(n)
	total := sum.Add(daemons)
	over := total.Exceeding(n.allocatable)
	if len(over) == 0 {
		return nil
	}
	var out []Violation
	for _, name := range over {
		out = append(out, Violation{Rule: RuleOvercommit, Node: n.name, NodePool: n.pool,
			Detail: fmt.Sprintf("%s: pods request %s and DaemonSets %s, allocatable is %s", name,
				quantity(sum, name), quantity(daemons, name), quantity(n.allocatable, name))})
	}
	return out
}

func quantity(v resources.Vector, name corev1.ResourceName) string {
	q := v.Quantity(name)
	return q.String()
}

// checkPlacement reports a pod placed on a node against its nodeSelector,
// required node affinity or the node's taints.
func checkPlacement(p *corev1.Pod, n *wnode) []Violation {
	var out []Violation
	if rule, detail := selectorMismatch(p, n.name, n.labels); rule != "" {
		out = append(out, Violation{Rule: rule, Pod: apis.PodKey(p), Node: n.name, NodePool: n.pool, Detail: detail})
	}
	if t, bad := untolerated(p, n.taints); bad {
		out = append(out, Violation{Rule: RuleTaints, Pod: apis.PodKey(p), Node: n.name, NodePool: n.pool,
			Detail: fmt.Sprintf("does not tolerate taint %s=%s:%s", t.Key, t.Value, t.Effect)})
	}
	return out
}
