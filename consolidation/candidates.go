package consolidation

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// poolInfo is a NodePool read once for an evaluation.
type poolInfo struct {
	name    string
	np      *apis.NodePool
	catalog instancetypes.Catalog
	// reqs are the template's requirements, minValues included.
	reqs requirements.Requirements
	// total and disrupting are the budget counts: managed nodes,
	// initialized or rebooting, not terminating, and those of them deleting
	// or rebooting; notReady are the others of them that are NotReady,
	// disrupting for every reason but Unhealthy (see disruptingFor).
	total, disrupting, notReady int
}

func (p *poolInfo) static() bool { return p.np.Spec.Replicas != nil }

// launches reports whether a simulation may launch a node from the pool:
// Karpenter's scheduler leaves out static NodePools, NodePools being
// deleted and those whose Ready condition is not True (provisioner.go
// NewScheduler).
func (p *poolInfo) launches() bool {
	return !p.static() && p.np.DeletionTimestamp == nil && !notReadyPool(p.np)
}

func (p *poolInfo) policy() apis.ConsolidationPolicy { return p.np.Spec.Disruption.ConsolidationPolicy }

// nodeInfo is a node read once for an evaluation: what the candidate rules,
// the costs, the order and the verdict need.
type nodeInfo struct {
	in       *Node
	name     string
	poolName string
	pool     *poolInfo // nil when the node's NodePool is not known
	// pods are the bound pods sorted by namespace/name; reschedulable are
	// those that need a new place when the node goes.
	pods, reschedulable []*corev1.Pod
	// cost is the RescheduleDisruptionCost; 1 means empty.
	cost float64
	it   *instancetypes.InstanceType
	// price is the node's offering price, 0 when unknown.
	price        float64
	capacityType string
	// blocked says why the node is no candidate for any method.
	blocked string
	// podBlock says why its pods stop graceful disruption (emptiness and
	// consolidation, and drift without a terminationGracePeriod).
	podBlock string
	// windowLeft is how long until consolidateAfter has passed; <= 0 once
	// it has. consolidationOff is set when consolidateAfter is Never.
	windowLeft       time.Duration
	consolidationOff bool
	// notes are what each method found about the node, in method order.
	notes []string
	// command is what the chosen command does with the node.
	command string
	// moving are the reschedulable pods the simulator places again, with
	// their shapes, read on the node's first simulation (simulator.own).
	moving *movingPods
	// reschedulableAt are the indexes in pods of the reschedulable pods.
	reschedulableAt []int
	// requests and pdbs are, per pod of pods, its requests and the PDBs
	// selecting it, read on first use (podRequests, podPDBs): a packed
	// cluster's nodes are read by several methods and simulations.
	requests []*resources.Vector
	pdbs     [][]*pdb
	// noDoNotDisrupt is set once podsBlock found no pod protected by
	// karpenter.sh/do-not-disrupt.
	noDoNotDisrupt bool
	// dest is the node as a simulations' destination, nil when it is
	// none (simulator.addNode).
	dest *destination
}

// podRequests are the requests of the node's pods, in pods order, shared
// through in; a pod whose requests cannot be read counts for what
// PodRequests returns with its error.
func (n *nodeInfo) podRequests(in *resources.Interner) []*resources.Vector {
	if n.requests == nil {
		n.requests = make([]*resources.Vector, len(n.pods))
		for i, p := range n.pods {
			r, _ := resources.PodRequests(p)
			n.requests[i] = in.Intern(r)
		}
	}
	return n.requests
}

// podPDBs are the PDBs selecting each of the node's pods, in pods order.
func (n *nodeInfo) podPDBs(idx pdbIndex) [][]*pdb {
	if n.pdbs == nil {
		n.pdbs = make([][]*pdb, len(n.pods))
		if len(idx) > 0 {
			for i, p := range n.pods {
				n.pdbs[i] = idx[p]
			}
		}
	}
	return n.pdbs
}

func (n *nodeInfo) empty() bool { return n.cost <= 1 }

func (n *nodeInfo) labels() map[string]string { return n.in.Node.Labels }

func (n *nodeInfo) note(format string, args ...any) {
	n.notes = append(n.notes, fmt.Sprintf(format, args...))
}

// savingsRatio orders consolidation candidates: price per unit of
// disruption, highest first.
func (n *nodeInfo) savingsRatio() float64 { return n.price / n.cost }

