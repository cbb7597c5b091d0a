package controller

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/snapshot"
)

// liveCluster is a Cluster over a watched cluster: it reads the watcher's
// snapshot through package snapshot, and writes through a
// cloud.ClusterWriter. What it wrote is overlaid on the snapshots until the
// watcher reports it — informers lag behind their API server, and the loop
// must see its own NodeClaims and deletions at once, as Karpenter's
// in-memory cluster state does.
type liveCluster struct {
	watcher cloud.ClusterWatcher
	writer  cloud.ClusterWriter
	opts    snapshot.Options
	// now is the time of the runner's step, which views are built at.
	now time.Time

	// dirty asks the next read to take a new snapshot; generation counts
	// the snapshots taken for a change.
	dirty      bool
	generation uint64
	// err is why the last snapshot could not be read, nil when it could.
	err error

	// The overlay: NodeClaims created, nodes deleted and cordons set or
	// lifted that the watcher may not show yet, and the instances the
	// loop launched.
	created   map[string]*apis.NodeClaim
	deleted   map[string]bool
	cordons   map[string]bool
	instances map[string]cloud.Instance

	// The view built from the last snapshot.
	state    cloud.ClusterState
	pools    []*apis.NodePool
	classes  map[string]provider.NodeClass
	catalogs map[string]instancetypes.Catalog
	daemons  []*corev1.Pod
	pdbs     []*policyv1.PodDisruptionBudget
	pending  []*corev1.Pod
	nodes    []*Node
	byName   map[string]*Node
}

var _ Cluster = (*liveCluster)(nil)

func newLiveCluster(w cloud.ClusterWatcher, wr cloud.ClusterWriter, opts snapshot.Options) *liveCluster {
	opts.Origin = cmp.Or(opts.Origin, "cluster")
	return &liveCluster{watcher: w, writer: wr, opts: opts, dirty: true,
		created: map[string]*apis.NodeClaim{}, deleted: map[string]bool{}, cordons: map[string]bool{},
		instances: map[string]cloud.Instance{}}
}

// changed marks the view stale.
func (l *liveCluster) changed() { l.dirty = true }

// refresh rebuilds the view when it is stale.
func (l *liveCluster) refresh() {
	if !l.dirty {
		return
	}
	l.dirty = false
	l.generation++
	l.state = l.overlay(l.watcher.Snapshot())
	l.err = l.build()
}

// overlay applies the loop's own writes that the snapshot does not show
// yet, and forgets those it shows.
func (l *liveCluster) overlay(s cloud.ClusterState) cloud.ClusterState {
	claims := map[string]bool{}
	for _, c := range s.NodeClaims {
		claims[c.Name] = true
	}
	for name, c := range l.created {
		if claims[name] {
			delete(l.created, name)
			continue
		}
		s.NodeClaims = append(s.NodeClaims, c.DeepCopy())
	}
	slices.SortFunc(s.NodeClaims, func(a, b *apis.NodeClaim) int { return strings.Compare(a.Name, b.Name) })
	nodes := s.Nodes[:0]
	present := map[string]bool{}
	for _, n := range s.Nodes {
		present[n.Name] = true
		if l.deleted[n.Name] {
			continue
		}
		if on, set := l.cordons[n.Name]; set {
			if apis.HasDisruptedTaint(n.Spec.Taints) == on {
				delete(l.cordons, n.Name)
			} else {
				n.Spec.Taints = apis.WithDisruptedTaint(n.Spec.Taints, on)
			}
		}
		nodes = append(nodes, n)
	}
	s.Nodes = nodes
	for name := range l.deleted {
		if !present[name] && !slices.ContainsFunc(s.NodeClaims, func(c *apis.NodeClaim) bool { return claimOfNode(c, name) }) {
			delete(l.deleted, name)
		}
	}
	if len(l.deleted) > 0 {
		s.NodeClaims = slices.DeleteFunc(s.NodeClaims, func(c *apis.NodeClaim) bool {
			return l.deleted[c.Name] || l.deleted[c.Status.NodeName]
		})
		pods := s.Pods[:0]
		for _, p := range s.Pods {
			if l.deleted[p.Spec.NodeName] {
				if apis.IsDaemonSetPod(p) {
					continue
				}
				p.Spec.NodeName = ""
			}
			pods = append(pods, p)
		}
		s.Pods = pods
	}
	return s
}

