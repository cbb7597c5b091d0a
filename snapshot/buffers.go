package snapshot

import (
	"fmt"
	"math"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/resources"
)

// BufferChunk is what a CapacityBuffer refers to, resolved: the pod
// template of one chunk and, for a scalableRef, the workload's replicas.
type BufferChunk struct {
	Template corev1.PodTemplateSpec
	// ScalableReplicas are the replicas of the scalableRef's workload
	// (spec.replicas, 1 when unset); 0 for a podTemplateRef.
	ScalableReplicas int32
}

// BufferReplicas is how many chunks a buffer keeps room for, as
// Karpenter's buffer controller counts them: the larger of spec.replicas
// and the percentage of the workload's replicas (rounded up, at least one
// when both are positive), capped by how many chunks spec.limits holds;
// limits alone give as many chunks as fit. A buffer asking for nothing
// has none.
func BufferReplicas(b *apis.CapacityBuffer, chunk BufferChunk) int32 {
	var want []int32
	if p := b.Spec.Percentage; p != nil && b.Spec.ScalableRef != nil && chunk.ScalableReplicas > 0 {
		n := int32(math.Ceil(float64(chunk.ScalableReplicas) * float64(*p) / 100))
		if n < 1 && *p > 0 {
			n = 1
		}
		want = append(want, n)
	}
	if r := b.Spec.Replicas; r != nil {
		want = append(want, *r)
	}
	var n int32
	if len(want) > 0 {
		n = slices.Max(want)
	}
	if fit, ok := chunksWithin(b.Spec.Limits, chunk.Template.Spec); ok {
		if len(want) == 0 {
			return fit
		}
		n = min(n, fit)
	}
	return max(n, 0)
}

// chunksWithin is how many chunks the limits hold: for every resource both
// name, the limit over the chunk's request, rounded down, the least of
// them. ok is false when no resource of the limits is requested.
func chunksWithin(limits corev1.ResourceList, spec corev1.PodSpec) (int32, bool) {
	if len(limits) == 0 {
		return 0, false
	}
	req, err := resources.PodRequests(&corev1.Pod{Spec: spec})
	if err != nil {
		return 0, false
	}
	have := resources.FromList(limits)
	fit, ok := int64(math.MaxInt32), false
	for name := range limits {
		r := req.Get(name)
		if r <= 0 {
			continue
		}
		ok = true
		fit = min(fit, have.Get(name)/r)
	}
	return int32(fit), ok
}

// BufferPods are the virtual pods of a buffer at now: BufferReplicas
// copies of its chunk, named capacity-buffer-<buffer>-<i> in the buffer's
// namespace, annotated as a buffer's (apis.IsBufferPod), pending, with the
// template's labels (topology spread and affinity see them) and the
// lowest priority. Volumes backed by claims are dropped, as Karpenter
// drops them: a virtual pod has no claim to bind. It is the one place
// virtual pods are made; the template is not changed.
func BufferPods(b *apis.CapacityBuffer, chunk BufferChunk, now time.Time) []*corev1.Pod {
	n := BufferReplicas(b, chunk)
	if n <= 0 {
		return nil
	}
	spec := virtualSpec(chunk.Template.Spec)
	ns := apis.NamespaceOf(b.Namespace)
	out := make([]*corev1.Pod, 0, n)
	for i := int32(1); i <= n; i++ {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:      fmt.Sprintf("capacity-buffer-%s-%d", b.Name, i),
				Namespace: ns,
				UID:       types.UID(fmt.Sprintf("capacity-buffer-%s-%s-%d", ns, b.Name, i)),
				Labels:    cloneMap(chunk.Template.Labels),
				Annotations: map[string]string{
					apis.AnnotationBufferPod:       "true",
					apis.AnnotationBufferName:      b.Name,
					apis.AnnotationBufferNamespace: ns,
				},
				CreationTimestamp: metav1.NewTime(now),
			},
			Spec: *spec.DeepCopy(),
			Status: corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{
				Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable,
			}}},
		}
		out = append(out, p)
	}
	return out
}

// virtualSpec is a chunk's pod spec as a virtual pod carries it.
func virtualSpec(in corev1.PodSpec) corev1.PodSpec {
	spec := *in.DeepCopy()
	spec.NodeName = ""
	lowest := int32(math.MinInt32)
	spec.Priority = &lowest
	dropped := map[string]bool{}
	spec.Volumes = slices.DeleteFunc(spec.Volumes, func(v corev1.Volume) bool {
		if v.PersistentVolumeClaim != nil || v.Ephemeral != nil {
			dropped[v.Name] = true
			return true
		}
		return false
	})
	if len(dropped) > 0 {
		for _, cs := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
			for i := range cs {
				cs[i].VolumeMounts = slices.DeleteFunc(cs[i].VolumeMounts, func(m corev1.VolumeMount) bool { return dropped[m.Name] })
			}
		}
	}
	return spec
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// ResolveBuffer finds what a buffer refers to among the Set's objects.
// ok is false when the object is not there (manifests.Load reports it
// unless the Set is part of a stream).
func ResolveBuffer(set *manifests.Set, b *apis.CapacityBuffer) (BufferChunk, bool) {
	ns := apis.NamespaceOf(b.Namespace)
	in := func(m metav1.ObjectMeta, name string) bool {
		return m.Name == name && apis.NamespaceOf(m.Namespace) == ns
	}
	replicas := func(r *int32) int32 {
		if r == nil {
			return 1
		}
		return *r
	}
	if r := b.Spec.PodTemplateRef; r != nil {
		for _, t := range set.PodTemplates {
			if in(t.ObjectMeta, r.Name) {
				return BufferChunk{Template: t.Template}, true
			}
		}
		return BufferChunk{}, false
	}
	r := b.Spec.ScalableRef
	if r == nil {
		return BufferChunk{}, false
	}
	switch r.Kind {
	case "Deployment":
		for _, d := range set.Deployments {
			if in(d.ObjectMeta, r.Name) {
				return BufferChunk{Template: d.Spec.Template, ScalableReplicas: replicas(d.Spec.Replicas)}, true
			}
		}
	case "StatefulSet":
		for _, d := range set.StatefulSets {
			if in(d.ObjectMeta, r.Name) {
				return BufferChunk{Template: d.Spec.Template, ScalableReplicas: replicas(d.Spec.Replicas)}, true
			}
		}
	case "ReplicaSet":
		for _, d := range set.ReplicaSets {
			if in(d.ObjectMeta, r.Name) {
				return BufferChunk{Template: d.Spec.Template, ScalableReplicas: replicas(d.Spec.Replicas)}, true
			}
		}
	}
	return BufferChunk{}, false
}

// SetBufferPods are the virtual pods of every buffer of a Set at now,
// sorted by namespace/name; buffers whose reference is missing have none.
func SetBufferPods(set *manifests.Set, now time.Time) []*corev1.Pod {
	var out []*corev1.Pod
	for _, b := range set.CapacityBuffers {
		if chunk, ok := ResolveBuffer(set, b); ok {
			out = append(out, BufferPods(b, chunk, now)...)
		}
	}
	slices.SortFunc(out, comparePods)
	return out
}
