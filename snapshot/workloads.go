package snapshot

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
)

// workload is what expansion needs of a controller object.
type workload struct {
	// obj is the Set's object, for its source in errors.
	obj  any
	kind string
	meta *metav1.ObjectMeta
	// namespace is the defaulted namespace; label names the object as
	// manifests' errors do.
	namespace, label string
	uid              types.UID
	template         *corev1.PodTemplateSpec
}

func newWorkload(obj any, kind string, meta *metav1.ObjectMeta, template *corev1.PodTemplateSpec) *workload {
	w := &workload{obj: obj, kind: kind, meta: meta, template: template,
		namespace: apis.NamespaceOf(meta.Namespace), label: objectLabel(kind, meta.Namespace, meta.Name)}
	w.uid = meta.UID
	if w.uid == "" {
		w.uid = derivedUID(kind, w.namespace, meta.Name)
	}
	return w
}

// ownerRef is the controller reference to kind/name that the pods a
// controller makes carry.
func ownerRef(apiVersion, kind, name string, uid types.UID) metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid, Controller: &yes, BlockOwnerDeletion: &yes}
}

// addWorkloads expands every workload controller into the pods it would
// create: its desired replicas less the active given pods it owns.
func (b *builder) addWorkloads() {
	names := map[string]bool{}
	for _, p := range b.active {
		names[apis.PodKey(p)] = true
	}
	e := &expander{b: b, names: names}
	for _, d := range b.in.Deployments {
		e.deployment(d)
	}
	for _, rs := range b.in.ReplicaSets {
		e.replicaSet(rs)
	}
	for _, ss := range b.in.StatefulSets {
		e.statefulSet(ss)
	}
	for _, j := range b.in.Jobs {
		e.job(j)
	}
}

// expander creates pods, keeping their names unique.
type expander struct {
	b *builder
	// names are the namespace/name keys of the active and created pods.
	names map[string]bool
}

// usable checks the parts of a workload every controller needs: not being
// deleted, and a pod template the API server would accept.
func (e *expander) usable(w *workload) bool {
	if w.meta.DeletionTimestamp != nil || !e.b.named(w.obj, w.kind, w.meta.Name) {
		return false
	}
	return e.b.checkPodSpec(w.obj, &w.template.Spec, w.label, "spec.template.spec")
}

// replicas reads a replica count: nil is Kubernetes' default of 1, and a
// negative count is refused as the API server refuses it.
func (e *expander) replicas(w *workload, path string, n *int32, def int32) (int32, bool) {
	if n == nil {
		return def, true
	}
	if *n < 0 {
		e.b.fail(w.obj, manifests.ErrInvalid, w.label, path, fmt.Sprintf("%d: must be 0 or more", *n))
		return 0, false
	}
	if max := e.b.opts.maxPods(); len(e.b.snap.Pending)+int(*n) > max {
		e.b.fail(w.obj, manifests.ErrInvalid, w.label, path, fmt.Sprintf("%d would take the pods to place past %d, the most karpsim expands (snapshot.Options.MaxPods)", *n, max))
		return 0, false
	}
	return *n, true
}

// countActive counts the active given pods in w's namespace that match.
func (e *expander) countActive(w *workload, match func(*corev1.Pod) bool) int32 {
	var n int32
	for _, p := range e.b.active {
		if p.Namespace == w.namespace && match(p) {
			n++
		}
	}
	return n
}

// create adds count pending pods named prefix-<i>, the lowest free i first.
func (e *expander) create(w *workload, count int32, prefix string, owner metav1.OwnerReference, labels map[string]string) {
	for i := 0; count > 0; i++ {
		name := prefix + "-" + strconv.Itoa(i)
		if e.names[w.namespace+"/"+name] {
			continue
		}
		e.add(e.newPod(w, name, owner, labels))
		count--
	}
}

func (e *expander) add(p *corev1.Pod) {
	e.names[apis.PodKey(p)] = true
	e.b.snap.Pending = append(e.b.snap.Pending, p)
}

