package snapshot

import (
	"cmp"
	"errors"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/dra"
	"github.com/karpsim/karpsim/drift"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
)

// Disruption is a Set as Karpenter's disruption controller sees it at one
// time: the input of consolidation.Evaluate, and the NodeClaims that have
// expired, which no disruption method handles.
type Disruption struct {
	// Cluster is what consolidation.Evaluate takes.
	Cluster consolidation.Cluster
	// Expired are the NodeClaims past creation + spec.expireAfter (see
	// drift.Expiry), sorted by NodeClaim name. Karpenter deletes them
	// whatever the budgets say; they stay in Cluster as they are, so the
	// caller reports them next to the decision.
	Expired []Expired
	// Warnings say what ForDisruption worked around, as Snapshot.Warnings
	// do.
	Warnings []string
	// DefaultSpread is kube-scheduler's default spread constraints, as in
	// Snapshot; the caller puts it in the scheduling options consolidation
	// simulates with.
	DefaultSpread *scheduling.DefaultSpread
	// DRA is set when the view models dynamic resource allocation
	// (Options.DRA): the caller simulates with scheduling.Options.DRA.
	DRA bool
	// Translator is package dra's translator of the view's DRA objects
	// under DRA, nil otherwise; the caller simulates with
	// scheduling.Options.Devices set to Devices().
	Translator *dra.Translator
	// DeviceAllocations are as in Snapshot: what the pending pods' claims
	// were given of the published devices no node owns.
	DeviceAllocations map[string][]string
}

// Devices is the view's device allocator for scheduling.Options.Devices:
// nil unless its DRA objects need one.
func (d *Disruption) Devices() scheduling.DeviceAllocator { return allocator(d.Translator) }

// Expired is one expired NodeClaim.
type Expired struct {
	NodeClaim string `json:"nodeClaim"`
	// Node is the claim's node; empty for a claim still in flight.
	Node     string `json:"node,omitempty"`
	NodePool string `json:"nodePool,omitempty"`
	// ExpiredAt is creationTimestamp + expireAfter, in UTC.
	ExpiredAt time.Time `json:"expiredAt"`
}

// ForDisruption builds the disruption view of a Set at now, on top of what
// FromSet builds. Beyond a Snapshot it keeps, per node:
//
//   - its NodeClaim, matched by status.nodeName or status.providerID as
//     FromSet matches them, and the node's annotations;
//   - Deleting for a node or claim with a deletionTimestamp: such nodes are
//     kept (FromSet leaves them out) with the pods bound to them, which
//     FromSet makes pending, so that they count against their NodePool's
//     budgets and their pods are rescheduled by every simulation;
//   - the terminating pods bound to it (FromSet drops them): consolidation
//     decides which of them still need a place (StatefulSet pods do);
//   - NotReady when the node's Ready condition is not True;
//   - Health: the node object's conditions and creationTimestamp, which
//     node repair matches against the repair policies;
//   - InitializedAt: the claim's Initialized condition's lastTransitionTime,
//     else the node's creationTimestamp; LastPodEventAt: the claim's
//     status.lastPodEventTime;
//   - Drift from the NodePool's provider (drift.Check) with the claim's
//     NodePool, its node class and catalog, and the node's kubelet
//     version, at now; Since is the claim's Drifted condition's
//     lastTransitionTime when it is True, else now. The claim's labels are
//     checked, as Karpenter does, unless it has no instance-type label; then
//     the node's are.
//
// Cluster.NodePools are every NodePool given (static ones and those being
// deleted too, which consolidation recognises), each with its catalog.
// The Set's CapacityBuffers' virtual pods are pending pods of the view
// (every consolidation simulation must find them room), and each node
// holds BufferPods: how many of them a provisioning pass at now places on
// it, which keeps emptiness away from it.
//
// ForDisruption returns FromSet's errors and never modifies the Set.
func ForDisruption(set *manifests.Set, opts Options, now time.Time) (*Disruption, error) {
	if set == nil {
		return nil, errors.New("snapshot: no manifests (nil Set)")
	}
	d, err := forDisruption(setObjects(set), opts, now)
	if err != nil {
		return nil, err
	}
	if err := d.finishFromSet(set, opts, now); err != nil {
		return nil, err
	}
	return d, nil
}