// readPools indexes the NodePools by name. A nil NodePool is skipped; two
// with one name keep the first.
func readPools(pools []scheduling.Pool) map[string]*poolInfo {
	out := map[string]*poolInfo{}
	for _, p := range pools {
		if p.NodePool == nil || out[p.NodePool.Name] != nil {
			continue
		}
		reqs, _ := requirements.FromNodePool(p.NodePool.Spec.Template)
		out[p.NodePool.Name] = &poolInfo{name: p.NodePool.Name, np: p.NodePool, catalog: p.InstanceTypes, reqs: reqs}
	}
	return out
}

// readNode reads one node: its NodePool, pods, costs and price, and the
// candidate rules that do not depend on the method.
func (e *evaluation) readNode(in *Node) *nodeInfo {
	n := &nodeInfo{in: in, cost: 1}
	if in.Node == nil {
		n.name, n.blocked = "<unnamed>", "has no node object"
		return n
	}
	n.name = in.Node.Name
	n.poolName = in.Node.Labels[apis.LabelNodePool]
	n.pool = e.pools[n.poolName]
	n.pods = slices.Clone(in.Node.Pods)
	slices.SortFunc(n.pods, func(a, b *corev1.Pod) int { return apis.ComparePodKeys(a, b) })
	for i, p := range n.pods {
		if isReschedulable(p) {
			if n.reschedulable == nil {
				n.reschedulable, n.reschedulableAt = make([]*corev1.Pod, 0, len(n.pods)-i), make([]int, 0, len(n.pods)-i)
			}
			n.reschedulable = append(n.reschedulable, p)
			n.reschedulableAt = append(n.reschedulableAt, i)
		}
	}
	n.cost = rescheduleDisruptionCost(n.reschedulable, e.opts.PodDeletionCostManagement)
	n.capacityType = in.Node.Labels[apis.LabelCapacityType]
	if n.pool != nil {
		n.it, _ = n.pool.catalog.Get(in.Node.Labels[apis.LabelInstanceType])
		n.price, _ = n.it.NodePrice(in.Node.Labels)
		n.readWindow(e.now)
	}
	n.blocked = e.nodeBlock(n)
	if n.blocked == "" {
		n.podBlock = e.podsBlock(n)
	}
	return n
}

// nodeBlock applies the node-level candidate rules of upstream's
// StateNode.ValidateNodeDisruptable and NewCandidate, in their order.
func (e *evaluation) nodeBlock(n *nodeInfo) string {
	in := n.in
	switch {
	case in.NodeClaim == nil:
		return "not managed by Karpenter (no NodeClaim)"
	case rebooting(in.NodeClaim):
		return "being rebooted (its NodeClaim's Rebooting condition is True)"
	case !in.Node.Initialized:
		return "not initialized"
	case in.Deleting || in.NodeClaim.DeletionTimestamp != nil || terminating(in.NodeClaim):
		return "being deleted"
	case !in.NominatedAt.IsZero() && e.now.Before(in.NominatedAt.Add(e.opts.nominationWindow())):
		return fmt.Sprintf("nominated for a pending pod (%s left)", in.NominatedAt.Add(e.opts.nominationWindow()).Sub(e.now))
	case in.Annotations[apis.AnnotationDoNotDisrupt] == "true":
		return fmt.Sprintf("has the %s: \"true\" annotation", apis.AnnotationDoNotDisrupt)
	case n.poolName == "":
		return fmt.Sprintf("has no %s label", apis.LabelNodePool)
	case n.pool == nil:
		return fmt.Sprintf("NodePool %s not found", n.poolName)
	case len(n.pool.catalog) == 0:
		return fmt.Sprintf("NodePool %s has no instance types", n.poolName)
	}
	return ""
}

// podsBlock applies the pod rules of StateNode.ValidatePodsDisruptable:
// first any pod protected by karpenter.sh/do-not-disrupt, then the PDBs.
func (e *evaluation) podsBlock(n *nodeInfo) string {
	for _, p := range n.pods {
		if ok, why := apis.DoNotDisrupt(p, e.now); ok {
			return fmt.Sprintf("pod %s has the %s annotation (%s)", apis.PodKey(p), apis.AnnotationDoNotDisrupt, why)
		}
	}
	n.noDoNotDisrupt = true
	pdbs := n.podPDBs(e.pdbs)
	for i, p := range n.pods {
		if why := blockedBy(p, pdbs[i], false); why != "" {
			return why
		}
	}
	return ""
}

