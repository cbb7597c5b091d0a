package simulator

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/provider"
)

// The virtual cluster is the controller's Cluster, and the event queue its
// Timers.
var (
	_ controller.Cluster = (*sim)(nil)
	_ controller.Timers  = (*sim)(nil)
)

// WakeAt queues a controller wake-up.
func (s *sim) WakeAt(at time.Time, w controller.Wake) {
	s.q.schedule(event{at: at, kind: evWake, index: int(w)})
}

// NodePools returns the NodePools, sorted by name.
func (s *sim) NodePools() []*apis.NodePool {
	out := make([]*apis.NodePool, 0, len(s.pools))
	for _, name := range slices.Sorted(maps.Keys(s.pools)) {
		out = append(out, s.pools[name])
	}
	return out
}

// NodeClass returns the named node class, nil if there is none.
func (s *sim) NodeClass(name string) provider.NodeClass {
	if nc, ok := s.classes[name]; ok {
		return nc
	}
	return nil
}

// Catalog returns the named node class's instance types.
func (s *sim) Catalog(nodeClass string) instancetypes.Catalog { return s.catalogs[nodeClass] }

// DaemonSets returns one pod per DaemonSet.
func (s *sim) DaemonSets() []*corev1.Pod { return s.daemonSets }

// PDBs returns the PodDisruptionBudgets.
func (s *sim) PDBs() []*policyv1.PodDisruptionBudget { return s.pdbs }

// Pending returns the pending pods, sorted by key.
func (s *sim) Pending() []*corev1.Pod { return s.pendingPods() }

// Nodes returns every node, sorted by name, with their pods when asked.
func (s *sim) Nodes(withPods bool) []*controller.Node {
	nodes := s.sortedNodes()
	out := make([]*controller.Node, len(nodes))
	for i, n := range nodes {
		if withPods {
			n.schedulingNode()
		}
		out[i] = &n.Node
	}
	return out
}

// Node returns the named node.
func (s *sim) Node(name string) *controller.Node {
	if n := s.nodes[name]; n != nil {
		return &n.Node
	}
	return nil
}

// Generation counts the virtual cluster's changes.
func (s *sim) Generation() uint64 { return s.generation }

// AddNode adds a launched node, in flight: its registration and
// initialization are queued at the instance's times.
func (s *sim) AddNode(_ context.Context, cn *controller.Node) error {
	s.addNode(&simNode{Node: *cn, pods: map[string]*simPod{}})
	return nil
}

// addNode adds a launched node and queues its registration and
// initialization.
func (s *sim) addNode(n *simNode) {
	name := n.Name()
	s.nodes[name] = n
	s.nodeOrder = nil
	s.generation++
	s.lifeBegins(n)
	registered, initialized := n.Instance.RegisteredAt, n.Instance.InitializedAt
	if registered.Before(s.now) {
		registered = s.now
	}
	if initialized.Before(registered) {
		initialized = registered
	}
	s.q.schedule(event{at: registered, kind: evRegistered, ref: name})
	s.q.schedule(event{at: initialized, kind: evInitialized, ref: name})
}

// Cordon sets the karpenter.sh/disrupted taint (apis.DisruptedTaint) on a node, or lifts it.
func (s *sim) Cordon(_ context.Context, cn *controller.Node, on bool) error {
	n := s.nodes[cn.Name()]
	if n == nil {
		return nil
	}
	n.Deleting = on
	s.generation++
	n.Node.Node.Taints = apis.WithDisruptedTaint(n.Node.Node.Taints, on)
	if !on {
		s.bindDirty = true
	}
	return nil
}