// newPod makes a pod from w's template as its controller would: the
// template's labels (plus extra), annotations and finalizers, the
// workload's namespace and creation time, a controller reference, and a
// UID derived from namespace/name.
func (e *expander) newPod(w *workload, name string, owner metav1.OwnerReference, extra map[string]string) *corev1.Pod {
	t := w.template.DeepCopy()
	labels := maps.Clone(t.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	maps.Copy(labels, extra)
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         w.namespace,
			UID:               derivedUID("Pod", w.namespace, name),
			CreationTimestamp: w.meta.CreationTimestamp,
			Labels:            labels,
			Annotations:       t.Annotations,
			Finalizers:        t.Finalizers,
			OwnerReferences:   []metav1.OwnerReference{owner},
		},
		Spec:   t.Spec,
		Status: corev1.PodStatus{Phase: corev1.PodPending},
	}
	return p
}

// deployment creates the missing replicas through the ReplicaSet of the
// current template. Pods of any ReplicaSet named d-<suffix> count, whether
// or not that ReplicaSet was given.
func (e *expander) deployment(d *appsv1.Deployment) {
	w := newWorkload(d, "Deployment", &d.ObjectMeta, &d.Spec.Template)
	replicas, ok := e.replicas(w, "spec.replicas", d.Spec.Replicas, 1)
	if !ok || !e.usable(w) {
		return
	}
	hash := templateHash(&d.Spec.Template)
	rsName := d.Name + "-" + hash
	existing := e.countActive(w, func(p *corev1.Pod) bool { return isDeploymentReplicaSet(d.Name, ownerName(p, "ReplicaSet")) })
	owner := ownerRef("apps/v1", "ReplicaSet", rsName, derivedUID("ReplicaSet", w.namespace, rsName))
	e.create(w, replicas-existing, rsName, owner, map[string]string{appsv1.DefaultDeploymentUniqueLabelKey: hash})
}

// isDeploymentReplicaSet reports whether a ReplicaSet name is one the
// Deployment controller gives deployment's ReplicaSets: the deployment's
// name, a dash, and a hash without dashes.
func isDeploymentReplicaSet(deployment, rs string) bool {
	if len(rs) <= len(deployment)+1 || rs[:len(deployment)+1] != deployment+"-" {
		return false
	}
	for _, c := range rs[len(deployment)+1:] {
		if c == '-' {
			return false
		}
	}
	return true
}

// replicaSet creates the missing replicas of a ReplicaSet, unless one of
// the given Deployments owns it: then the Deployment accounts for them.
func (e *expander) replicaSet(rs *appsv1.ReplicaSet) {
	w := newWorkload(rs, "ReplicaSet", &rs.ObjectMeta, &rs.Spec.Template)
	for _, ref := range rs.OwnerReferences {
		if ref.Kind == "Deployment" && e.b.hasDeployment(w.namespace, ref.Name) {
			return
		}
	}
	replicas, ok := e.replicas(w, "spec.replicas", rs.Spec.Replicas, 1)
	if !ok || !e.usable(w) {
		return
	}
	existing := e.countActive(w, func(p *corev1.Pod) bool { return ownerName(p, "ReplicaSet") == rs.Name })
	e.create(w, replicas-existing, rs.Name, ownerRef("apps/v1", "ReplicaSet", rs.Name, w.uid), nil)
}

func (b *builder) hasDeployment(namespace, name string) bool {
	for _, d := range b.in.Deployments {
		if apis.NamespaceOf(d.Namespace) == namespace && d.Name == name {
			return true
		}
	}
	return false
}

// templateHash is a pod template's hash, spelled as Kubernetes spells
// pod-template-hash values: the decimal digits of a 32-bit FNV-1a hash,
// each mapped into an alphabet without vowels. (Kubernetes hashes a
// different serialization, so the values differ from a real cluster's.)
func templateHash(t *corev1.PodTemplateSpec) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	data, err := json.Marshal(t)
	if err != nil {
		data = []byte(t.String())
	}
	h := fnv.New32a()
	h.Write(data)
	digits := []byte(strconv.FormatUint(uint64(h.Sum32()), 10))
	for i, d := range digits {
		digits[i] = alphabet[int(d)%len(alphabet)]
	}
	return string(digits)
}
