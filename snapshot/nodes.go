package snapshot

import (
	"fmt"
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// addNodes turns the Set's nodes and NodeClaims into scheduling nodes. A
// node and the NodeClaim that launched it (matched by the claim's
// status.nodeName or status.providerID) are one node; a NodeClaim without a
// node is in flight. Nodes and claims being deleted are no target: their
// names are kept so that their pods go pending again.
func (b *builder) addNodes() {
	claimOf, inFlight := b.matchClaims()
	for _, node := range b.in.Nodes {
		b.addNode(node, claimOf[node])
	}
	for _, claim := range inFlight {
		b.addInFlight(claim)
	}
}

// matchClaims pairs NodeClaims with the nodes they launched and returns the
// claims that have no node yet, in Set order.
func (b *builder) matchClaims() (map[*corev1.Node]*apis.NodeClaim, []*apis.NodeClaim) {
	byName := map[string]*corev1.Node{}
	byProviderID := map[string]*corev1.Node{}
	for _, n := range b.in.Nodes {
		byName[n.Name] = n
		if n.Spec.ProviderID != "" {
			byProviderID[n.Spec.ProviderID] = n
		}
	}
	claimOf := map[*corev1.Node]*apis.NodeClaim{}
	var inFlight []*apis.NodeClaim
	for _, claim := range b.in.NodeClaims {
		node := byName[claim.Status.NodeName]
		if node == nil && claim.Status.ProviderID != "" {
			node = byProviderID[claim.Status.ProviderID]
		}
		switch {
		case node == nil:
			inFlight = append(inFlight, claim)
		case claimOf[node] != nil:
			b.warn(fmt.Sprintf("NodeClaim/%s and NodeClaim/%s both claim Node/%s: the second is ignored", claimOf[node].Name, claim.Name, node.Name))
		default:
			claimOf[node] = claim
		}
	}
	return claimOf, inFlight
}

// addNode files a node, with the NodeClaim that launched it if any, or
// notes it as deleting.
func (b *builder) addNode(node *corev1.Node, claim *apis.NodeClaim) {
	if claim != nil {
		b.claims[node.Name] = claim
	}
	if node.DeletionTimestamp != nil || (claim != nil && claim.DeletionTimestamp != nil) {
		b.deleting[node.Name] = true
		return
	}
	b.nodes[node.Name] = b.newNode(node, claim)
}

// newNode converts a node, with the NodeClaim that launched it if any.
func (b *builder) newNode(node *corev1.Node, claim *apis.NodeClaim) *scheduling.Node {
	pool := node.Labels[apis.LabelNodePool]
	if pool == "" && claim != nil {
		pool = claim.Labels[apis.LabelNodePool]
	}
	n := &scheduling.Node{
		Name:        node.Name,
		NodePool:    pool,
		Labels:      maps.Clone(node.Labels),
		Taints:      apis.CopyTaints(node.Spec.Taints),
		Capacity:    node.Status.Capacity.DeepCopy(),
		Allocatable: node.Status.Allocatable.DeepCopy(),
	}
	if n.Labels == nil {
		n.Labels = map[string]string{}
	}
	b.clampAllocatable(n)
	// The node lifecycle controller taints cordoned nodes.
	if node.Spec.Unschedulable && !slices.ContainsFunc(n.Taints, isUnschedulableTaint) {
		n.Taints = append(n.Taints, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	switch {
	case claim != nil:
		n.Initialized = node.Labels[apis.LabelNodeInitialized] == "true"
	case pool != "":
		// Karpenter's cluster state manages only the nodes of its
		// NodeClaims and takes any other node as initialized
		// (state/statenode.go Initialized): its taints count in full
		// and, with DRA, its published devices are its own.
		n.Initialized = true
	default:
		n.Initialized = isReady(node)
	}
	if np := b.pools[pool]; np != nil {
		n.StartupTaints = apis.CopyTaints(np.Spec.Template.Spec.StartupTaints)
	} else if claim != nil {
		n.StartupTaints = apis.CopyTaints(claim.Spec.StartupTaints)
	}
	// A reboot in progress (Karpenter v1.15's node repair) fences the node
	// with a taint; Karpenter reads its taints as an uninitialized node's,
	// counting on its room coming back.
	if claim != nil && n.Initialized {
		if c := claimCondition(claim, "Rebooting"); c != nil && c.Status == metav1.ConditionTrue {
			n.Taints = scheduling.WithoutTransientTaints(n.Taints, n.StartupTaints)
		}
	}
	if pool != "" && b.pools[pool] == nil {
		b.warn(fmt.Sprintf("Node/%s belongs to NodePool %q, which was not given: the node counts against no NodePool's limits", node.Name, pool))
	}
	// Until the node is initialized its device plugins may not have
	// registered: Karpenter takes the NodeClaim's allocatable for every
	// resource the node still reports as zero.
	if !n.Initialized && claim != nil {
		for name, q := range claim.Status.Allocatable {
			if v, ok := n.Allocatable[name]; !ok || v.IsZero() {
				if n.Allocatable == nil {
					n.Allocatable = corev1.ResourceList{}
				}
				n.Allocatable[name] = q.DeepCopy()
			}
		}
	}
	if len(n.Allocatable) == 0 {
		if len(n.Capacity) > 0 {
			n.Allocatable = n.Capacity.DeepCopy()
		} else {
			b.resourcesFromCatalog(n, "Node/"+node.Name, b.nodeClassOf(pool, claim))
		}
	}
	n.VolumeLimits = b.volumeLimits(node.Name)
	return n
}

// volumeLimits are the volumes each CSI driver may attach to the node,
// from its CSINode (of the same name): the drivers that state an
// allocatable count. Karpenter reads them so, and a driver without a count
// limits nothing.
func (b *builder) volumeLimits(node string) map[string]int {
	if b.csiNodes == nil {
		b.csiNodes = make(map[string]*storagev1.CSINode, len(b.in.CSINodes))
		for _, c := range b.in.CSINodes {
			b.csiNodes[c.Name] = c
		}
	}
	c := b.csiNodes[node]
	if c == nil {
		return nil
	}
	var limits map[string]int
	for _, d := range c.Spec.Drivers {
		if d.Allocatable == nil || d.Allocatable.Count == nil {
			continue
		}
		if limits == nil {
			limits = map[string]int{}
		}
		limits[d.Name] = int(*d.Allocatable.Count)
	}
	return limits
}

// addInFlight converts a NodeClaim that has no node yet. Its labels are its
// NodePool's template labels, overridden by its own labels, overridden by
// its single-valued In requirements; its resources are its status's, or
// else its instance type's.
func (b *builder) addInFlight(claim *apis.NodeClaim) {
	name := claim.Status.NodeName
	if name == "" {
		name = claim.Name
	}
	if claim.DeletionTimestamp != nil {
		b.deleting[name] = true
		return
	}
	if _, taken := b.nodes[name]; taken {
		b.warn(fmt.Sprintf("NodeClaim/%s: a node named %q was given already: the claim is ignored", claim.Name, name))
		return
	}
	pool := claim.Labels[apis.LabelNodePool]
	labels := map[string]string{}
	if np := b.pools[pool]; np != nil {
		maps.Copy(labels, np.Spec.Template.ObjectMeta.Labels)
	}
	maps.Copy(labels, claim.Labels)
	for _, r := range claim.Spec.Requirements {
		if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
			labels[r.Key] = r.Values[0]
		}
	}
	if pool != "" {
		labels[apis.LabelNodePool] = pool
	}
	n := &scheduling.Node{
		Name:          name,
		NodePool:      pool,
		Labels:        labels,
		Taints:        apis.CopyTaints(claim.Spec.Taints),
		StartupTaints: apis.CopyTaints(claim.Spec.StartupTaints),
		Capacity:      claim.Status.Capacity.DeepCopy(),
		Allocatable:   claim.Status.Allocatable.DeepCopy(),
	}
	if len(n.Allocatable) == 0 {
		b.resourcesFromCatalog(n, "NodeClaim/"+claim.Name, b.nodeClassOf(pool, claim))
	}
	b.nodes[n.Name] = n
	b.claims[n.Name] = claim
}

// nodeClassOf names the EC2NodeClass of a node: its claim's, else its
// NodePool's; "" when neither is known.
func (b *builder) nodeClassOf(pool string, claim *apis.NodeClaim) string {
	if claim != nil && claim.Spec.NodeClassRef != nil && claim.Spec.NodeClassRef.Name != "" {
		return claim.Spec.NodeClassRef.Name
	}
	if np := b.pools[pool]; np != nil && np.Spec.Template.Spec.NodeClassRef != nil {
		return np.Spec.Template.Spec.NodeClassRef.Name
	}
	return ""
}

// resourcesFromCatalog gives a node that states no allocatable resources
// those of its instance type (the node.kubernetes.io/instance-type label)
// in its EC2NodeClass's catalog, and the labels the type implies that the
// node lacks. Without a known type nothing can be placed on the node.
func (b *builder) resourcesFromCatalog(n *scheduling.Node, object, className string) {
	typeName := n.Labels[apis.LabelInstanceType]
	if typeName == "" {
		b.warn(fmt.Sprintf("%s states no allocatable resources and no single instance type: no pod can be placed on it", object))
		return
	}
	catalog, ok := b.catalogNamed(className)
	if !ok {
		return
	}
	it, found := catalog.Get(typeName)
	if !found {
		b.warn(fmt.Sprintf("%s: instance type %q is not in the catalog: no pod can be placed on it", object, typeName))
		return
	}
	n.Capacity = it.Capacity.List()
	n.Allocatable = it.Allocatable().List()
	for _, r := range it.Requirements.Items() {
		if _, set := n.Labels[r.Key()]; !set && r.Operator() == corev1.NodeSelectorOpIn && r.Len() == 1 {
			n.Labels[r.Key()] = r.Values()[0]
		}
	}
}

func isReady(node *corev1.Node) bool {
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

func isUnschedulableTaint(t corev1.Taint) bool {
	return t.Key == corev1.TaintNodeUnschedulable && t.Effect == corev1.TaintEffectNoSchedule
}

// clampAllocatable caps each resource a node reports as allocatable at its
// capacity, with a warning naming the node and resource. The API server
// stores such a node (it does not compare the two), but no pod can use more
// than the node has: trusting allocatable would bind pods the kubelet then
// refuses.
func (b *builder) clampAllocatable(n *scheduling.Node) {
	for _, name := range slices.Sorted(maps.Keys(n.Allocatable)) {
		alloc := n.Allocatable[name]
		capacity, ok := n.Capacity[name]
		if !ok || alloc.Cmp(capacity) <= 0 {
			continue
		}
		b.warn(fmt.Sprintf("Node/%s: status.allocatable.%s %s is more than status.capacity.%s %s: karpsim uses the capacity", n.Name, name, alloc.String(), name, capacity.String()))
		n.Allocatable[name] = capacity.DeepCopy()
	}
}
