package consolidation

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/karpsim/karpsim/apis"
)

// Evictions answers eviction requests as the API server's eviction
// subresource answers them, from the PodDisruptionBudgets and pods of one
// instant: a pod no PDB selects goes; a pod that is not bound, or already
// finished or terminating, goes without its PDB being asked; a pod several
// PDBs select is refused (the subresource supports one); a pod whose PDB
// has no disruption left is refused (the API's 429), unless the PDB lets
// unhealthy pods go and the pod is not ready. Each eviction granted spends
// one of its PDB's disruptions, so that a drain asking for several pods at
// once gets no more than the PDB allows.
type Evictions struct {
	idx   pdbIndex
	bound map[*corev1.Pod]bool
}

// NewEvictions reads the PDBs over every pod of the cluster (pending ones
// included: they count as expected, not healthy); bound are the pods on
// nodes. Allowances are computed as newPDBIndex computes them for
// disruption candidates.
func NewEvictions(pdbs []*policyv1.PodDisruptionBudget, all []*corev1.Pod, bound map[*corev1.Pod]bool) *Evictions {
	return &Evictions{idx: newPDBIndex(pdbs, all, func(p *corev1.Pod) bool { return bound[p] }), bound: bound}
}

// Evict asks for the pod's eviction: "" when it is granted (and its PDB's
// allowance spent), otherwise why it is refused, naming the pod and PDB.
func (e *Evictions) Evict(p *corev1.Pod) string {
	if !e.bound[p] || !apis.IsActive(p) {
		return ""
	}
	matching := e.idx[p]
	switch {
	case len(matching) == 0:
		return ""
	case len(matching) > 1:
		return fmt.Sprintf("pod %s is selected by %d PDBs, and the eviction API supports one", apis.PodKey(p), len(matching))
	}
	b := matching[0]
	if b.evictUnhealthy && notReady(p) {
		return ""
	}
	if b.allowed <= 0 {
		return fmt.Sprintf("evicting pod %s would violate PDB %s (0 disruptions allowed)", apis.PodKey(p), b.key)
	}
	b.allowed--
	return ""
}
