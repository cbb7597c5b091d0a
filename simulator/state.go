package simulator

import (
	"cmp"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// simNode is a node of the virtual cluster, from launch to deletion.
type simNode struct {
	node     *scheduling.Node
	claim    *apis.NodeClaim // nil for a node Karpenter does not manage
	instance cloud.Instance
	pool     string
	price    float64
	// registered and initialized follow the cloud's timings.
	registered, initialized bool
	initializedAt           time.Time
	lastPodEventAt          time.Time
	nominatedAt             time.Time
	// cordoned nodes take no new pods (karpenter.sh/disrupted taint).
	cordoned bool
	drift    *consolidation.DriftStatus
	pods     map[string]*simPod
}

// simPod is a pod of the virtual cluster.
type simPod struct {
	key string // namespace/name
	pod *corev1.Pod
	// node is the node the pod is bound to, "" while pending.
	node string
	// pendingSince is when the pod last became pending.
	pendingSince time.Time
	// owner is the Deployment key that created the pod, "" for others.
	owner string
}

func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// sortedPods returns the values of m sorted by key.
func sortedPods(m map[string]*simPod) []*simPod {
	out := slices.Collect(maps.Values(m))
	slices.SortFunc(out, func(a, b *simPod) int { return cmp.Compare(a.key, b.key) })
	return out
}

// sortedNodes returns the nodes sorted by name.
func (s *sim) sortedNodes() []*simNode {
	out := slices.Collect(maps.Values(s.nodes))
	slices.SortFunc(out, func(a, b *simNode) int { return cmp.Compare(a.node.Name, b.node.Name) })
	return out
}

// schedulingNode refreshes the node's pod list for a solve. The pods are
// shared with the simulator; Solve does not change them.
func (n *simNode) schedulingNode() *scheduling.Node {
	pods := sortedPods(n.pods)
	n.node.Pods = n.node.Pods[:0]
	for _, p := range pods {
		n.node.Pods = append(n.node.Pods, p.pod)
	}
	n.node.Initialized = n.initialized
	return n.node
}

// pendingPods returns the pending pods, sorted by key.
func (s *sim) pendingPods() []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range sortedPods(s.pending) {
		out = append(out, p.pod)
	}
	return out
}

// nodePools returns the NodePools with catalogs whose offerings recently
// out of capacity are marked unavailable, sorted by name.
func (s *sim) nodePools() []scheduling.NodePool {
	entries := s.unavailable.Entries(s.now)
	out := make([]scheduling.NodePool, 0, len(s.pools))
	for _, name := range slices.Sorted(maps.Keys(s.pools)) {
		np := s.pools[name]
		catalog := s.catalogs[np.Spec.Template.Spec.NodeClassRef.Name]
		if len(entries) > 0 {
			catalog = s.withUnavailable(catalog)
		}
		out = append(out, scheduling.NodePool{NodePool: np, InstanceTypes: catalog})
	}
	return out
}

// withUnavailable copies the catalog's types that have an offering marked
// unavailable, with that offering's Available cleared. Requirements list
// every offering whether available or not, so a shallow copy with new
// offerings stays consistent.
func (s *sim) withUnavailable(c instancetypes.Catalog) instancetypes.Catalog {
	out := make(instancetypes.Catalog, len(c))
	for i, it := range c {
		out[i] = it
		var offerings []instancetypes.Offering
		for j, o := range it.Offerings {
			if o.Available && s.unavailable.IsUnavailable(o.CapacityType, it.Name, o.Zone, s.now) {
				if offerings == nil {
					offerings = slices.Clone(it.Offerings)
				}
				offerings[j].Available = false
			}
		}
		if offerings != nil {
			cp := *it
			cp.Offerings = offerings
			out[i] = &cp
		}
	}
	return out
}

// nodeLabels are the labels a node launched for claim gets: the instance
// type's, the offering's, the pool template's and every single-valued In
// requirement of the claim.
func nodeLabels(it *instancetypes.InstanceType, claim scheduling.NodeClaim, np *apis.NodePool) map[string]string {
	labels := it.Labels()
	for k, v := range np.Spec.Template.ObjectMeta.Labels {
		labels[k] = v
	}
	for _, r := range claim.Requirements {
		if r.Operator == corev1.NodeSelectorOpIn && len(r.Values) == 1 {
			labels[r.Key] = r.Values[0]
		}
	}
	labels[apis.LabelTopologyZone] = claim.Zone
	labels[apis.LabelCapacityType] = claim.CapacityType
	labels[apis.LabelNodePool] = np.Name
	labels[apis.LabelHostname] = claim.Name
	labels[apis.LabelInstanceType] = it.Name
	return labels
}

// newClaim is the NodeClaim object of a launched claim, stamped with the
// pool's and class's hashes and the AMI the class resolves now.
func (s *sim) newClaim(c scheduling.NodeClaim, labels map[string]string, np *apis.NodePool) *apis.NodeClaim {
	claim := &apis.NodeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Labels: maps.Clone(labels), CreationTimestamp: metav1.NewTime(s.now)},
	}
	claim.Spec.ExpireAfter = np.Spec.Template.Spec.ExpireAfter
	claim.Spec.TerminationGracePeriod = np.Spec.Template.Spec.TerminationGracePeriod
	claim.Spec.NodeClassRef = np.Spec.Template.Spec.NodeClassRef
	nc := s.classes[np.Spec.Template.Spec.NodeClassRef.Name]
	if nc != nil && len(nc.Status.AMIs) > 0 {
		claim.Status.ImageID = nc.Status.AMIs[0].ID
	}
	return stampClaim(claim, np, nc)
}

// consolidationCluster is the cluster as consolidation.Evaluate sees it.
func (s *sim) consolidationCluster() consolidation.Cluster {
	nodes := s.sortedNodes()
	out := consolidation.Cluster{
		Nodes:      make([]*consolidation.Node, 0, len(nodes)),
		Pending:    s.pendingPods(),
		NodePools:  make([]consolidation.NodePool, 0, len(s.pools)),
		DaemonSets: s.daemonSets,
		PDBs:       s.pdbs,
	}
	for _, n := range nodes {
		out.Nodes = append(out.Nodes, &consolidation.Node{
			Node: n.schedulingNode(), NodeClaim: n.claim, Deleting: n.cordoned,
			NominatedAt:   n.nominatedAt,
			InitializedAt: n.initializedAt, LastPodEventAt: n.lastPodEventAt, Drift: n.drift,
		})
	}
	for _, p := range s.nodePools() {
		out.NodePools = append(out.NodePools, consolidation.NodePool{NodePool: p.NodePool, InstanceTypes: p.InstanceTypes})
	}
	return out
}
