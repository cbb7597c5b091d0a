package simulator

import (
	"cmp"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/clusterautoscaler"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/scheduling"
)

// simNode is a node of the virtual cluster, from launch to deletion: the
// controller's view of it, and the pods bound to it.
type simNode struct {
	controller.Node
	pods map[string]*simPod
	// ca is the node as the Cluster Autoscaler sees it, in its runs.
	ca *clusterautoscaler.Node
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

// sortedPods returns the values of m sorted by key.
func sortedPods(m map[string]*simPod) []*simPod {
	out := slices.Collect(maps.Values(m))
	slices.SortFunc(out, func(a, b *simPod) int { return cmp.Compare(a.key, b.key) })
	return out
}

// sortedNodes returns the nodes sorted by name: a list kept until a node
// is added or removed, which callers must not change. One they hold stays
// as it was when the nodes change.
func (s *sim) sortedNodes() []*simNode {
	if s.nodeOrder == nil {
		s.nodeOrder = slices.SortedFunc(maps.Values(s.nodes), func(a, b *simNode) int { return cmp.Compare(a.Name(), b.Name()) })
	}
	return s.nodeOrder
}

// schedulingNode refreshes the node's pod list for a solve. The pods are
// shared with the simulator; Solve does not change them.
func (n *simNode) schedulingNode() *scheduling.Node {
	pods := sortedPods(n.pods)
	sn := n.Node.Node
	sn.Pods = sn.Pods[:0]
	for _, p := range pods {
		sn.Pods = append(sn.Pods, p.pod)
	}
	sn.Initialized = n.Initialized
	return sn
}

// pendingPods returns the pending pods, sorted by key.
func (s *sim) pendingPods() []*corev1.Pod {
	var out []*corev1.Pod
	for _, p := range sortedPods(s.pending) {
		out = append(out, p.pod)
	}
	return out
}
