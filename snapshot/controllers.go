package snapshot

import (
	"fmt"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
)

// statefulSet creates the missing ordinals of a StatefulSet: pods
// <name>-<ordinal>, each with its hostname, its stable labels and a volume
// for each of its volume claim templates, as the StatefulSet controller
// makes them.
func (e *expander) statefulSet(ss *appsv1.StatefulSet) {
	w := newWorkload(ss, "StatefulSet", &ss.ObjectMeta, &ss.Spec.Template)
	replicas, ok := e.replicas(w, "spec.replicas", ss.Spec.Replicas, 1)
	if !ok || !e.usable(w) {
		return
	}
	var start int32
	if ss.Spec.Ordinals != nil {
		start = ss.Spec.Ordinals.Start
	}
	if start < 0 {
		e.b.fail(ss, manifests.ErrInvalid, w.label, "spec.ordinals.start", fmt.Sprintf("%d: must be 0 or more", start))
		return
	}
	revision := ss.Name + "-" + templateHash(&ss.Spec.Template)
	owner := ownerRef("apps/v1", "StatefulSet", ss.Name, w.uid)
	for ordinal := start; ordinal < start+replicas; ordinal++ {
		name := ss.Name + "-" + strconv.Itoa(int(ordinal))
		if e.names[w.namespace+"/"+name] {
			continue
		}
		p := e.newPod(w, name, owner, map[string]string{
			appsv1.StatefulSetPodNameLabel:        name,
			appsv1.PodIndexLabel:                  strconv.Itoa(int(ordinal)),
			appsv1.ControllerRevisionHashLabelKey: revision,
		})
		p.Spec.Hostname, p.Spec.Subdomain = name, ss.Spec.ServiceName
		for _, claim := range ss.Spec.VolumeClaimTemplates {
			setClaimVolume(&p.Spec, claim.Name, claim.Name+"-"+name)
		}
		e.add(p)
	}
}

// setClaimVolume makes the pod's volume called name use the claim,
// replacing a volume of that name or adding one.
func setClaimVolume(spec *corev1.PodSpec, name, claim string) {
	v := corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
	}}
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == name {
			spec.Volumes[i] = v
			return
		}
	}
	spec.Volumes = append(spec.Volumes, v)
}

// job creates the pods a Job runs at once: parallelism (default 1) pods,
// no more than the completions still missing; none once the Job is
// suspended, finished, or (without completions) has a succeeded pod.
// Active pods it owns count as created.
func (e *expander) job(j *batchv1.Job) {
	w := newWorkload(j, "Job", &j.ObjectMeta, &j.Spec.Template)
	parallelism, ok := e.replicas(w, "spec.parallelism", j.Spec.Parallelism, 1)
	if !ok {
		return
	}
	if c := j.Spec.Completions; c != nil && *c < 0 {
		e.b.fail(j, manifests.ErrInvalid, w.label, "spec.completions", fmt.Sprintf("%d: must be 0 or more", *c))
		return
	}
	if !e.usable(w) || (j.Spec.Suspend != nil && *j.Spec.Suspend) || jobFinished(j) {
		return
	}
	owned := func(p *corev1.Pod) bool { return ownerName(p, "Job") == j.Name }
	succeeded := max(j.Status.Succeeded, e.countSucceeded(w, owned))
	want := parallelism
	switch {
	case j.Spec.Completions != nil:
		want = min(want, max(0, *j.Spec.Completions-succeeded))
	case succeeded > 0:
		// Without completions, the first success ends the Job.
		want = 0
	}
	labels := map[string]string{
		batchv1.JobNameLabel:       j.Name,
		batchv1.ControllerUidLabel: string(w.uid),
		"job-name":                 j.Name,
		"controller-uid":           string(w.uid),
	}
	indexed := j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
	owner := ownerRef("batch/v1", "Job", j.Name, w.uid)
	for i, count := 0, want-e.countActive(w, owned); count > 0; i++ {
		name := j.Name + "-" + strconv.Itoa(i)
		if e.names[w.namespace+"/"+name] {
			continue
		}
		p := e.newPod(w, name, owner, labels)
		if indexed {
			index := strconv.Itoa(i)
			p.Labels[batchv1.JobCompletionIndexAnnotation] = index
			if p.Annotations == nil {
				p.Annotations = map[string]string{}
			}
			p.Annotations[batchv1.JobCompletionIndexAnnotation] = index
		}
		e.add(p)
		count--
	}
}

// countSucceeded counts the given pods in w's namespace that succeeded and
// match.
func (e *expander) countSucceeded(w *workload, match func(*corev1.Pod) bool) int32 {
	var n int32
	for _, p := range e.b.in.Pods {
		if apis.NamespaceOf(p.Namespace) == w.namespace && p.Status.Phase == corev1.PodSucceeded && match(p) {
			n++
		}
	}
	return n
}