// build reads the state into the view through snapshot.FromState: the
// disruption view's nodes become the loop's nodes as they are.
func (l *liveCluster) build() error {
	s := l.state
	d, err := snapshot.FromState(s, l.opts, l.now)
	l.pools, l.classes, l.catalogs = nil, map[string]provider.NodeClass{}, map[string]instancetypes.Catalog{}
	l.daemons, l.pdbs, l.pending, l.nodes, l.byName = nil, nil, nil, nil, map[string]*Node{}
	if err != nil {
		return err
	}
	for _, nc := range s.EC2NodeClasses {
		l.classes[nc.Name] = nc
	}
	for _, nc := range s.AKSNodeClasses {
		l.classes[nc.Name] = nc
	}
	// Without NodePools Karpenter provisions nothing: the snapshot's
	// default NodePool is for planning from bare workloads, not for a
	// live cluster.
	if len(s.NodePools) > 0 {
		for _, p := range d.Cluster.NodePools {
			l.pools = append(l.pools, p.NodePool)
			l.catalogs[p.NodePool.Spec.Template.Spec.NodeClassRef.Name] = p.InstanceTypes
		}
	}
	l.daemons, l.pdbs, l.pending = d.Cluster.DaemonSets, d.Cluster.PDBs, d.Cluster.Pending
	registered := map[string]bool{}
	kubelet := map[string]string{}
	for _, n := range s.Nodes {
		registered[n.Name] = true
		kubelet[n.Name] = n.Status.NodeInfo.KubeletVersion
	}
	for _, sn := range d.Cluster.Nodes {
		n := &Node{StateNode: *sn, Initialized: sn.Node.Initialized, Registered: registered[sn.Node.Name],
			KubeletVersion: kubelet[sn.Node.Name]}
		// Drift is the loop's to find; the snapshot's is not read.
		n.Drift = nil
		n.Deleting = n.Deleting || apis.HasDisruptedTaint(n.Node.Taints)
		l.describeInstance(n)
		l.nodes = append(l.nodes, n)
		l.byName[n.Name()] = n
	}
	return nil
}

// describeInstance fills in the node's instance: the one the loop launched,
// or what the node's labels, its NodeClaim and its pool's catalog say.
func (l *liveCluster) describeInstance(n *Node) {
	name := n.Name()
	if n.NodeClaim != nil {
		name = n.NodeClaim.Name
	}
	if inst, ok := l.instances[name]; ok {
		n.Instance, n.PricePerHour = inst, inst.PricePerHour
		return
	}
	labels := n.Node.Labels
	n.Instance = cloud.Instance{NodeClaim: name, InstanceType: labels[apis.LabelInstanceType],
		Zone: labels[apis.LabelTopologyZone], CapacityType: labels[apis.LabelCapacityType]}
	if n.NodeClaim != nil {
		id := n.NodeClaim.Status.ProviderID
		n.Instance.ID = id[strings.LastIndex(id, "/")+1:]
		n.Instance.LaunchedAt = n.NodeClaim.CreationTimestamp.UTC()
	}
	for _, np := range l.pools {
		if np.Name != n.Node.NodePool {
			continue
		}
		it, ok := l.catalogs[np.Spec.Template.Spec.NodeClassRef.Name].Get(n.Instance.InstanceType)
		if !ok {
			break
		}
		for _, o := range it.Offerings {
			if o.Zone == n.Instance.Zone && o.CapacityType == n.Instance.CapacityType {
				n.PricePerHour = o.Price
			}
		}
	}
	n.Instance.PricePerHour = n.PricePerHour
}