// terminating reports the NodeClaim's InstanceTerminating condition: the
// instance is already being terminated.
func terminating(nc *apis.NodeClaim) bool {
	for _, c := range nc.Status.Conditions {
		if c.Type == "InstanceTerminating" {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// rebooting reports the NodeClaim's Rebooting condition (v1.15, node
// repair): a reboot is committed, from the drain until the node is back.
func rebooting(nc *apis.NodeClaim) bool {
	for _, c := range nc.Status.Conditions {
		if c.Type == "Rebooting" {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// readWindow works out consolidateAfter: it counts from the last pod event,
// or from initialization when the node has seen none.
func (n *nodeInfo) readWindow(now time.Time) {
	after := n.pool.np.Spec.Disruption.ConsolidateAfter
	if after.IsNever() {
		n.consolidationOff = true
		return
	}
	since := n.in.LastPodEventAt
	if since.IsZero() {
		since = n.in.InitializedAt
	}
	n.windowLeft = since.Add(*after.Duration).Sub(now)
}

// eventual reports whether a method of the eventual class (drift) may
// ignore the node's pod blocks: only when its NodeClaim has a
// terminationGracePeriod, which bounds how long they can hold the drain.
func (n *nodeInfo) eventual() bool {
	return n.in.NodeClaim.Spec.TerminationGracePeriod != nil
}

// gracefulBlock is why a graceful method (emptiness, consolidation) may not
// take the node, or "".
func (n *nodeInfo) gracefulBlock() string {
	return cmp.Or(n.blocked, n.podBlock)
}

// eventualBlock is why an eventual method (drift) may not take the node.
func (n *nodeInfo) eventualBlock() string {
	if n.blocked != "" || n.eventual() {
		return n.blocked
	}
	return n.podBlock
}

// consolidationBlock is why no consolidation method (emptiness included)
// may take the node, or "": the candidate rules, then static NodePools,
// consolidateAfter.
func (n *nodeInfo) consolidationBlock() string {
	if why := n.gracefulBlock(); why != "" {
		return why
	}
	switch {
	case n.pool.static():
		return fmt.Sprintf("NodePool %s is static (replicas set): it is not consolidated", n.poolName)
	case n.consolidationOff:
		return fmt.Sprintf("NodePool %s has consolidation disabled (consolidateAfter: Never)", n.poolName)
	case n.windowLeft > 0:
		return fmt.Sprintf("consolidateAfter %s not elapsed (%s left)", apis.FormatDuration(*n.pool.np.Spec.Disruption.ConsolidateAfter.Duration), n.windowLeft)
	}
	return ""
}

// underutilizedBlock is why neither multi- nor single-node consolidation
// may take the node, beyond consolidationBlock: emptiness handles empty
// nodes, WhenEmpty pools allow nothing else, and a price needs the instance
// type, zone and capacity type.
func (n *nodeInfo) underutilizedBlock() string {
	labels := n.labels()
	switch {
	case n.empty() && n.in.BufferPods > 0:
		// Karpenter v1.14 keeps a node that holds only the buffer's room:
		// it is no candidate of any method.
		return fmt.Sprintf("holds only %s: kept as the buffer's room", plural(n.in.BufferPods, "capacity-buffer pod"))
	case n.empty():
		return "empty: left to emptiness"
	case n.pool.policy() == apis.ConsolidationPolicyWhenEmpty:
		return fmt.Sprintf("NodePool %s has consolidation policy WhenEmpty and the node is not empty", n.poolName)
	case n.it == nil:
		return fmt.Sprintf("instance type %q not found in NodePool %s's catalog", labels[apis.LabelInstanceType], n.poolName)
	case labels[apis.LabelCapacityType] == "":
		return fmt.Sprintf("has no %s label", apis.LabelCapacityType)
	case labels[apis.LabelTopologyZone] == "":
		return fmt.Sprintf("has no %s label", apis.LabelTopologyZone)
	}
	return ""
}

// standingBlock is what stops every graceful method whatever the others
// find: pod blocks, consolidateAfter, the NodePool's policy.
func (n *nodeInfo) standingBlock() string {
	if why := n.consolidationBlock(); why != "" || (n.empty() && n.in.BufferPods == 0) {
		return why
	}
	return n.underutilizedBlock()
}