// finishFromSet gives a disruption view built from a Set its devices (under
// DRA) and the capacity buffers' virtual pods.
func (d *Disruption) finishFromSet(set *manifests.Set, opts Options, now time.Time) error {
	buffers := SetBufferPods(set, now)
	if opts.DRA {
		if err := manifests.JoinProblems(d.applyDRA(set, opts.Origin, &buffers)...); err != nil {
			return err
		}
	}
	if len(buffers) > 0 {
		d.placeBuffers(buffers)
	}
	return nil
}

// placeBuffers runs the provisioning pass that tells which nodes hold the
// buffers' room, as Karpenter's provisioner records it for emptiness, and
// adds the virtual pods to the pending ones.
func (d *Disruption) placeBuffers(buffers []*corev1.Pod) {
	c := &d.Cluster
	in := scheduling.Input{Pods: slices.Concat(c.Pending, buffers), DaemonSets: c.DaemonSets, Options: scheduling.Options{DRA: d.DRA, Devices: d.Devices()}}
	byName := map[string]*consolidation.Node{}
	for _, n := range c.Nodes {
		if n.Node != nil && !n.Deleting {
			in.Nodes = append(in.Nodes, n.Node)
			byName[n.Node.Name] = n
		}
	}
	for _, p := range c.NodePools {
		in.NodePools = append(in.NodePools, scheduling.Pool{NodePool: p.NodePool, InstanceTypes: p.InstanceTypes})
	}
	for _, b := range scheduling.Solve(in).Bindings {
		if n := byName[b.Node]; b.Buffer && n != nil {
			n.BufferPods++
		}
	}
	c.Pending = slices.Concat(c.Pending, buffers)
}

// FromState builds the disruption view of a watched cluster's state at now,
// as ForDisruption builds it from manifests: the same stages, straight from
// the objects the watcher holds. Errors name the objects at Options.Origin
// ("<no file>" by default). The state is never modified.
func FromState(state cloud.ClusterState, opts Options, now time.Time) (*Disruption, error) {
	return forDisruption(stateObjects(state), opts, now)
}

func forDisruption(in objects, opts Options, now time.Time) (*Disruption, error) {
	b, err := runStages(in, opts)
	if err != nil {
		return nil, err
	}
	snap := b.finish()
	return b.disruption(snap, snap.Warnings, now)
}

// disruption builds the disruption view at now from view, a finished
// snapshot's nodes and pending pods, which it adds deleting nodes and
// terminating pods to.
func (b *builder) disruption(view *Snapshot, warnings []string, now time.Time) (*Disruption, error) {
	pools := b.disruptionPools()
	if err := b.errs.Err(); err != nil {
		return nil, err
	}
	nodes, pending := b.disruptionNodes(view)
	for _, n := range nodes {
		b.describeNode(n, now)
	}
	return &Disruption{
		Cluster:       consolidation.Cluster{Nodes: nodes, Pending: pending, NodePools: pools, DaemonSets: view.DaemonSets, PDBs: view.PDBs},
		Expired:       b.expired(now),
		Warnings:      warnings,
		DefaultSpread: view.DefaultSpread,
	}, nil
}

// disruptionPools pairs every given NodePool with its catalog, by name. A
// NodePool whose status has no Ready condition while its node class's is
// not True gets Ready False, as Karpenter's NodePool readiness controller
// would set it (NodeClassReady): consolidation launches nothing from it and
// static drift does not terminate first there.
func (b *builder) disruptionPools() []scheduling.Pool {
	var out []scheduling.Pool
	for _, name := range slices.Sorted(maps.Keys(b.pools)) {
		np := b.pools[name]
		if catalog, ok := b.poolCatalog(np); ok {
			np = np.DeepCopy()
			if why := b.notReady(np); why != "" && meta.FindStatusCondition(np.Status.Conditions, readyCondition) == nil {
				np.Status.Conditions = append(np.Status.Conditions, metav1.Condition{Type: readyCondition, Status: metav1.ConditionFalse,
					Reason: "NodeClassNotReady", Message: why})
			}
			out = append(out, scheduling.Pool{NodePool: np, InstanceTypes: catalog})
		}
	}
	return out
}

