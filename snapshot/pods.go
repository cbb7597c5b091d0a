package snapshot

import (
	"crypto/sha1"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/resources"
)

// addPods sorts the given pods into bound and pending ones. Deleted and
// finished pods are left out; the others are copied, with the namespace
// defaulted and a UID derived from namespace/name when they have none.
func (b *builder) addPods() {
	for _, given := range b.in.Pods {
		// A terminating StatefulSet pod of a node being deleted is kept:
		// its replacement cannot start until it is gone, so Karpenter
		// provisions for it.
		keep := apis.IsStatefulSetPod(given) && b.deleting[given.Spec.NodeName]
		if (given.DeletionTimestamp != nil && !keep) || apis.IsTerminal(given) {
			continue
		}
		label := objectLabel("Pod", given.Namespace, given.Name)
		if !b.named(given, "Pod", given.Name) || !b.checkPodSpec(given, &given.Spec, label, "spec") {
			continue
		}
		p := given.DeepCopy()
		p.Namespace = apis.NamespaceOf(p.Namespace)
		if p.UID == "" {
			p.UID = derivedUID("Pod", p.Namespace, p.Name)
		}
		b.active = append(b.active, p)
		b.place(p)
	}
}

// place puts an active pod where it belongs in the snapshot.
func (b *builder) place(p *corev1.Pod) {
	key, node := apis.PodKey(p), p.Spec.NodeName
	switch {
	case node != "" && b.deleting[node]:
		// Karpenter reschedules the pods of a node being deleted, except
		// those that live and die with the node and those a PDB keeps
		// from being evicted at all, which stay until it lets them go.
		switch {
		case apis.IsDaemonSetPod(p) || apis.IsMirrorPod(p):
		case b.fullyBlockedByPDB(p):
			b.held = append(b.held, p)
		default:
			b.snap.Pending = append(b.snap.Pending, p)
		}
	case node != "":
		b.snap.Bound = append(b.snap.Bound, p)
		if n := b.nodes[node]; n != nil {
			n.Pods = append(n.Pods, p)
		} else {
			b.warn(fmt.Sprintf("pod %s is bound to node %q, which was not given: it takes room on no node", key, node))
		}
	case apis.IsDaemonSetPod(p) || apis.IsMirrorPod(p):
		// Their controller places them; Karpenter does not provision for
		// them.
	case len(p.Spec.SchedulingGates) > 0:
		b.warn(fmt.Sprintf("pod %s has scheduling gates (%s): the kube-scheduler does not try it yet, so Karpenter does not provision for it", key, gateNames(p)))
	case p.Status.NominatedNodeName != "":
		b.warn(fmt.Sprintf("pod %s is nominated to node %q (it preempts pods there): Karpenter does not provision for it", key, p.Status.NominatedNodeName))
	default:
		b.snap.Pending = append(b.snap.Pending, p)
	}
}

// checkPodSpec reports, as the API server would refuse them, a pod spec
// without containers and requests that cannot be met (negative amounts).
// object names the pod or workload, path the spec's field ("spec", or
// "spec.template.spec").
func (b *builder) checkPodSpec(obj any, spec *corev1.PodSpec, object, path string) bool {
	if len(spec.Containers) == 0 {
		b.fail(obj, manifests.ErrInvalid, object, path+".containers", "required: a pod needs at least one container")
		return false
	}
	if _, err := resources.PodRequests(&corev1.Pod{Spec: *spec}); err != nil {
		// The error names the field from the pod's root ("spec.containers[0]
		// (app).resources.requests.cpu: ..."); path is the spec's.
		b.fail(obj, manifests.ErrInvalid, object, "", strings.TrimSuffix(path, "spec")+err.Error())
		return false
	}
	return true
}

// named refuses an object without a name, as the API server does (karpsim
// does not generate names from metadata.generateName).
func (b *builder) named(obj any, kind, name string) bool {
	if name == "" {
		b.fail(obj, manifests.ErrInvalid, kind+" without a name", "metadata.name", "required")
		return false
	}
	return true
}

// ownerName returns the name of the pod's owner of the given kind, or "".
func ownerName(p *corev1.Pod, kind string) string {
	for _, ref := range p.OwnerReferences {
		if ref.Kind == kind {
			return ref.Name
		}
	}
	return ""
}

func gateNames(p *corev1.Pod) string {
	names := make([]string, len(p.Spec.SchedulingGates))
	for i, g := range p.Spec.SchedulingGates {
		names[i] = g.Name
	}
	return strings.Join(names, ", ")
}

// derivedUID is a name-based UUID (version 5 layout, SHA-1) of an object's
// kind, namespace and name: stable across runs, distinct across objects.
func derivedUID(kind, namespace, name string) types.UID {
	sum := sha1.Sum([]byte("karpsim.io/" + kind + "/" + namespace + "/" + name))
	sum[6] = sum[6]&0x0f | 0x50
	sum[8] = sum[8]&0x3f | 0x80
	return types.UID(fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16]))
}

// PodUID is the UID FromSet gives a pod it creates from a workload: derived
// from its namespace and name, so that runs are reproducible.
func PodUID(namespace, name string) types.UID { return derivedUID("Pod", namespace, name) }

// fullyBlockedByPDB reports whether a PodDisruptionBudget selecting the pod
// forbids every eviction: maxUnavailable 0 or "0%", or minAvailable
// "100%" (consolidation reads PDBs the same way).
func (b *builder) fullyBlockedByPDB(p *corev1.Pod) bool {
	for _, pdb := range b.in.PodDisruptionBudgets {
		if apis.NamespaceOf(pdb.Namespace) != p.Namespace || pdb.Spec.Selector == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || !sel.Matches(labels.Set(p.Labels)) {
			continue
		}
		u, m := pdb.Spec.MaxUnavailable, pdb.Spec.MinAvailable
		if u != nil && ((u.Type == intstr.Int && u.IntVal == 0) || (u.Type == intstr.String && u.StrVal == "0%")) ||
			m != nil && m.Type == intstr.String && m.StrVal == "100%" {
			return true
		}
	}
	return false
}