// Drain is one step of a node's drain (controller.Cluster.Drain): the
// virtual cluster is the API server whose eviction subresource answers
// from the PodDisruptionBudgets of this instant. An evicted pod becomes
// pending at once, its controller's replacement, and is bound or
// provisioned for as any pending pod; until it is, its PDB counts it
// unhealthy.
func (s *sim) Drain(_ context.Context, cn *controller.Node, force bool) (controller.DrainStatus, error) {
	n := s.nodes[cn.Name()]
	if n == nil {
		return controller.DrainStatus{Deleted: true}, nil
	}
	var st controller.DrainStatus
	if !force {
		if st = s.evict(n); st.Waiting > 0 {
			return st, nil
		}
	}
	st.Forced = s.deleteNode(n)
	st.Deleted = true
	return st, nil
}

// evict asks for the eviction of the node's pods that wait eviction, of
// the first group of controller.EvictionGroups that has any: those whose
// do-not-disrupt annotation is active are not asked for, the others go
// unless the Eviction API refuses them.
func (s *sim) evict(n *simNode) controller.DrainStatus {
	var waiting []*simPod
	for _, p := range sortedPods(n.pods) {
		if controller.AwaitsEviction(p.pod) {
			waiting = append(waiting, p)
		}
	}
	var st controller.DrainStatus
	if len(waiting) == 0 {
		return st
	}
	byPod := make(map[*corev1.Pod]*simPod, len(waiting))
	pods := make([]*corev1.Pod, len(waiting))
	for i, p := range waiting {
		byPod[p.pod], pods[i] = p, p.pod
	}
	var group []*corev1.Pod
	for _, g := range controller.EvictionGroups(pods) {
		if len(g) > 0 {
			group = g
			break
		}
	}
	// The Eviction API reads every pod and PDB: it is built only when a
	// pod is asked for, which a drain held by do-not-disrupt pods alone,
	// retried for as long as they run, never does.
	var api *consolidation.Evictions
	var granted []*corev1.Pod
	for _, p := range group {
		why := ""
		if blocked, reason := apis.DoNotDisrupt(p, s.now); blocked {
			why = fmt.Sprintf("pod %s is not evicted while its %s annotation is %s", apis.PodKey(p), apis.AnnotationDoNotDisrupt, reason)
		} else {
			if api == nil {
				api = s.evictions()
			}
			why = api.Evict(p)
		}
		if why == "" {
			granted = append(granted, p)
		} else if st.Refused == "" {
			st.Refused = why
		}
	}
	if s.check != nil && len(granted) > 0 {
		s.check.evicted(granted)
	}
	for _, p := range granted {
		sp := byPod[p]
		delete(n.pods, sp.key)
		s.lifePod(n.Name(), sp, -1)
		s.makePending(sp)
		s.res.Evictions++
	}
	if len(granted) > 0 {
		n.LastPodEventAt = s.now
	}
	st.Evicted, st.Waiting = len(granted), len(waiting)-len(granted)
	return st
}

// evictions is the Eviction API over the cluster as it is now.
func (s *sim) evictions() *consolidation.Evictions {
	all := make([]*corev1.Pod, 0, len(s.pods))
	bound := make(map[*corev1.Pod]bool, len(s.pods))
	for _, key := range slices.Sorted(maps.Keys(s.pods)) {
		p := s.pods[key]
		all = append(all, p.pod)
		if p.node != "" {
			bound[p.pod] = true
		}
	}
	return consolidation.NewEvictions(s.pdbs, all, bound)
}

// deleteNode deletes a node at once: the pods left on it go pending (their
// controllers replace them), and its cost so far is added up. It returns
// how many pods it took.
func (s *sim) deleteNode(n *simNode) int {
	evicted := 0
	for _, p := range sortedPods(n.pods) {
		s.makePending(p)
		evicted++
		s.res.Evictions++
	}
	delete(s.nodes, n.Name())
	s.nodeOrder = nil
	s.lifeEnds(n.Name(), true)
	// Pods already pending may have been waiting for this node (it was in
	// flight): provisioning looks at them again.
	s.provisionDirty = s.provisionDirty || len(s.pending) > 0
	s.costSoFar += n.PricePerHour * s.now.Sub(n.Instance.LaunchedAt).Hours()
	s.generation++
	return evicted
}
