package simulator

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/scheduling"
)

// bind is the in-memory kube-scheduler: it places pending pods on
// initialized, uncordoned nodes with scheduling.Solve and no NodePools, so
// the same checks as Karpenter's existing-node placement apply (taints,
// ports, resources, affinity, topology), and binds them.
func (s *sim) bind() {
	s.bindDirty = false
	if len(s.pending) == 0 {
		return
	}
	var nodes []*scheduling.Node
	ready := 0
	for _, n := range s.sortedNodes() {
		switch {
		case n.Deleting:
		case n.Initialized:
			nodes = append(nodes, n.schedulingNode())
			ready++
		case n.Registered:
			nodes = append(nodes, notReady(n.schedulingNode()))
		}
	}
	if ready == 0 {
		return
	}
	in := scheduling.Input{Pods: s.pendingPods(), Nodes: nodes, DaemonSets: s.daemonSets, Options: s.cfg.Consolidation.Scheduling}
	res := scheduling.Solve(in)
	if s.check != nil {
		s.check.planned(in, res, s.now)
	}
	perNode := map[string]int{}
	var order []string
	for _, b := range res.Bindings {
		p, n := s.pending[b.Pod], s.nodes[b.Node]
		if p == nil || n == nil {
			continue
		}
		s.bindPod(p, n)
		if perNode[n.Name()] == 0 {
			order = append(order, n.Name())
		}
		perNode[n.Name()]++
	}
	for _, name := range order {
		s.decide(Decision{Kind: KindBind, Nodes: []string{name}, Pods: perNode[name],
			Reason: fmt.Sprintf("kube-scheduler bound %d pending pods to ready node %s", perNode[name], name)})
	}
}

// notReady is a registered node that is not ready yet as kube-scheduler
// sees it: it takes no pod (the node lifecycle controller's not-ready
// NoSchedule taint), but its zone and hostname are topology domains, which
// spread constraints count as empty.
// The node is copied: the simulator's own stays as it is.
func notReady(n *scheduling.Node) *scheduling.Node {
	cp := *n
	cp.Taints = append(slices.Clone(n.Taints), corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule})
	cp.StartupTaints = nil
	cp.Initialized = true
	return &cp
}

// bindPod binds a pending pod and records how long it waited.
func (s *sim) bindPod(p *simPod, n *simNode) {
	delete(s.pending, p.key)
	p.node = n.Name()
	p.pod.Spec.NodeName = n.Name()
	n.pods[p.key] = p
	n.LastPodEventAt = s.now
	s.lifePod(n.Name(), p, 1)
	s.pendingTimes = append(s.pendingTimes, s.now.Sub(p.pendingSince))
	s.generation++
}

// makePending puts a pod (new or evicted) in the pending set.
func (s *sim) makePending(p *simPod) {
	p.node = ""
	p.pod.Spec.NodeName = ""
	p.pendingSince = s.now
	s.pending[p.key] = p
	s.bindDirty = true
	s.provisionDirty = true
	s.generation++
}