// disruptionNodes returns the snapshot's nodes with the deleting ones added
// back, each with its terminating pods, sorted by name; and the pending pods
// less those of deleting nodes, which go back to their node.
func (b *builder) disruptionNodes(snap *Snapshot) ([]*consolidation.Node, []*corev1.Pod) {
	byName := map[string]*consolidation.Node{}
	for _, n := range snap.Nodes {
		byName[n.Name] = &consolidation.Node{Node: n}
	}
	for _, node := range b.in.Nodes {
		if b.deleting[node.Name] && byName[node.Name] == nil {
			byName[node.Name] = &consolidation.Node{Node: b.newNode(node, b.claims[node.Name]), Deleting: true}
		}
	}
	var pending []*corev1.Pod
	for _, p := range snap.Pending {
		if n := byName[p.Spec.NodeName]; n != nil && n.Deleting {
			n.Node.Pods = append(n.Node.Pods, p)
			continue
		}
		pending = append(pending, p)
	}
	for _, p := range b.held {
		if n := byName[p.Spec.NodeName]; n != nil {
			n.Node.Pods = append(n.Node.Pods, p)
		}
	}
	for _, given := range b.in.Pods {
		n := byName[given.Spec.NodeName]
		if n == nil || given.DeletionTimestamp == nil || apis.IsTerminal(given) {
			continue
		}
		if n.Deleting && apis.IsStatefulSetPod(given) {
			continue // pending in FromSet, and so back on its node above
		}
		p := given.DeepCopy()
		p.Namespace = apis.NamespaceOf(p.Namespace)
		if p.UID == "" {
			p.UID = derivedUID("Pod", p.Namespace, p.Name)
		}
		n.Node.Pods = append(n.Node.Pods, p)
	}
	out := make([]*consolidation.Node, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		n := byName[name]
		slices.SortFunc(n.Node.Pods, comparePods)
		if claim := b.claims[name]; claim != nil {
			n.NodeClaim = claim.DeepCopy()
		}
		out = append(out, n)
	}
	return out, pending
}

// describeNode fills in what the node and claim objects say about a node:
// annotations, deletion, readiness, times and drift.
func (b *builder) describeNode(n *consolidation.Node, now time.Time) {
	obj := b.nodeObject(n.Node.Name)
	claim := n.NodeClaim
	if obj != nil {
		n.Annotations = maps.Clone(obj.Annotations)
		n.NotReady = !isReady(obj)
		n.Deleting = n.Deleting || obj.DeletionTimestamp != nil
		n.InitializedAt = obj.CreationTimestamp.UTC()
		n.Health = &consolidation.NodeHealth{Conditions: slices.Clone(obj.Status.Conditions), Created: obj.CreationTimestamp.UTC()}
	}
	if claim == nil {
		return
	}
	n.Deleting = n.Deleting || claim.DeletionTimestamp != nil
	n.LastPodEventAt = claim.Status.LastPodEventTime.UTC()
	if c := claimCondition(claim, "Initialized"); c != nil && c.Status == metav1.ConditionTrue {
		n.InitializedAt = c.LastTransitionTime.UTC()
	} else if obj == nil {
		n.InitializedAt = claim.CreationTimestamp.UTC()
	}
	n.Drift = b.driftOf(n, now)
}

