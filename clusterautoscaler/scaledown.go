package clusterautoscaler

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// candidate is a node CA found unneeded at the last evaluation.
type candidate struct {
	node        *Node
	utilization float64
	// empty: no pod would have to move.
	empty bool
}

// scaleDown is CA's scale-down: the unneeded nodes are found again when
// the cluster changed, and those unneeded for long enough are removed
// unless a scale-up, a deletion or a failure was too recent: empty nodes
// in bulk, nodes with pods one drain at a time, never a group below its
// min size.
func (a *Autoscaler) scaleDown(ctx context.Context, nodes []*Node) {
	now := a.now()
	if gen := a.cfg.Cluster.Generation(); gen != a.unneededGen || a.removable == nil {
		a.removable = a.findUnneeded(nodes)
		a.unneededGen = gen
		keep := map[string]bool{}
		for _, c := range a.removable {
			keep[c.node.Name()] = true
			if _, ok := a.unneeded[c.node.Name()]; !ok {
				a.unneeded[c.node.Name()] = now
			}
		}
		for name := range a.unneeded {
			if !keep[name] {
				delete(a.unneeded, name)
			}
		}
	}
	switch {
	case now.Before(a.lastScaleUp.Add(a.st.delayAfterAdd)) && !a.lastScaleUp.IsZero(),
		now.Before(a.lastDelete.Add(a.st.delayAfterDelete)),
		now.Before(a.lastFailure.Add(a.st.delayAfterFailure)) && !a.lastFailure.IsZero():
		return
	}
	size := map[string]int{}
	for _, n := range nodes {
		if !n.Deleting {
			size[n.Group]++
		}
	}
	deleted, drained := 0, 0
	for _, c := range a.removable {
		name := c.node.Name()
		since, ok := a.unneeded[name]
		if !ok || now.Sub(since) < a.st.unneededTime || deleted >= a.st.maxParallel || (!c.empty && drained >= a.st.maxDrain) {
			continue
		}
		g := a.byName[c.node.Group]
		if g == nil || size[c.node.Group]-1 < g.spec.Min {
			continue
		}
		size[c.node.Group]--
		deleted++
		method, what := MethodEmpty, "empty node"
		if !c.empty {
			drained++
			method, what = MethodUnneeded, "node"
		}
		pods := a.remove(ctx, c.node)
		g.target = max(g.target-1, 0)
		a.record(Decision{Kind: KindScaleDown, Method: method, Nodes: []string{name}, Pods: pods,
			InstanceType: c.node.Instance.InstanceType, CapacityType: c.node.Instance.CapacityType, SavingsPerHour: c.node.PricePerHour,
			Reason: fmt.Sprintf("removing %s of group %s, utilization %.2f below %.2f, unneeded for %v; desired capacity %d → %d",
				what, g.spec.Name, c.utilization, a.st.threshold, now.Sub(since), g.target+1, g.target)})
	}
	if deleted > 0 {
		a.lastDelete = now
		a.removable = nil
	}
}

