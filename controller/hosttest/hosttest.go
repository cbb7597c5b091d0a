// Package hosttest plays, in memory, the parts of a cluster that a
// controller.Runner relies on and Karpenter does not do itself: the kubelet,
// which turns a launched NodeClaim into a Node that joins and becomes Ready,
// and the kube-scheduler, which binds pending pods to nodes. Paired with
// cloud.MemoryCluster (the API server) and any cloud.Launcher, it makes a
// whole cluster a Runner can be tested against, on a manual clock or the
// wall clock.
//
// The host's side of the contract, which a real cluster keeps and this
// package keeps in memory:
//
//   - For every NodeClaim with a provider ID, a Node named after the claim
//     joins (at the instance's RegisteredAt when the launcher reports it,
//     else Config.RegisterAfter after the claim was created) with the
//     claim's provider ID, labels, capacity and allocatable, its taints and
//     startup taints, and a NodeReady condition that is False.
//   - The node becomes Ready (at the instance's InitializedAt, else
//     Config.ReadyAfter after it joined) and its startup taints are removed,
//     as the agents that own them do.
//   - Pending pods are bound only to nodes the Runner has labelled
//     initialized (karpenter.sh/initialized=true), and within what the
//     nodes allow: resources, taints (the Runner's karpenter.sh/disrupted
//     taint among them), selectors, affinity and topology spread. Placement
//     is scheduling.Solve's over existing nodes, Karpenter's own model of
//     the kube-scheduler, so the pods land where Karpenter expects them.
//   - Draining is the API server's: cloud.MemoryCluster.DeleteNode unbinds
//     a deleted node's pods, which become pending for the next pass.
package hosttest

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/scheduling"
)

// Cluster is the API server the host reads and writes: cloud.MemoryCluster
// is one.
type Cluster interface {
	Snapshot() cloud.ClusterState
	Apply(objects ...any) error
}

// Config sets the host's timings and how it schedules. The zero value joins
// nodes and makes them Ready at once, unless Instances dates them.
type Config struct {
	// RegisterAfter is how long after its NodeClaim was created a node
	// joins; ReadyAfter how long after joining it is Ready. Used for a
	// claim whose instance Instances does not report.
	RegisterAfter, ReadyAfter time.Duration
	// Instances, when set, reports the running instances
	// (cloud.Memory.Instances): a node joins at its instance's
	// RegisteredAt and is Ready at its InitializedAt.
	Instances func() []cloud.Instance
	// Scheduling are the options pods are bound with (default spread
	// constraints, ignored preferences).
	Scheduling scheduling.Options
}

// Host is the kubelet and kube-scheduler of one cluster. It keeps no state
// between steps: everything it knows is in the cluster.
type Host struct {
	cluster Cluster
	cfg     Config
}

// New returns the host of cluster.
func New(cluster Cluster, cfg Config) *Host {
	return &Host{cluster: cluster, cfg: cfg}
}

// Report is what one step did, each list sorted.
type Report struct {
	// Joined and Ready name the nodes that joined and became Ready.
	Joined, Ready []string
	// Bound are the pods bound, "namespace/name → node".
	Bound []string
}

// Step does, at now, what the kubelets and the kube-scheduler do: nodes join
// and become Ready when their time has come, then pending pods are bound.
// It returns the first write the cluster refused.
func (h *Host) Step(now time.Time) (Report, error) {
	var r Report
	if err := h.kubelet(now, &r); err != nil {
		return r, err
	}
	err := h.schedule(&r)
	return r, err
}

// Run steps every interval on the wall clock until ctx is done; onError,
// when set, receives what a step could not write and Run goes on, else Run
// returns the first such error. It returns nil when ctx is done.
func (h *Host) Run(ctx context.Context, every time.Duration, onError func(error)) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		if _, err := h.Step(time.Now()); err != nil {
			if onError == nil {
				return err
			}
			onError(err)
		}
	}
}