// driftOf runs drift.Check on the node's claim.
func (b *builder) driftOf(n *consolidation.Node, now time.Time) *consolidation.DriftStatus {
	claim := n.NodeClaim
	np := b.pools[n.Node.NodePool]
	if np == nil {
		return nil
	}
	className := b.nodeClassOf(np.Name, claim)
	p, class := b.classNamed(className)
	if class == nil {
		// The class is unknown: the pool's cloud skips its own checks.
		if pp, ok := b.providers.For(np.Spec.Template.Spec.NodeClassRef); ok {
			p = pp
		}
	}
	catalog, _ := b.catalogNamed(className)
	in := drift.Input{NodeClaim: claim, NodePool: np, InstanceTypes: catalog, Now: now}
	if claim.Labels[apis.LabelInstanceType] == "" {
		in.NodeLabels = n.Node.Labels
	}
	if obj := b.nodeObject(n.Node.Name); obj != nil {
		in.KubeletVersion = obj.Status.NodeInfo.KubeletVersion
	}
	r := p.Drift(in, class)
	if !r.Drifted {
		return nil
	}
	since := now
	if c := claimCondition(claim, "Drifted"); c != nil && c.Status == metav1.ConditionTrue {
		since = c.LastTransitionTime.Time
	}
	return &consolidation.DriftStatus{Reason: string(r.Reason), Detail: r.Detail, Since: since.UTC()}
}

// expired lists the claims, not being deleted, that have expired at now.
func (b *builder) expired(now time.Time) []Expired {
	var out []Expired
	for node, claim := range b.claims {
		if claim.DeletionTimestamp != nil {
			continue
		}
		if ok, at := drift.Expiry(claim, now); ok {
			e := Expired{NodeClaim: claim.Name, NodePool: claim.Labels[apis.LabelNodePool], ExpiredAt: at.UTC()}
			if b.nodeObject(node) != nil {
				e.Node = node
			}
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, c Expired) int { return cmp.Compare(a.NodeClaim, c.NodeClaim) })
	return out
}

func (b *builder) nodeObject(name string) *corev1.Node {
	for _, n := range b.in.Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func claimCondition(claim *apis.NodeClaim, t string) *metav1.Condition {
	for i := range claim.Status.Conditions {
		if claim.Status.Conditions[i].Type == t {
			return &claim.Status.Conditions[i]
		}
	}
	return nil
}

// LatestTime is the latest timestamp in the Set: creation and deletion
// times, condition transitions and heartbeats, pod start times and
// NodeClaims' last pod events. It is the moment a `kubectl get` snapshot
// was taken, near enough, in UTC; zero when the Set has no timestamp.
func LatestTime(set *manifests.Set) time.Time {
	_, latest := TimeRange(set)
	return latest
}

// TimeRange is the earliest and the latest timestamp in the Set (the
// timestamps LatestTime reads), in UTC; both zero when it has none. A time
// to evaluate at before the earliest is before the objects existed.
func TimeRange(set *manifests.Set) (earliest, latest time.Time) {
	see := func(t metav1.Time) {
		if t.IsZero() {
			return
		}
		if t.Time.After(latest) {
			latest = t.Time
		}
		if earliest.IsZero() || t.Time.Before(earliest) {
			earliest = t.Time
		}
	}
	meta := func(m metav1.ObjectMeta) {
		see(m.CreationTimestamp)
		if m.DeletionTimestamp != nil {
			see(*m.DeletionTimestamp)
		}
	}
	for _, n := range set.Nodes {
		meta(n.ObjectMeta)
		for _, c := range n.Status.Conditions {
			see(c.LastTransitionTime)
			see(c.LastHeartbeatTime)
		}
	}
	for _, c := range set.NodeClaims {
		meta(c.ObjectMeta)
		see(c.Status.LastPodEventTime)
		for _, cond := range c.Status.Conditions {
			see(cond.LastTransitionTime)
		}
	}
	for _, p := range set.Pods {
		meta(p.ObjectMeta)
		if p.Status.StartTime != nil {
			see(*p.Status.StartTime)
		}
		for _, c := range p.Status.Conditions {
			see(c.LastTransitionTime)
		}
	}
	for _, np := range set.NodePools {
		meta(np.ObjectMeta)
	}
	for _, pdb := range set.PodDisruptionBudgets {
		meta(pdb.ObjectMeta)
	}
	return earliest.UTC(), latest.UTC()
}
