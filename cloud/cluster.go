package cloud

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/karpsim/karpsim/apis"
)

// MemoryCluster is a ClusterWatcher over a state the caller sets: the
// in-memory stand-in for an API server. Its zero value is an empty cluster.
type MemoryCluster struct {
	state ClusterState
}

var _ ClusterWatcher = (*MemoryCluster)(nil)

// Set replaces the cluster's state with a sorted deep copy of s.
func (m *MemoryCluster) Set(s ClusterState) { m.state = copyState(s) }

// Snapshot returns a deep copy of the state, sorted by namespace/name.
func (m *MemoryCluster) Snapshot() ClusterState { return copyState(m.state) }

func copyState(s ClusterState) ClusterState {
	out := ClusterState{
		Pods:       make([]*corev1.Pod, 0, len(s.Pods)),
		Nodes:      make([]*corev1.Node, 0, len(s.Nodes)),
		NodeClaims: make([]*apis.NodeClaim, 0, len(s.NodeClaims)),
		PDBs:       make([]*policyv1.PodDisruptionBudget, 0, len(s.PDBs)),
	}
	for _, p := range s.Pods {
		out.Pods = append(out.Pods, p.DeepCopy())
	}
	for _, n := range s.Nodes {
		out.Nodes = append(out.Nodes, n.DeepCopy())
	}
	for _, c := range s.NodeClaims {
		out.NodeClaims = append(out.NodeClaims, c.DeepCopy())
	}
	for _, p := range s.PDBs {
		out.PDBs = append(out.PDBs, p.DeepCopy())
	}
	slices.SortFunc(out.Pods, func(a, b *corev1.Pod) int { return cmpNames(a.Namespace, a.Name, b.Namespace, b.Name) })
	slices.SortFunc(out.Nodes, func(a, b *corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(out.NodeClaims, func(a, b *apis.NodeClaim) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(out.PDBs, func(a, b *policyv1.PodDisruptionBudget) int {
		return cmpNames(a.Namespace, a.Name, b.Namespace, b.Name)
	})
	return out
}

func cmpNames(ans, an, bns, bn string) int {
	return cmp.Or(cmp.Compare(ans, bns), cmp.Compare(an, bn))
}
