package simulator

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/karpsim/karpsim/azure"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/clusterautoscaler"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/provider"
)

// Autoscaler names the node autoscaler a run hosts.
type Autoscaler string

const (
	// AutoscalerKarpenter is Karpenter's loop, package controller: the
	// default.
	AutoscalerKarpenter Autoscaler = "karpenter"
	// AutoscalerClusterAutoscaler is the Cluster Autoscaler model, package
	// clusterautoscaler, over the scenario's clusterAutoscaler section.
	AutoscalerClusterAutoscaler Autoscaler = "cluster-autoscaler"
)

// Autoscalers are the autoscalers a run can host, Karpenter first; each
// call returns a new list.
func Autoscalers() []Autoscaler {
	return []Autoscaler{AutoscalerKarpenter, AutoscalerClusterAutoscaler}
}

// ParseAutoscaler reads an autoscaler's name; "" is Karpenter.
func ParseAutoscaler(name string) (Autoscaler, error) {
	switch Autoscaler(name) {
	case "", AutoscalerKarpenter:
		return AutoscalerKarpenter, nil
	case AutoscalerClusterAutoscaler:
		return AutoscalerClusterAutoscaler, nil
	}
	return "", fmt.Errorf("%w: autoscaler %q is neither karpenter nor cluster-autoscaler", ErrInvalidScenario, name)
}

// loop is the seam between the simulator's world (pods, kube-scheduler,
// cloud, steps, results) and the autoscaler it hosts. The world calls it
// as things happen; the autoscaler reads and changes the world through its
// own Cluster interface, which the simulator implements for each.
type loop interface {
	start(now time.Time)
	// trigger: pods became pending.
	trigger(now time.Time)
	// wake: a timer the autoscaler asked for is due.
	wake(ctx context.Context, w int, now time.Time)
	nodeReady(ctx context.Context, n *simNode, now time.Time)
	interrupted(ctx context.Context, n *simNode, notice cloud.Interruption, now time.Time)
	// nodeClassChanged: a NodePool or EC2NodeClass changed.
	nodeClassChanged()
	// explain says why the autoscaler leaves a pending pod pending, ""
	// when it keeps no such reasons.
	explain(pod string) string
}

// karpenterLoop hosts package controller; the sim itself is its Cluster
// and Timers (cluster.go).
type karpenterLoop struct {
	s *sim
	c *controller.Controller
}

func (k karpenterLoop) start(now time.Time)   { k.c.Start(now) }
func (k karpenterLoop) trigger(now time.Time) { k.c.Trigger(now) }
func (k karpenterLoop) wake(ctx context.Context, w int, now time.Time) {
	k.c.Wake(ctx, controller.Wake(w), now)
}
func (k karpenterLoop) nodeReady(ctx context.Context, n *simNode, now time.Time) {
	k.c.NodeReady(ctx, &n.Node, now)
}
func (k karpenterLoop) interrupted(ctx context.Context, n *simNode, notice cloud.Interruption, now time.Time) {
	k.c.Interrupted(ctx, &n.Node, notice, now)
}
func (k karpenterLoop) nodeClassChanged()     { k.c.NodeClassChanged() }
func (k karpenterLoop) explain(string) string { return "" }

// caLoop hosts the Cluster Autoscaler; caHost is its Cluster and Timers.
// CA scans on its own interval: pods becoming pending do not wake it, and
// NodePools and EC2NodeClasses are Karpenter's, not its.
type caLoop struct {
	s *sim
	a *clusterautoscaler.Autoscaler
}

func (c caLoop) start(now time.Time) { c.a.Start(c.s.ctx, now) }
func (c caLoop) trigger(time.Time)   {}
func (c caLoop) wake(ctx context.Context, w int, now time.Time) {
	c.a.Wake(ctx, clusterautoscaler.Wake(w), now)
}
func (c caLoop) nodeReady(_ context.Context, n *simNode, now time.Time) {
	v := c.s.caNode(n)
	v.Ready = true
	c.a.NodeReady(v, now)
}
func (c caLoop) interrupted(ctx context.Context, n *simNode, notice cloud.Interruption, now time.Time) {
	c.a.Interrupted(ctx, c.s.caNode(n), notice, now)
}
func (c caLoop) nodeClassChanged()         {}
func (c caLoop) explain(pod string) string { return c.a.Explain(pod) }

// caHost is the virtual cluster as the Cluster Autoscaler sees it.
type caHost struct{ s *sim }