func jobFinished(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// addDaemonSets makes one pod per DaemonSet, the pod Karpenter counts as
// the DaemonSet's overhead on a new node: the newest of the given pods the
// DaemonSet controls, as its controller made it (a template changed since
// may not have rolled out), with the template's required node affinity,
// which the controller replaces on every pod it makes; else a pod as the
// controller would make it from the template for any node, with the
// tolerations the controller adds.
func (b *builder) addDaemonSets() {
	e := &expander{b: b, names: map[string]bool{}}
	for _, ds := range b.in.DaemonSets {
		w := newWorkload(ds, "DaemonSet", &ds.ObjectMeta, &ds.Spec.Template)
		if !e.usable(w) {
			continue
		}
		if live := newestDaemonPod(b.in.Pods, ds, w.namespace); live != nil {
			b.snap.DaemonSets = append(b.snap.DaemonSets, daemonPodFrom(live, ds, w.namespace))
			continue
		}
		p := e.newPod(w, ds.Name, ownerRef("apps/v1", "DaemonSet", ds.Name, w.uid), nil)
		addDaemonTolerations(&p.Spec)
		b.snap.DaemonSets = append(b.snap.DaemonSets, p)
	}
}

// newestDaemonPod is the given pod ds controls that was created last (the
// first of those created last, in the order given), or nil. A pod is
// controlled by ds when its controller reference names ds, and carries
// ds's UID when ds has one.
func newestDaemonPod(pods []*corev1.Pod, ds *appsv1.DaemonSet, namespace string) *corev1.Pod {
	var newest *corev1.Pod
	for _, p := range pods {
		if apis.NamespaceOf(p.Namespace) != namespace || !controlledBy(p, ds) {
			continue
		}
		if newest == nil || p.CreationTimestamp.After(newest.CreationTimestamp.Time) {
			newest = p
		}
	}
	return newest
}

func controlledBy(p *corev1.Pod, ds *appsv1.DaemonSet) bool {
	ref := metav1.GetControllerOfNoCopy(p)
	return ref != nil && ref.Kind == "DaemonSet" && ref.Name == ds.Name && (ds.UID == "" || ref.UID == ds.UID)
}

// daemonPodFrom is a copy of a DaemonSet's live pod, unbound, with the
// template's required node affinity when the template has one.
func daemonPodFrom(live *corev1.Pod, ds *appsv1.DaemonSet, namespace string) *corev1.Pod {
	p := live.DeepCopy()
	p.Namespace = namespace
	if p.UID == "" {
		p.UID = derivedUID("Pod", namespace, p.Name)
	}
	p.Spec.NodeName = ""
	p.Status = corev1.PodStatus{Phase: corev1.PodPending}
	if a := ds.Spec.Template.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if p.Spec.Affinity == nil {
			p.Spec.Affinity = &corev1.Affinity{}
		}
		if p.Spec.Affinity.NodeAffinity == nil {
			p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
		}
		p.Spec.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.DeepCopy()
	}
	return p
}

// addDaemonTolerations adds the tolerations the DaemonSet controller gives
// every daemon pod, so that node conditions do not keep or drive it away:
// not-ready and unreachable (NoExecute); disk, memory and PID pressure and
// unschedulable (NoSchedule); and network-unavailable (NoSchedule) for
// pods on the host network. A toleration equal to one of them in key,
// operator, value and effect is replaced.
func addDaemonTolerations(spec *corev1.PodSpec) {
	type taint struct {
		key    string
		effect corev1.TaintEffect
	}
	wanted := []taint{
		{corev1.TaintNodeNotReady, corev1.TaintEffectNoExecute},
		{corev1.TaintNodeUnreachable, corev1.TaintEffectNoExecute},
		{corev1.TaintNodeDiskPressure, corev1.TaintEffectNoSchedule},
		{corev1.TaintNodeMemoryPressure, corev1.TaintEffectNoSchedule},
		{corev1.TaintNodePIDPressure, corev1.TaintEffectNoSchedule},
		{corev1.TaintNodeUnschedulable, corev1.TaintEffectNoSchedule},
	}
	if spec.HostNetwork {
		wanted = append(wanted, taint{corev1.TaintNodeNetworkUnavailable, corev1.TaintEffectNoSchedule})
	}
	for _, t := range wanted {
		tol := corev1.Toleration{Key: t.key, Operator: corev1.TolerationOpExists, Effect: t.effect}
		replaced := false
		for i, old := range spec.Tolerations {
			if old.Key == tol.Key && old.Operator == tol.Operator && old.Value == tol.Value && old.Effect == tol.Effect {
				spec.Tolerations[i], replaced = tol, true
				break
			}
		}
		if !replaced {
			spec.Tolerations = append(spec.Tolerations, tol)
		}
	}
}