func (l *liveCluster) NodePools() []*apis.NodePool { l.refresh(); return l.pools }

func (l *liveCluster) NodeClass(name string) provider.NodeClass {
	l.refresh()
	if nc, ok := l.classes[name]; ok {
		return nc
	}
	return nil
}

func (l *liveCluster) Catalog(nodeClass string) instancetypes.Catalog {
	l.refresh()
	return l.catalogs[nodeClass]
}

func (l *liveCluster) DaemonSets() []*corev1.Pod { l.refresh(); return l.daemons }

func (l *liveCluster) PDBs() []*policyv1.PodDisruptionBudget { l.refresh(); return l.pdbs }

func (l *liveCluster) Pending() []*corev1.Pod { l.refresh(); return l.pending }

func (l *liveCluster) Nodes(bool) []*Node { l.refresh(); return l.nodes }

func (l *liveCluster) Node(name string) *Node { l.refresh(); return l.byName[name] }

func (l *liveCluster) Generation() uint64 { l.refresh(); return l.generation }

// AddNode creates the launched node's NodeClaim, Launched, with the
// resources and taints its node will have.
func (l *liveCluster) AddNode(ctx context.Context, n *Node) error {
	claim := n.NodeClaim.DeepCopy()
	claim.Spec.Taints = apis.CopyTaints(n.Node.Taints)
	claim.Spec.StartupTaints = apis.CopyTaints(n.Node.StartupTaints)
	claim.Status.Capacity = n.Node.Capacity.DeepCopy()
	claim.Status.Allocatable = n.Node.Allocatable.DeepCopy()
	setCondition(claim, "Launched", claim.CreationTimestamp.Time)
	if err := l.writer.CreateNodeClaim(ctx, claim); err != nil {
		return err
	}
	l.created[claim.Name] = claim
	l.instances[claim.Name] = n.Instance
	l.changed()
	return nil
}

// Cordon sets or lifts the karpenter.sh/disrupted taint on the node object;
// a claim with no node yet has nothing to taint.
func (l *liveCluster) Cordon(ctx context.Context, n *Node, on bool) error {
	l.refresh()
	obj := l.nodeObject(n.Name())
	if obj == nil || apis.HasDisruptedTaint(obj.Spec.Taints) == on {
		return nil
	}
	next := obj.DeepCopy()
	next.Spec.Taints = apis.WithDisruptedTaint(next.Spec.Taints, on)
	if err := l.writer.UpdateNode(ctx, next); err != nil {
		return err
	}
	l.cordons[n.Name()] = on
	l.changed()
	return nil
}

// Drain deletes the node and its NodeClaim through the writer, which
// evicts its pods and waits out refused evictions itself
// (cloud.ClusterWriter.DeleteNode), so that one step is the whole drain;
// force makes no difference, the writer's evictions always respect PDBs.
func (l *liveCluster) Drain(ctx context.Context, n *Node, _ bool) (DrainStatus, error) {
	evicted, err := l.writer.DeleteNode(ctx, n.Name())
	if err != nil {
		return DrainStatus{Evicted: evicted}, err
	}
	l.deleted[n.Name()] = true
	delete(l.created, n.Name())
	if n.NodeClaim != nil {
		delete(l.instances, n.NodeClaim.Name)
		delete(l.created, n.NodeClaim.Name)
	}
	l.changed()
	return DrainStatus{Evicted: evicted, Deleted: true}, nil
}