var (
	_ clusterautoscaler.Cluster = caHost{}
	_ clusterautoscaler.Timers  = caHost{}
)

func (h caHost) WakeAt(at time.Time, w clusterautoscaler.Wake) {
	h.s.q.schedule(event{at: at, kind: evWake, index: int(w)})
}
func (h caHost) Pending() []*corev1.Pod                { return h.s.pendingPods() }
func (h caHost) DaemonSets() []*corev1.Pod             { return h.s.daemonSets }
func (h caHost) PDBs() []*policyv1.PodDisruptionBudget { return h.s.pdbs }
func (h caHost) Generation() uint64                    { return h.s.generation }
func (h caHost) Drain(_ context.Context, n *clusterautoscaler.Node) (int, error) {
	sn := h.s.nodes[n.Name()]
	if sn == nil {
		return 0, nil
	}
	// The Cluster Autoscaler planned the removal within the PDBs; its
	// drain is not modelled step by step.
	return h.s.deleteNode(sn), nil
}

// Nodes returns every node, sorted by name, with its pods.
func (h caHost) Nodes() []*clusterautoscaler.Node {
	nodes := h.s.sortedNodes()
	out := make([]*clusterautoscaler.Node, len(nodes))
	for i, n := range nodes {
		n.schedulingNode()
		out[i] = h.s.caNode(n)
	}
	return out
}

// AddNode adds a node an Auto Scaling Group launched.
func (h caHost) AddNode(_ context.Context, n *clusterautoscaler.Node) error {
	sn := &simNode{Node: controller.Node{StateNode: controller.StateNode{Node: n.Node}, Instance: n.Instance,
		PricePerHour: n.PricePerHour}, pods: map[string]*simPod{}, ca: n}
	h.s.addNode(sn)
	return nil
}

// caNode is the node as CA sees it, made once for nodes CA did not launch
// (those of the scenario's manifests) and kept in step with the node.
func (s *sim) caNode(n *simNode) *clusterautoscaler.Node {
	if n.ca == nil {
		n.ca = &clusterautoscaler.Node{Node: n.Node.Node, Instance: n.Instance, PricePerHour: n.PricePerHour}
	}
	n.ca.Ready, n.ca.Deleting = n.Initialized, n.Deleting
	return n.ca
}

// newCALoop builds the Cluster Autoscaler over the run's cluster.
func (s *sim) newCALoop() (loop, error) {
	var spec clusterautoscaler.Spec
	if s.sc.ClusterAutoscaler != nil {
		spec = *s.sc.ClusterAutoscaler
	}
	if s.cloud == provider.CloudAzure && len(spec.NodeGroups) == 0 {
		spec.NodeGroups = azureDefaultGroups(s.caCatalog)
	}
	a, err := clusterautoscaler.New(clusterautoscaler.Config{Spec: spec, Catalog: s.caCatalog, Cluster: caHost{s}, Launcher: s.launcher,
		Timers: caHost{s}, Record: func(d clusterautoscaler.Decision) { s.decide(Decision(d)) }, Seed: s.sc.Seed,
		Scheduling: s.cfg.Consolidation.Scheduling})
	if err != nil {
		return nil, fmt.Errorf("%w: clusterAutoscaler: %w", ErrInvalidScenario, err)
	}
	return caLoop{s: s, a: a}, nil
}

// azureDefaultGroupSize is the VM size of the default node group on Azure:
// a scale set of 4 vCPUs and 16 GiB, as the default group on AWS is an
// m5.xlarge Auto Scaling Group.
const azureDefaultGroupSize = "Standard_D4s_v3"

// azureDefaultGroups is the default node group on Azure: one on-demand VM
// scale set of azureDefaultGroupSize over the size's zones (its regional
// offering, zone "0", is not a zone a scale set spans), min 0, max
// clusterautoscaler.DefaultGroupMax.
func azureDefaultGroups(catalog instancetypes.Catalog) []clusterautoscaler.NodeGroup {
	var zones []string
	if it, ok := catalog.Get(azureDefaultGroupSize); ok {
		for _, o := range it.Offerings {
			if o.Zone != azure.RegionalZone && !slices.Contains(zones, o.Zone) {
				zones = append(zones, o.Zone)
			}
		}
	}
	slices.Sort(zones)
	groups := clusterautoscaler.DefaultNodeGroups(zones)
	groups[0].InstanceTypes = []string{azureDefaultGroupSize}
	return groups
}