// kubelet joins the node of every claim whose time has come and makes
// joined nodes Ready when theirs has.
func (h *Host) kubelet(now time.Time, r *Report) error {
	st := h.cluster.Snapshot()
	instances := map[string]cloud.Instance{}
	if h.cfg.Instances != nil {
		for _, inst := range h.cfg.Instances() {
			instances[inst.NodeClaim] = inst
		}
	}
	nodes := map[string]*corev1.Node{}
	for _, n := range st.Nodes {
		nodes[n.Spec.ProviderID] = n
	}
	for _, c := range st.NodeClaims {
		if c.Status.ProviderID == "" || c.DeletionTimestamp != nil {
			continue
		}
		inst, known := instances[c.Name]
		node := nodes[c.Status.ProviderID]
		if node == nil {
			at := c.CreationTimestamp.Add(h.cfg.RegisterAfter)
			if known {
				at = inst.RegisteredAt
			}
			if now.Before(at) {
				continue
			}
			if err := h.cluster.Apply(joined(c, now)); err != nil {
				return fmt.Errorf("hosttest: node %s: %w", c.Name, err)
			}
			r.Joined = append(r.Joined, c.Name)
			continue
		}
		if isReady(node) {
			continue
		}
		at := node.CreationTimestamp.Add(h.cfg.ReadyAfter)
		if known {
			at = inst.InitializedAt
		}
		if now.Before(at) {
			continue
		}
		if err := h.cluster.Apply(ready(node, c)); err != nil {
			return fmt.Errorf("hosttest: node %s: %w", node.Name, err)
		}
		r.Ready = append(r.Ready, node.Name)
	}
	slices.Sort(r.Joined)
	slices.Sort(r.Ready)
	return nil
}

// joined is the Node of a claim as its kubelet registers it: not Ready,
// startup taints on.
func joined(c *apis.NodeClaim, now time.Time) *corev1.Node {
	n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: c.Name, Labels: maps.Clone(c.Labels), CreationTimestamp: metav1.NewTime(now)}}
	n.Spec.ProviderID = c.Status.ProviderID
	n.Spec.Taints = slices.Concat(c.Spec.Taints, c.Spec.StartupTaints)
	n.Status.Capacity, n.Status.Allocatable = c.Status.Capacity.DeepCopy(), c.Status.Allocatable.DeepCopy()
	n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionFalse}}
	return n
}

// ready is node Ready, without its claim's startup taints.
func ready(node *corev1.Node, c *apis.NodeClaim) *corev1.Node {
	n := node.DeepCopy()
	n.Status.Conditions = slices.DeleteFunc(n.Status.Conditions, func(cond corev1.NodeCondition) bool { return cond.Type == corev1.NodeReady })
	n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue})
	n.Spec.Taints = slices.DeleteFunc(n.Spec.Taints, func(t corev1.Taint) bool {
		return slices.ContainsFunc(c.Spec.StartupTaints, func(s corev1.Taint) bool { return s.MatchTaint(&t) })
	})
	return n
}

func isReady(n *corev1.Node) bool {
	return slices.ContainsFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool {
		return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	})
}

// schedule binds pending pods to initialized nodes, as Karpenter's solver
// places pods on existing nodes.
func (h *Host) schedule(r *Report) error {
	st := h.cluster.Snapshot()
	byName := map[string]*scheduling.Node{}
	var nodes []*scheduling.Node
	for _, n := range st.Nodes {
		if n.DeletionTimestamp != nil || n.Labels[apis.LabelNodeInitialized] != "true" || !isReady(n) {
			continue
		}
		sn := &scheduling.Node{Name: n.Name, NodePool: n.Labels[apis.LabelNodePool], Labels: n.Labels, Taints: n.Spec.Taints,
			Capacity: n.Status.Capacity, Allocatable: n.Status.Allocatable, Initialized: true}
		byName[n.Name] = sn
		nodes = append(nodes, sn)
	}
	pods := map[string]*corev1.Pod{}
	var pending []*corev1.Pod
	for _, p := range st.Pods {
		if p.DeletionTimestamp != nil || apis.IsTerminal(p) {
			continue
		}
		if n := byName[p.Spec.NodeName]; n != nil {
			n.Pods = append(n.Pods, p)
			continue
		}
		if p.Spec.NodeName == "" {
			pods[apis.PodKey(p)] = p
			pending = append(pending, p)
		}
	}
	if len(pending) == 0 || len(nodes) == 0 {
		return nil
	}
	res := scheduling.Solve(scheduling.Input{Pods: pending, Nodes: nodes, Options: h.cfg.Scheduling})
	bindings := slices.SortedFunc(slices.Values(res.Bindings), func(a, b scheduling.Binding) int { return cmp.Compare(a.Pod, b.Pod) })
	for _, b := range bindings {
		p := pods[b.Pod]
		if p == nil || b.Buffer || byName[b.Node] == nil {
			continue
		}
		bound := p.DeepCopy()
		bound.Spec.NodeName = b.Node
		bound.Status.Phase = corev1.PodRunning
		if err := h.cluster.Apply(bound); err != nil {
			return fmt.Errorf("hosttest: binding pod %s: %w", b.Pod, err)
		}
		r.Bound = append(r.Bound, b.Pod+" → "+b.Node)
	}
	return nil
}