func (l *liveCluster) nodeObject(name string) *corev1.Node {
	for _, n := range l.state.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func (l *liveCluster) claimObject(name string) *apis.NodeClaim {
	for _, c := range l.state.NodeClaims {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// lifecycle does the work of Karpenter's NodeClaim lifecycle controller
// for every launched claim whose node has joined: Registered when the node
// appears (the claim's labels synced onto it), Initialized when the node
// is Ready with its startup taints gone and its resources reported. It
// returns the first write that failed.
func (l *liveCluster) lifecycle(ctx context.Context, now time.Time) error {
	l.refresh()
	byProvider := map[string]*corev1.Node{}
	for _, n := range l.state.Nodes {
		if n.Spec.ProviderID != "" {
			byProvider[n.Spec.ProviderID] = n
		}
	}
	for _, c := range slices.Clone(l.state.NodeClaims) {
		node := byProvider[c.Status.ProviderID]
		if c.Status.ProviderID == "" || node == nil || node.DeletionTimestamp != nil || c.DeletionTimestamp != nil {
			continue
		}
		if !conditionTrue(c, "Registered") {
			claim := c.DeepCopy()
			claim.Status.NodeName = node.Name
			setCondition(claim, "Registered", now)
			next := node.DeepCopy()
			if next.Labels == nil {
				next.Labels = map[string]string{}
			}
			// The claim's labels are synced onto the node, but for the
			// hostname, which is the kubelet's.
			for k, v := range c.Labels {
				if k != apis.LabelHostname {
					next.Labels[k] = v
				}
			}
			next.Labels[apis.LabelNodeRegistered] = "true"
			if err := l.write(ctx, claim, next); err != nil {
				return err
			}
			continue
		}
		if conditionTrue(c, "Initialized") || !nodeInitialized(node, c) {
			continue
		}
		claim := c.DeepCopy()
		setCondition(claim, "Initialized", now)
		next := node.DeepCopy()
		next.Labels[apis.LabelNodeInitialized] = "true"
		if err := l.write(ctx, claim, next); err != nil {
			return err
		}
	}
	return nil
}

// touchPodEvent sets a claim's lastPodEventTime, as Karpenter's pod-events
// controller does when a pod binds to its node or leaves it.
func (l *liveCluster) touchPodEvent(ctx context.Context, claimName string, now time.Time) error {
	c := l.claimObject(claimName)
	if c == nil {
		return nil
	}
	claim := c.DeepCopy()
	claim.Status.LastPodEventTime = metav1.NewTime(now)
	if err := l.writer.UpdateNodeClaim(ctx, claim); err != nil {
		return fmt.Errorf("NodeClaim %s: %w", claimName, err)
	}
	l.changed()
	return nil
}

// write updates a claim, then its node.
func (l *liveCluster) write(ctx context.Context, claim *apis.NodeClaim, node *corev1.Node) error {
	if err := l.writer.UpdateNodeClaim(ctx, claim); err != nil {
		return fmt.Errorf("NodeClaim %s: %w", claim.Name, err)
	}
	if err := l.writer.UpdateNode(ctx, node); err != nil {
		return fmt.Errorf("Node %s: %w", node.Name, err)
	}
	l.changed()
	return nil
}

// nodeInitialized says whether a registered node is ready for pods: Ready,
// none of its claim's startup taints left, and allocatable resources
// reported.
func nodeInitialized(node *corev1.Node, claim *apis.NodeClaim) bool {
	ready := slices.ContainsFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool {
		return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
	})
	if !ready || len(node.Status.Allocatable) == 0 {
		return false
	}
	for _, st := range claim.Spec.StartupTaints {
		if slices.ContainsFunc(node.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&st) }) {
			return false
		}
	}
	return true
}

func setCondition(c *apis.NodeClaim, kind string, now time.Time) {
	cond := metav1.Condition{Type: kind, Status: metav1.ConditionTrue, Reason: kind, LastTransitionTime: metav1.NewTime(now)}
	for i := range c.Status.Conditions {
		if c.Status.Conditions[i].Type == kind {
			c.Status.Conditions[i] = cond
			return
		}
	}
	c.Status.Conditions = append(c.Status.Conditions, cond)
}

func conditionTrue(c *apis.NodeClaim, kind string) bool {
	return slices.ContainsFunc(c.Status.Conditions, func(cond metav1.Condition) bool {
		return cond.Type == kind && cond.Status == metav1.ConditionTrue
	})
}

func claimOfNode(c *apis.NodeClaim, node string) bool {
	return c.Name == node || c.Status.NodeName == node
}
