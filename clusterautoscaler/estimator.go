package clusterautoscaler

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// estimate is CA's binpacking estimator on one group's template: pods in
// decreasing order of their share of the template, each on the first new
// node it fits, else on a new node while the group has room. Every pod
// given fits an empty template (fitCache checked it), so only resources,
// and pods that repel themselves, limit a node. It returns how many nodes
// the pods need and the pods placed.
func (a *Autoscaler) estimate(g *group, eqs []*equivalence, room int) (int, []*corev1.Pod) {
	free := g.allocatable.Sub(a.daemonOverhead(g.template))
	type bin struct {
		used resources.Vector
		has  map[string]bool // equivalences with a self-repelling pod here
	}
	var bins []*bin
	var placed []*corev1.Pod
	for _, eq := range sortByScore(eqs, g.allocatable) {
		for _, p := range eq.pods {
			fitted := false
			for _, b := range bins {
				if eq.onePerNode && b.has[eq.key] {
					continue
				}
				if next := b.used.Add(eq.requests); next.Fits(free) {
					b.used, fitted = next, true
					b.has[eq.key] = true
					break
				}
			}
			if !fitted {
				if len(bins) >= room || !eq.requests.Fits(free) {
					continue
				}
				bins = append(bins, &bin{used: eq.requests, has: map[string]bool{eq.key: true}})
			}
			placed = append(placed, p)
		}
	}
	return len(bins), placed
}

// daemonOverhead is what the DaemonSets that would run on the node
// request: those that tolerate its taints and whose selectors and required
// node affinity its labels satisfy.
func (a *Autoscaler) daemonOverhead(n *scheduling.Node) resources.Vector {
	var sum resources.Vector
	daemonSets := a.cfg.Cluster.DaemonSets()
	if len(daemonSets) == 0 {
		return sum
	}
	nodeReqs := requirements.FromLabels(n.Labels)
	for _, ds := range daemonSets {
		if !tolerates(ds, n.Taints) {
			continue
		}
		reqs, err := requirements.FromPod(ds, requirements.StrictOnly)
		if err != nil || nodeReqs.Compatible(reqs, requirements.DenyUndefined) != nil {
			continue
		}
		sum = sum.Add(podRequests(ds))
	}
	return sum
}

// tolerates says whether the pod tolerates every NoSchedule and NoExecute
// taint.
func tolerates(p *corev1.Pod, taints []corev1.Taint) bool {
	for i := range taints {
		t := &taints[i]
		if t.Effect == corev1.TaintEffectPreferNoSchedule {
			continue
		}
		ok := false
		for j := range p.Spec.Tolerations {
			if scheduling.ToleratesTaint(&p.Spec.Tolerations[j], t) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// podRequests are what a pod counts for (resources.BoundRequests); the
// simulator refuses pods whose requests cannot be read when it loads them.
func podRequests(p *corev1.Pod) resources.Vector {
	r, _ := resources.BoundRequests(p)
	return r
}
