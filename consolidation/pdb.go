package consolidation

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/scheduling"
)

// pdb is a PodDisruptionBudget read for eviction checks (Karpenter's
// pkg/utils/pdb).
type pdb struct {
	key string // namespace/name
	// allowed is how many of its pods may be evicted now.
	allowed int32
	// fullyBlocking: maxUnavailable 0 or 0%, or minAvailable 100%.
	fullyBlocking bool
	// evictUnhealthy: unhealthyPodEvictionPolicy AlwaysAllow lets pods that
	// are not ready go regardless of allowed.
	evictUnhealthy bool
	// alone is the index entry of a pod this PDB alone selects, shared
	// by those pods (full, so that appending to it copies).
	alone []*pdb
}

// pdbIndex holds, for every pod of the cluster, the PDBs that select it,
// sorted by name.
type pdbIndex map[*corev1.Pod][]*pdb

// newPDBIndex reads the PDBs. A PDB whose status the disruption controller
// has written (observedGeneration set) allows status.disruptionsAllowed;
// otherwise the allowance is computed from its spec and the pods it
// selects, as that controller computes it (see computeAllowed). A PDB whose
// selector cannot be read selects nothing. bound tells the pods on nodes;
// all are every pod of the cluster, pending ones included.
func newPDBIndex(pdbs []*policyv1.PodDisruptionBudget, all []*corev1.Pod, bound func(*corev1.Pod) bool) pdbIndex {
	if !slices.ContainsFunc(pdbs, func(b *policyv1.PodDisruptionBudget) bool { return b != nil }) {
		return pdbIndex{}
	}
	// Sized for every pod: PDBs usually cover most workloads, and growing
	// a map of a large cluster's pods costs more than the slack.
	idx := make(pdbIndex, len(all))
	byNamespace := podsByNamespace(all)
	sorted := slices.Clone(pdbs)
	slices.SortFunc(sorted, func(a, b *policyv1.PodDisruptionBudget) int {
		if a == nil || b == nil {
			return cmp.Compare(boolInt(a == nil), boolInt(b == nil))
		}
		return cmp.Or(cmp.Compare(apis.NamespaceOf(a.Namespace), apis.NamespaceOf(b.Namespace)), cmp.Compare(a.Name, b.Name))
	})
	byLabel := map[labelPair]map[string][]*corev1.Pod{}
	for _, b := range sorted {
		if b == nil {
			continue
		}
		ns := apis.NamespaceOf(b.Namespace)
		selector, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil {
			selector = labels.Nothing()
		}
		item := &pdb{key: ns + "/" + b.Name, fullyBlocking: isFullyBlocking(b.Spec),
			evictUnhealthy: b.Spec.UnhealthyPodEvictionPolicy != nil && *b.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow}
		item.alone = []*pdb{item}
		candidates, exact := narrow(byNamespace[ns], selector, byLabel, ns)
		var selected []*corev1.Pod
		if exact {
			selected = make([]*corev1.Pod, 0, len(candidates))
		}
		for _, p := range candidates {
			if exact || selector.Matches(labels.Set(p.Labels)) {
				if in := idx[p]; in == nil {
					idx[p] = item.alone
				} else {
					idx[p] = append(in, item)
				}
				if !apis.IsTerminal(p) {
					selected = append(selected, p)
				}
			}
		}
		item.allowed = b.Status.DisruptionsAllowed
		if b.Status.ObservedGeneration == 0 {
			item.allowed = computeAllowed(b.Spec, selected, bound)
		}
	}
	return idx
}

// podsByNamespace groups the pods by namespace, each group in the order
// given; when they all share one, the group is the slice given.
func podsByNamespace(all []*corev1.Pod) map[string][]*corev1.Pod {
	if len(all) > 0 {
		ns := apis.NamespaceOf(all[0].Namespace)
		if !slices.ContainsFunc(all, func(p *corev1.Pod) bool { return apis.NamespaceOf(p.Namespace) != ns }) {
			return map[string][]*corev1.Pod{ns: all}
		}
	}
	out := map[string][]*corev1.Pod{}
	for _, p := range all {
		out[apis.NamespaceOf(p.Namespace)] = append(out[apis.NamespaceOf(p.Namespace)], p)
	}
	return out
}

