package clusterautoscaler

import (
	"fmt"
	"math"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
)

// pdbBudgets are the disruptions each PodDisruptionBudget still allows in
// one scale-down evaluation: CA takes from them as it plans removals.
type pdbBudgets struct {
	items []*pdbBudget
}

type pdbBudget struct {
	key       string
	namespace string
	selector  labels.Selector
	allowed   int32
}

// newPDBBudgets reads the PDBs: status.disruptionsAllowed when the
// disruption controller wrote it, else what it would write, from the spec
// and the bound pods the PDB selects.
func newPDBBudgets(pdbs []*policyv1.PodDisruptionBudget, bound []*corev1.Pod) *pdbBudgets {
	out := &pdbBudgets{}
	for _, b := range pdbs {
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil {
			sel = labels.Nothing()
		}
		item := &pdbBudget{key: apis.NamespaceOf(b.Namespace) + "/" + b.Name, namespace: apis.NamespaceOf(b.Namespace), selector: sel}
		if b.Status.ObservedGeneration > 0 {
			item.allowed = b.Status.DisruptionsAllowed
		} else {
			var healthy int32
			for _, p := range bound {
				if item.selects(p) && apis.IsActive(p) {
					healthy++
				}
			}
			item.allowed = allowedBySpec(b.Spec, healthy)
		}
		out.items = append(out.items, item)
	}
	return out
}

// allowedBySpec is healthy pods less those the budget keeps, the expected
// count being the healthy pods (karpsim has no controller scale to read).
func allowedBySpec(spec policyv1.PodDisruptionBudgetSpec, healthy int32) int32 {
	var keep int32
	switch {
	case spec.MinAvailable != nil:
		keep = scaled(spec.MinAvailable, healthy, true)
	case spec.MaxUnavailable != nil:
		keep = healthy - scaled(spec.MaxUnavailable, healthy, false)
	default:
		return math.MaxInt32
	}
	return max(healthy-keep, 0)
}

func scaled(v *intstr.IntOrString, total int32, roundUp bool) int32 {
	n, err := intstr.GetScaledValueFromIntOrPercent(v, int(total), roundUp)
	if err != nil {
		return total
	}
	return int32(n)
}

func (b *pdbBudget) selects(p *corev1.Pod) bool {
	return apis.NamespaceOf(p.Namespace) == b.namespace && b.selector.Matches(labels.Set(p.Labels))
}

// covers says whether any PDB selects the pod.
func (bs *pdbBudgets) covers(p *corev1.Pod) bool {
	for _, b := range bs.items {
		if b.selects(p) {
			return true
		}
	}
	return false
}

// blocks says which PDB has no disruption left for the pod.
func (bs *pdbBudgets) blocks(p *corev1.Pod) string {
	for _, b := range bs.items {
		if b.selects(p) && b.allowed <= 0 {
			return fmt.Sprintf("not enough pod disruption budget to move %s (PDB %s)", apis.PodKey(p), b.key)
		}
	}
	return ""
}

// blocksAll says whether the PDBs allow moving all the pods together.
func (bs *pdbBudgets) blocksAll(pods []*corev1.Pod) string {
	need := map[*pdbBudget]int32{}
	for _, p := range pods {
		for _, b := range bs.items {
			if b.selects(p) {
				need[b]++
				if need[b] > b.allowed {
					return fmt.Sprintf("not enough pod disruption budget to move %s (PDB %s allows %d)", apis.PodKey(p), b.key, b.allowed)
				}
			}
		}
	}
	return ""
}

// take spends the budgets of the pods.
func (bs *pdbBudgets) take(pods []*corev1.Pod) {
	for _, p := range pods {
		for _, b := range bs.items {
			if b.selects(p) {
				b.allowed--
			}
		}
	}
}
