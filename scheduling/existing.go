package scheduling

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/requirements"
	"github.com/karpsim/karpsim/resources"
)

// existingNode is a node or in-flight NodeClaim pods may be bound to.
type existingNode struct {
	node *Node
	// taints are those that count: a node that is not initialized yet
	// ignores its ephemeral and startup taints.
	taints []corev1.Taint
	labels requirements.Requirements
	// room is allocatable less the bound pods and the DaemonSet pods still
	// to come; placed pods are subtracted as they are bound.
	room      resources.Vector
	hostPorts []hostPort
	volumes   volumeUsage
	// limits are the node's CSI volume limits: its CSINode's, and for a
	// driver it has not published, its instance type's.
	limits map[string]int
	placed []*podInfo

	// alloc is the solve's DeviceAllocator; devices what the pods on the
	// node hold of its devices, and pending what they would hold with the
	// pod evaluate last passed.
	alloc            DeviceAllocator
	held             DeviceHoldings
	devices, pending any
}

// newExistingNodes reads the nodes and orders them as Karpenter tries them:
// initialized nodes first, then by name. The warnings name the bound pods
// whose requests could not be read. typeLimits are the volume limits of
// the instance types of each NodePool that states some (see
// typeVolumeLimits).
func newExistingNodes(nodes []*Node, daemons []*podInfo, vols *volumes, known map[*Node]*nodeBase, typeLimits map[string]instancetypes.Catalog) ([]*existingNode, []string) {
	out := make([]*existingNode, 0, len(nodes))
	var warnings []string
	for _, n := range nodes {
		e, w := newExistingNode(n, daemons, vols, known)
		e.limits = nodeVolumeLimits(n, typeLimits)
		out, warnings = append(out, e), append(warnings, w...)
	}
	slices.SortStableFunc(out, func(a, b *existingNode) int {
		if a.node.Initialized != b.node.Initialized {
			if a.node.Initialized {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.node.Name, b.node.Name)
	})
	return out, warnings
}

func newExistingNode(n *Node, daemons []*podInfo, vols *volumes, known map[*Node]*nodeBase) (*existingNode, []string) {
	b := readNode(n, daemons, known)
	// hostPorts is clipped so that the ports of pods placed here are
	// appended to a copy.
	e := &existingNode{node: n, taints: b.taints, labels: b.labels, room: b.room, hostPorts: slices.Clip(b.hostPorts), volumes: volumeUsage{}}
	for _, p := range n.Pods {
		if _, uses, err := vols.forPod(p); err == nil {
			e.volumes.add(uses)
		}
	}
	return e, b.warnings
}

// nodeBase is what a solve reads from an existing node before it places
// any pod there, but its volumes: the same in every solve over one *Node
// with the same DaemonSets, so that a Prepared remembering nodes reads it
// once (reading every bound pod's requests again in each of the hundreds
// of solves of a consolidation was most of their cost).
type nodeBase struct {
	taints    []corev1.Taint
	labels    requirements.Requirements
	room      resources.Vector
	hostPorts []hostPort
	warnings  []string
}

func readNode(n *Node, daemons []*podInfo, known map[*Node]*nodeBase) *nodeBase {
	if b, ok := known[n]; ok {
		return b
	}
	b := &nodeBase{taints: n.Taints, labels: nodeRequirements(n)}
	if !n.Initialized {
		b.taints = WithoutTransientTaints(n.Taints, n.StartupTaints)
	}
	var bound, boundDaemons resources.Vector
	for _, p := range n.Pods {
		requests, err := resources.BoundRequests(p)
		if err != nil {
			b.warnings = append(b.warnings, fmt.Sprintf("node %s: bound pod %s: %v; counted as one pod without requests", n.Name, apis.PodKey(p), err))
		}
		bound = bound.Add(requests)
		if apis.IsDaemonSetPod(p) {
			boundDaemons = boundDaemons.Add(requests)
		}
		b.hostPorts = append(b.hostPorts, podHostPorts(p)...)
	}
	// DaemonSet pods that would run here but are not bound yet still need
	// their room, as far as their requests exceed what is bound.
	var expected resources.Vector
	for _, d := range daemons {
		if d.invalid() != nil || tolerates(n.Taints, d.pod.Spec.Tolerations) != nil {
			continue
		}
		if slices.ContainsFunc(d.daemonReqs(), func(reqs requirements.Requirements) bool {
			return b.labels.CompatibleFast(reqs, requirements.DenyUndefined)
		}) {
			expected = expected.Add(*d.requests)
		}
	}
	remainingDaemons := expected.Sub(boundDaemons).Max(resources.Vector{})
	// The sums saturate (see resources): bound pods summing past 2^62
	// leave the node no room, and say so.
	if names := bound.Saturated(); len(names) > 0 {
		b.warnings = append(b.warnings, fmt.Sprintf("node %s: its bound pods request more %v than karpsim counts (2^62 units); the node takes no more pods", n.Name, names))
	}
	b.room = resources.FromList(n.Allocatable).Sub(bound).Sub(remainingDaemons)
	if known != nil {
		known[n] = b
	}
	return b
}

// tryAdd binds the pod to the node if evaluate passes it.
func (e *existingNode) tryAdd(p *podInfo, topo *topology) bool {
	if e.evaluate(p, topo, nil) != passed {
		return false
	}
	if topo != nil {
		topo.record(p, e.labels, e.node.Taints, requirements.DenyUndefined)
	}
	e.room = e.room.Sub(*p.requests)
	e.hostPorts = append(e.hostPorts, p.hostPorts()...)
	e.volumes.add(p.volumes())
	if e.alloc != nil && e.alloc.Claims(p.key) {
		e.devices = e.pending
		e.held[nodeHolder(e.node.Name)] = []any{e.devices}
	}
	e.placed = append(e.placed, p)
	return true
}

// explain says why tryAdd refuses the pod: the reason of the check that
// refuses it, a *refusal.
func (e *existingNode) explain(p *podInfo, s *solver) error {
	var why error
	if e.evaluate(p, s.topo, &why) == passed {
		return errNoCheckFailed
	}
	return why
}

// evaluate walks nodeChecks in order, Karpenter's: taints, volume limits,
// host ports, resources, then labels (the node's labels are final, so
// every label the pod requires must be there) and topology. It returns
// the first check that refuses the pod, or passed; when why is set, it
// also sets *why to the reason.
func (e *existingNode) evaluate(p *podInfo, topo *topology, why *error) check {
	if err := tolerates(e.taints, p.pod.Spec.Tolerations); err != nil {
		return refuse(why, checkTaints, func() error { return err })
	}
	if err := e.volumeLimitsExceeded(p); err != nil {
		return refuse(why, checkVolumeLimits, func() error { return err })
	}
	if err := portConflict(e.hostPorts, p.hostPorts()); err != nil {
		return refuse(why, checkHostPorts, func() error { return err })
	}
	if !p.requests.Fits(e.room) {
		return refuse(why, checkResources, func() error {
			return fmt.Errorf("not enough resources: %v exceeds what is left", p.requests.Exceeding(e.room))
		})
	}
	if !e.allocateOn(p) {
		return refuse(why, checkResources, func() error { return errDevicesTaken })
	}
	if !e.labels.CompatibleFast(p.reqs, requirements.DenyUndefined) {
		return refuse(why, checkRequirements, func() error { return e.labels.Compatible(p.reqs, requirements.DenyUndefined) })
	}
	if topo != nil && topo.constrains(p) {
		topoReqs, failed := topo.requirements(p, e.labels, e.node.Taints, requirements.DenyUndefined, nil)
		if failed != nil {
			return refuse(why, checkTopology, func() error { return fmt.Errorf("unsatisfiable %s", failed.describe()) })
		}
		if !admits(e.labels, topoReqs, requirements.DenyUndefined) {
			return refuse(why, checkTopology, func() error { return topologyMismatch(e.labels, topoReqs, requirements.DenyUndefined) })
		}
	}
	return passed
}

// volumeLimitsExceeded checks the pod's volumes against the node's CSI
// attach limits.
func (e *existingNode) volumeLimitsExceeded(p *podInfo) error {
	if len(p.volumes()) == 0 || len(e.limits) == 0 {
		return nil
	}
	return e.volumes.exceeds(p.volumes(), e.limits)
}

// typeVolumeLimits are the catalogs of the templates whose instance types
// limit some CSI driver's volumes, by NodePool; nil when none does, as with
// the AWS provider's types.
func typeVolumeLimits(templates []*template) map[string]instancetypes.Catalog {
	var out map[string]instancetypes.Catalog
	for _, t := range templates {
		if t.limitedCatalog == nil {
			continue
		}
		if out == nil {
			out = map[string]instancetypes.Catalog{}
		}
		out[t.name] = t.limitedCatalog
	}
	return out
}

// nodeVolumeLimits are the node's volume limits: its CSINode's
// (Node.VolumeLimits), and, for the drivers those do not name, the limits
// of its instance type in its NodePool's catalog, as Karpenter v1.15.0
// falls back to them until the CSINode publishes the driver (a node not
// registered yet, or whose CSI driver has not started).
func nodeVolumeLimits(n *Node, typeLimits map[string]instancetypes.Catalog) map[string]int {
	catalog, ok := typeLimits[n.NodePool]
	if !ok {
		return n.VolumeLimits
	}
	it, ok := catalog.Get(n.Labels[apis.LabelInstanceType])
	if !ok || len(it.VolumeAttachmentLimits) == 0 {
		return n.VolumeLimits
	}
	limits := maps.Clone(it.VolumeAttachmentLimits)
	maps.Copy(limits, n.VolumeLimits)
	return limits
}

// nodeRequirements are the node's labels as requirements, read from known
// when it holds them; a non-nil known remembers them.
func nodeRequirements(n *Node) requirements.Requirements {
	labels := n.Labels
	if _, ok := labels[apis.LabelHostname]; !ok {
		// The kubelet sets the hostname label; until it does, the node's
		// name stands in for it, as Karpenter counts topology.
		labels = maps.Clone(labels)
		if labels == nil {
			labels = map[string]string{}
		}
		labels[apis.LabelHostname] = n.Name
	}
	return requirements.FromLabels(labels)
}