// narrow returns the pods of the namespace the selector may match: those
// carrying a value one of its equality or In requirements names, read from
// an index of the namespace's values of that label key built on first use;
// every pod when it has no such requirement. exact is set when that
// requirement is the selector's only one: the pods returned are those it
// matches.
func narrow(pods []*corev1.Pod, selector labels.Selector, byLabel map[labelPair]map[string][]*corev1.Pod, ns string) (_ []*corev1.Pod, exact bool) {
	reqs, _ := selector.Requirements()
	for _, r := range reqs {
		if op := r.Operator(); op != selection.Equals && op != selection.DoubleEquals && op != selection.In {
			continue
		}
		// Indexed by namespace and label key.
		index, ok := byLabel[labelPair{ns, r.Key()}]
		if !ok {
			index = map[string][]*corev1.Pod{}
			for _, p := range pods {
				if v, ok := p.Labels[r.Key()]; ok {
					index[v] = append(index[v], p)
				}
			}
			byLabel[labelPair{ns, r.Key()}] = index
		}
		var out []*corev1.Pod
		for _, v := range r.Values().UnsortedList() {
			out = append(out, index[v]...)
		}
		return out, len(reqs) == 1
	}
	return pods, false
}

// labelPair is a namespace and a label key (narrow).
type labelPair struct{ key, value string }

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// computeAllowed is the disruption controller's disruptionsAllowed: healthy
// pods less the desired healthy count, 0 when negative or when no pods are
// expected. Expected pods are the selected pods that are not terminal (the
// controller reads their controllers' scale, which karpsim does not have).
// Healthy pods are bound, not terminating, and not marked not-ready: a pod
// without a Ready condition counts as ready, since simulated pods seldom
// carry conditions.
func computeAllowed(spec policyv1.PodDisruptionBudgetSpec, selected []*corev1.Pod, bound func(*corev1.Pod) bool) int32 {
	expected := int32(len(selected))
	var healthy int32
	for _, p := range selected {
		if bound(p) && !apis.IsTerminating(p) && !notReady(p) {
			healthy++
		}
	}
	var desired int32
	switch {
	case spec.MaxUnavailable != nil:
		unavailable, err := intstr.GetScaledValueFromIntOrPercent(spec.MaxUnavailable, int(expected), true)
		if err != nil {
			return 0
		}
		desired = max(expected-int32(unavailable), 0)
	case spec.MinAvailable != nil && spec.MinAvailable.Type == intstr.Int:
		desired = spec.MinAvailable.IntVal
	case spec.MinAvailable != nil:
		available, err := intstr.GetScaledValueFromIntOrPercent(spec.MinAvailable, int(expected), true)
		if err != nil {
			return 0
		}
		desired = int32(available)
	default:
		// Neither field: the controller expects no pods and allows nothing.
		return 0
	}
	if expected <= 0 || healthy-desired <= 0 {
		return 0
	}
	return healthy - desired
}

func isFullyBlocking(spec policyv1.PodDisruptionBudgetSpec) bool {
	if u := spec.MaxUnavailable; u != nil && ((u.Type == intstr.Int && u.IntVal == 0) || (u.Type == intstr.String && u.StrVal == "0%")) {
		return true
	}
	m := spec.MinAvailable
	return m != nil && m.Type == intstr.String && m.StrVal == "100%"
}

func notReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionFalse
		}
	}
	return false
}

// blocks says why evicting the pod is not possible now, or "". Only pods
// Karpenter would evict are checked: active, not mirror pods, not
// tolerating the karpenter.sh/disrupted taint. With fully set, only a
// fully blocking PDB counts (pods of deleting nodes are still rescheduled
// past a PDB that merely has no disruptions left).
func (idx pdbIndex) blocks(p *corev1.Pod, fully bool) string {
	return blockedBy(p, idx[p], fully)
}

// blockedBy is blocks with the PDBs selecting the pod already looked up.
func blockedBy(p *corev1.Pod, matching []*pdb, fully bool) string {
	if !apis.IsActive(p) || apis.IsMirrorPod(p) || ToleratesDisruptedTaint(p) {
		return ""
	}
	if len(matching) > 1 {
		keys := make([]string, len(matching))
		for i, b := range matching {
			keys[i] = b.key
		}
		return fmt.Sprintf("pod %s is selected by more than one PDB (%s), which eviction does not support", apis.PodKey(p), strings.Join(keys, ", "))
	}
	for _, b := range matching {
		if b.evictUnhealthy && notReady(p) {
			return ""
		}
		if fully && b.fullyBlocking {
			return fmt.Sprintf("pod %s is blocked by PDB %s, which allows no disruption at all", apis.PodKey(p), b.key)
		}
		if !fully && b.allowed <= 0 {
			return fmt.Sprintf("blocked by PDB %s (0 disruptions allowed) of pod %s", b.key, apis.PodKey(p))
		}
	}
	return ""
}

// ToleratesDisruptedTaint says whether the pod tolerates the taint
// Karpenter puts on the nodes it disrupts: such a pod is not evicted, it
// stays until its node goes.
func ToleratesDisruptedTaint(p *corev1.Pod) bool {
	taint := apis.DisruptedTaint()
	for i := range p.Spec.Tolerations {
		if scheduling.ToleratesTaint(&p.Spec.Tolerations[i], &taint) {
			return true
		}
	}
	return false
}
