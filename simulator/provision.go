package simulator

import (
	"fmt"
	"strings"
	"time"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
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
	for _, n := range s.sortedNodes() {
		if n.initialized && !n.cordoned {
			nodes = append(nodes, n.schedulingNode())
		}
	}
	if len(nodes) == 0 {
		return
	}
	res := scheduling.Solve(scheduling.Input{Pods: s.pendingPods(), Nodes: nodes, DaemonSets: s.daemonSets, Options: s.cfg.Consolidation.Scheduling})
	perNode := map[string]int{}
	var order []string
	for _, b := range res.Bindings {
		p, n := s.pending[b.Pod], s.nodes[b.Node]
		if p == nil || n == nil {
			continue
		}
		s.bindPod(p, n)
		if perNode[n.node.Name] == 0 {
			order = append(order, n.node.Name)
		}
		perNode[n.node.Name]++
	}
	for _, name := range order {
		s.decide(Decision{Kind: KindBind, Nodes: []string{name}, Pods: perNode[name],
			Reason: fmt.Sprintf("kube-scheduler bound %d pending pods to ready node %s", perNode[name], name)})
	}
}

// bindPod binds a pending pod and records how long it waited.
func (s *sim) bindPod(p *simPod, n *simNode) {
	delete(s.pending, p.key)
	p.node = n.node.Name
	p.pod.Spec.NodeName = n.node.Name
	n.pods[p.key] = p
	n.lastPodEventAt = s.now
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

// trigger opens a provisioning batch or extends the open one: the batch
// closes 1 s after the last pod event, or 10 s after it opened.
func (s *sim) trigger() {
	if s.batchStart.IsZero() {
		s.batchStart = s.now
	}
	s.batchLast = s.now
	s.q.schedule(event{at: s.batchDeadline(), kind: evBatchCheck})
}

func (s *sim) batchDeadline() time.Time {
	idle, limit := s.batchLast.Add(BatchIdleDuration), s.batchStart.Add(BatchMaxDuration)
	if idle.Before(limit) {
		return idle
	}
	return limit
}

// batchCheck provisions when the open batch is due; an earlier check left
// over from a batch that was extended does nothing. With no batch open the
// check is a retry for pods that fit nowhere, and opens one.
func (s *sim) batchCheck() {
	if s.batchStart.IsZero() {
		if len(s.pending) > 0 {
			s.trigger()
		}
		return
	}
	if s.now.Before(s.batchDeadline()) {
		return
	}
	s.batchStart, s.batchLast = time.Time{}, time.Time{}
	s.provision()
}

// provision is one provisioning pass: every pending pod against every live
// node (initialized or in flight, not cordoned) and every NodePool; pods
// that fit a node are nominated to it, new NodeClaims are launched.
func (s *sim) provision() {
	if len(s.pending) == 0 {
		return
	}
	var nodes []*scheduling.Node
	for _, n := range s.sortedNodes() {
		if !n.cordoned {
			nodes = append(nodes, n.schedulingNode())
		}
	}
	res := scheduling.Solve(scheduling.Input{Pods: s.pendingPods(), Nodes: nodes, NodePools: s.nodePools(),
		DaemonSets: s.daemonSets, Options: s.cfg.Consolidation.Scheduling})
	for _, b := range res.Bindings {
		if n := s.nodes[b.Node]; n != nil {
			n.nominatedAt = s.now
		}
	}
	iced := false
	for _, c := range res.NodeClaims {
		if _, err := s.launch(c, "provisioning", fmt.Sprintf("%d pending pods", len(c.Pods))); err != nil {
			iced = true
		}
	}
	switch {
	case iced:
		// The pods of a failed launch go into the next batch, which sees
		// the offering unavailable.
		s.q.schedule(event{at: s.now.Add(BatchIdleDuration), kind: evBatchCheck})
	case len(res.Unschedulable) > 0:
		u := res.Unschedulable[0]
		why := fmt.Sprintf("%d pods fit nowhere; first, %s: %s", len(res.Unschedulable), u.Pod, u.Reason)
		// A retry that finds the same pods stuck for the same reason is
		// not news.
		if why != s.lastUnschedulable {
			s.decide(Decision{Kind: KindUnschedulable, Pods: len(res.Unschedulable), Reason: why})
		}
		s.lastUnschedulable = why
		s.q.schedule(event{at: s.now.Add(UnschedulableRetry), kind: evBatchCheck})
	default:
		s.lastUnschedulable = ""
	}
}

// launch creates a NodeClaim through the launcher and adds it as an
// in-flight node. An insufficient-capacity error marks the offering
// unavailable for pricing.DefaultUnavailableTTL.
func (s *sim) launch(c scheduling.NodeClaim, why, detail string) (*simNode, error) {
	np := s.pools[c.NodePool]
	catalog := s.catalogs[np.Spec.Template.Spec.NodeClassRef.Name]
	it, ok := catalog.Get(c.InstanceType)
	if !ok {
		err := fmt.Errorf("instance type %s is not in NodePool %s's catalog", c.InstanceType, c.NodePool)
		s.decide(Decision{Kind: KindLaunchFailed, Reason: err.Error()})
		return nil, err
	}
	s.claimNo[c.NodePool]++
	c.Name = fmt.Sprintf("%s-%05d", c.NodePool, s.claimNo[c.NodePool])
	req := cloud.LaunchRequest{NodeClaim: c.Name, NodePool: c.NodePool, InstanceType: c.InstanceType, Zone: c.Zone,
		CapacityType: c.CapacityType, PricePerHour: c.PricePerHour}
	inst, err := s.launcher.Create(s.ctx, req)
	if err != nil {
		if ice, ok := cloud.IsInsufficientCapacity(err); ok {
			s.unavailable.MarkUnavailable(ice.CapacityType, ice.InstanceType, ice.Zone, s.now)
		}
		s.res.LaunchFailures++
		s.decide(Decision{Kind: KindLaunchFailed, InstanceType: c.InstanceType, Zone: c.Zone, CapacityType: c.CapacityType,
			Reason: fmt.Sprintf("%s launch of %s failed: %v", why, c.Name, err)})
		return nil, err
	}
	// A launcher on another clock may date the instance in the past: the
	// simulation counts it from now, so costs and waits stay in simulated
	// time.
	if inst.LaunchedAt.Before(s.now) {
		inst.LaunchedAt = s.now
	}
	labels := nodeLabels(it, c, np)
	n := &simNode{
		node: &scheduling.Node{Name: c.Name, NodePool: c.NodePool, Labels: labels,
			Taints: np.Spec.Template.Spec.Taints, StartupTaints: np.Spec.Template.Spec.StartupTaints,
			Capacity: it.Capacity.List(), Allocatable: it.Allocatable().List()},
		claim: s.newClaim(c, labels, np), instance: inst, pool: c.NodePool, price: inst.PricePerHour,
		pods: map[string]*simPod{}, nominatedAt: s.now,
	}
	n.claim.Status.ProviderID = "aws:///" + inst.Zone + "/" + inst.ID
	s.nodes[c.Name] = n
	s.generation++
	s.res.Launches++
	registered, initialized := inst.RegisteredAt, inst.InitializedAt
	if registered.Before(s.now) {
		registered = s.now
	}
	if initialized.Before(registered) {
		initialized = registered
	}
	s.q.schedule(event{at: registered, kind: evRegistered, ref: c.Name})
	s.q.schedule(event{at: initialized, kind: evInitialized, ref: c.Name})
	s.decide(Decision{Kind: KindLaunch, Nodes: []string{c.Name}, Pods: len(c.Pods), InstanceType: c.InstanceType,
		Zone: c.Zone, CapacityType: c.CapacityType, PricePerHour: inst.PricePerHour,
		Reason: fmt.Sprintf("%s: %s; cheapest of %d options", why, detail, len(c.InstanceTypeOptions))})
	return n, nil
}

// removeNode deletes a node: its pods are evicted to pending, its instance
// is terminated, and its cost so far is added up.
func (s *sim) removeNode(n *simNode) []string {
	var evicted []string
	for _, p := range sortedPods(n.pods) {
		evicted = append(evicted, p.key)
		s.makePending(p)
		s.res.Evictions++
	}
	delete(s.nodes, n.node.Name)
	// Pods already pending may have been waiting for this node (it was in
	// flight): provisioning looks at them again.
	s.provisionDirty = s.provisionDirty || len(s.pending) > 0
	s.costSoFar += n.price * s.now.Sub(n.instance.LaunchedAt).Hours()
	s.generation++
	if err := s.launcher.Delete(s.ctx, n.instance.ID); err != nil {
		s.decide(Decision{Kind: KindDeleteFailed, Nodes: []string{n.node.Name}, Reason: err.Error()})
	}
	return evicted
}

// cordon taints a node karpenter.sh/disrupted:NoSchedule, or lifts it.
func (s *sim) cordon(n *simNode, on bool) {
	n.cordoned = on
	s.generation++
	taints := n.node.Taints[:0:0]
	for _, t := range n.node.Taints {
		if t.Key != apis.Group+"/disrupted" {
			taints = append(taints, t)
		}
	}
	if on {
		taints = append(taints, disruptedTaint)
	}
	n.node.Taints = taints
	if !on {
		s.bindDirty = true
	}
}

func joinNames(names []string) string { return strings.Join(names, ", ") }