// findUnneeded returns the nodes CA could remove now: ready group nodes
// under the utilization threshold whose pods may be evicted and fit on the
// nodes that stay. Empty nodes come first, then by utilization; at most
// 30 nodes with pods are simulated, as --scale-down-non-empty-candidates-count.
func (a *Autoscaler) findUnneeded(nodes []*Node) []candidate {
	var cands []candidate
	for _, n := range nodes {
		if !n.Ready || n.Deleting || a.byName[n.Group] == nil {
			continue
		}
		u := a.utilization(n)
		if u >= a.st.threshold {
			continue
		}
		cands = append(cands, candidate{node: n, utilization: u, empty: len(movable(n)) == 0})
	}
	slices.SortStableFunc(cands, func(x, y candidate) int {
		if x.empty != y.empty {
			if x.empty {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(x.utilization, y.utilization), cmp.Compare(x.node.Name(), y.node.Name()))
	})
	// The nodes that stay, as copies whose pods the simulation adds to.
	dest := map[string]*scheduling.Node{}
	var order []*scheduling.Node
	for _, n := range nodes {
		if n.Ready && !n.Deleting {
			cp := *n.Node
			cp.Pods = slices.Clone(n.Node.Pods)
			dest[n.Name()] = &cp
			order = append(order, &cp)
		}
	}
	budgets := newPDBBudgets(a.cfg.Cluster.PDBs(), a.allPods(nodes))
	var out []candidate
	nonEmpty := 0
	for _, c := range cands {
		if c.empty {
			out = append(out, c)
			delete(dest, c.node.Name())
			continue
		}
		if nonEmpty >= DefaultNonEmptyCandidatesCount {
			continue
		}
		nonEmpty++
		pods := movable(c.node)
		if why := a.blocked(pods, budgets); why != "" {
			continue
		}
		if why := budgets.blocksAll(pods); why != "" {
			continue
		}
		var others []*scheduling.Node
		for _, n := range order {
			if n.Name != c.node.Name() && dest[n.Name] != nil {
				others = append(others, n)
			}
		}
		res := scheduling.Solve(scheduling.Input{Pods: pods, Nodes: others, DaemonSets: a.cfg.Cluster.DaemonSets(), Options: a.cfg.Scheduling})
		if len(res.Unschedulable) > 0 {
			continue
		}
		byKey := map[string]*corev1.Pod{}
		for _, p := range pods {
			byKey[apis.PodKey(p)] = p
		}
		for _, b := range res.Bindings {
			if d := dest[b.Node]; d != nil {
				d.Pods = append(d.Pods, byKey[b.Pod])
			}
		}
		budgets.take(pods)
		delete(dest, c.node.Name())
		out = append(out, c)
	}
	return out
}

func (a *Autoscaler) allPods(nodes []*Node) []*corev1.Pod {
	var out []*corev1.Pod
	for _, n := range nodes {
		out = append(out, n.Node.Pods...)
	}
	return out
}

// utilization is the larger of the node's cpu and memory requests over its
// allocatable, DaemonSet pods included (--ignore-daemonsets-utilization
// is false by default).
func (a *Autoscaler) utilization(n *Node) float64 {
	req, ok := a.daemons[n.Name()]
	if !ok {
		req = a.daemonOverhead(n.Node)
		a.daemons[n.Name()] = req
	}
	for _, p := range n.Node.Pods {
		if apis.IsActive(p) {
			req = req.Add(a.facts(p).requests)
		}
	}
	alloc := resources.FromList(n.Node.Allocatable)
	u := 0.0
	if c := alloc.CPU(); c > 0 {
		u = float64(req.CPU()) / float64(c)
	}
	if m := alloc.Memory(); m > 0 {
		u = max(u, float64(req.Memory())/float64(m))
	}
	return u
}

// movable are the node's pods a drain moves: active, not mirror or
// DaemonSet pods.
func movable(n *Node) []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range n.Node.Pods {
		if apis.IsActive(p) && !apis.IsMirrorPod(p) && !apis.IsDaemonSetPod(p) {
			out = append(out, p)
		}
	}
	return out
}

// blocked says why CA's drain rules keep the pods where they are, "" when
// they may all go: the safe-to-evict annotation, pods without a
// controller, kube-system pods without a PDB, pods with local storage, and
// PDBs without disruptions left.
func (a *Autoscaler) blocked(pods []*corev1.Pod, budgets *pdbBudgets) string {
	for _, p := range pods {
		key := apis.PodKey(p)
		switch p.Annotations[annotationSafeToEvict] {
		case "true":
			if why := budgets.blocks(p); why != "" {
				return why
			}
			continue
		case "false":
			return fmt.Sprintf("pod %s has the %s=false annotation", key, annotationSafeToEvict)
		}
		if metav1.GetControllerOf(p) == nil {
			return fmt.Sprintf("pod %s is not replicated (no controller)", key)
		}
		if a.st.skipSystemPods && apis.NamespaceOf(p.Namespace) == namespaceKubeSystem && !budgets.covers(p) {
			return fmt.Sprintf("non-daemonset, non-mirror, non-pdb-assigned kube-system pod %s", key)
		}
		if a.st.skipLocalStorage && hasLocalStorage(p) {
			return fmt.Sprintf("pod %s has local storage", key)
		}
		if why := budgets.blocks(p); why != "" {
			return why
		}
	}
	return ""
}

func hasLocalStorage(p *corev1.Pod) bool {
	for _, v := range p.Spec.Volumes {
		// An emptyDir in memory is not local storage to CA.
		if v.HostPath != nil || (v.EmptyDir != nil && v.EmptyDir.Medium != corev1.StorageMediumMemory) {
			return true
		}
	}
	return false
}

// Unremovable says, for every group node CA would not remove now, why:
// utilization, drain rules, no room elsewhere. It is for explanations
// and tests; the scan does not use it.
func (a *Autoscaler) Unremovable() map[string]string {
	out := map[string]string{}
	nodes := a.cfg.Cluster.Nodes()
	removable := map[string]bool{}
	for _, c := range a.findUnneeded(nodes) {
		removable[c.node.Name()] = true
	}
	budgets := newPDBBudgets(a.cfg.Cluster.PDBs(), a.allPods(nodes))
	for _, n := range nodes {
		if removable[n.Name()] || a.byName[n.Group] == nil {
			continue
		}
		switch u := a.utilization(n); {
		case !n.Ready:
			out[n.Name()] = "not ready"
		case u >= a.st.threshold:
			out[n.Name()] = fmt.Sprintf("utilization %.2f is not below %.2f", u, a.st.threshold)
		default:
			if why := cmp.Or(a.blocked(movable(n), budgets), budgets.blocksAll(movable(n))); why != "" {
				out[n.Name()] = why
			} else {
				out[n.Name()] = "its pods fit on no other node"
			}
		}
	}
	return out
}
