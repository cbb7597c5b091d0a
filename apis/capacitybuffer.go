package apis

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The CapacityBuffer API of SIG Autoscaling (autoscaling.x-k8s.io), which
// Karpenter v1.14 serves as v1beta1 behind its CapacityBuffer feature gate.
// The Cluster Autoscaler defined it as v1alpha1 with the same spec, which
// karpsim reads too.
const (
	BufferGroupV1B1 = "autoscaling.x-k8s.io/v1beta1"
	BufferGroupV1A1 = "autoscaling.x-k8s.io/v1alpha1"
	KindBuffer      = "CapacityBuffer"

	// BufferActiveCapacity is the only provisioning strategy Karpenter
	// implements, and the default: the buffer's virtual pods take part in
	// every provisioning pass and every consolidation simulation.
	BufferActiveCapacity = "buffer.x-k8s.io/active-capacity"

	// AnnotationBufferPod marks a virtual pod of a CapacityBuffer ("true");
	// AnnotationBufferName and AnnotationBufferNamespace name its buffer.
	// Karpenter uses these keys; karpsim puts them on the pods it builds so
	// that every package recognizes them the same way (IsBufferPod).
	AnnotationBufferPod       = "karpenter.sh/capacity-buffer-fake-pod"
	AnnotationBufferName      = "karpenter.sh/capacity-buffer-name"
	AnnotationBufferNamespace = "karpenter.sh/capacity-buffer-namespace"
)

// CapacityBuffer asks for spare capacity shaped like a pod template: the
// autoscaler keeps room for Replicas virtual pods ("chunks") so that real
// pods of that shape schedule at once instead of waiting for a node.
type CapacityBuffer struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              CapacityBufferSpec `json:"spec"`
	// Status is read and ignored: karpsim computes the buffer's replicas
	// from the spec and the objects it refers to, as Karpenter's buffer
	// controller does.
	Status CapacityBufferStatus `json:"status,omitzero"`
}

// CapacityBufferSpec is what the buffer holds room for. Exactly one of
// PodTemplateRef and ScalableRef names the shape of a chunk.
type CapacityBufferSpec struct {
	// ProvisioningStrategy defaults to BufferActiveCapacity, the only one
	// Karpenter implements.
	ProvisioningStrategy *string `json:"provisioningStrategy,omitempty"`
	// PodTemplateRef names a v1 PodTemplate in the buffer's namespace;
	// Replicas or Limits must then be set.
	PodTemplateRef *BufferObjectRef `json:"podTemplateRef,omitempty"`
	// ScalableRef names a Deployment, StatefulSet or ReplicaSet in the
	// buffer's namespace: its pod template is the chunk, and Percentage
	// counts from its replicas.
	ScalableRef *BufferScalableRef `json:"scalableRef,omitempty"`
	// Replicas is a number of chunks. With Percentage the larger of the
	// two counts (Karpenter's computeReplicas since v1.14.0); Limits caps
	// either.
	Replicas *int32 `json:"replicas,omitempty"`
	// Percentage is a share of the ScalableRef's replicas, rounded up, at
	// least one chunk when both are positive.
	Percentage *int32 `json:"percentage,omitempty"`
	// Limits caps the chunks' total requests; alone, it makes as many
	// chunks as fit.
	Limits corev1.ResourceList `json:"limits,omitempty"`
}

// BufferObjectRef names an object in the buffer's namespace.
type BufferObjectRef struct {
	Name string `json:"name"`
}

// BufferScalableRef names a workload with a scale subresource.
type BufferScalableRef struct {
	APIGroup string `json:"apiGroup,omitempty"`
	Kind     string `json:"kind"`
	Name     string `json:"name"`
}

// CapacityBufferStatus is the buffer controller's report, kept only so that
// manifests copied from a cluster read without warnings.
type CapacityBufferStatus struct {
	PodTemplateRef        *BufferObjectRef   `json:"podTemplateRef,omitempty"`
	Replicas              *int32             `json:"replicas,omitempty"`
	PodTemplateGeneration *int64             `json:"podTemplateGeneration,omitempty"`
	Conditions            []metav1.Condition `json:"conditions,omitempty"`
	ProvisioningStrategy  *string            `json:"provisioningStrategy,omitempty"`
}

// DeepCopy returns a copy that shares nothing with b.
func (b *CapacityBuffer) DeepCopy() *CapacityBuffer {
	if b == nil {
		return nil
	}
	out := *b
	b.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	s := &out.Spec
	s.ProvisioningStrategy = clonePtr(b.Spec.ProvisioningStrategy)
	s.PodTemplateRef = clonePtr(b.Spec.PodTemplateRef)
	s.ScalableRef = clonePtr(b.Spec.ScalableRef)
	s.Replicas = clonePtr(b.Spec.Replicas)
	s.Percentage = clonePtr(b.Spec.Percentage)
	s.Limits = b.Spec.Limits.DeepCopy()
	st := &out.Status
	st.PodTemplateRef = clonePtr(b.Status.PodTemplateRef)
	st.Replicas = clonePtr(b.Status.Replicas)
	st.PodTemplateGeneration = clonePtr(b.Status.PodTemplateGeneration)
	st.ProvisioningStrategy = clonePtr(b.Status.ProvisioningStrategy)
	if b.Status.Conditions != nil {
		st.Conditions = make([]metav1.Condition, len(b.Status.Conditions))
		for i := range b.Status.Conditions {
			b.Status.Conditions[i].DeepCopyInto(&st.Conditions[i])
		}
	}
	return &out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// Strategy is the buffer's provisioning strategy, defaulted.
func (b *CapacityBuffer) Strategy() string {
	if b.Spec.ProvisioningStrategy == nil || *b.Spec.ProvisioningStrategy == "" {
		return BufferActiveCapacity
	}
	return *b.Spec.ProvisioningStrategy
}

// BufferScalableKinds are the workloads a ScalableRef may name: those
// Karpenter resolves (apps/v1).
var BufferScalableKinds = []string{"Deployment", "ReplicaSet", "StatefulSet"}

// Validate checks what the CRD's schema and rules check, and what
// Karpenter's controller refuses: a reference kind it cannot resolve, a
// strategy it does not implement.
func (b *CapacityBuffer) Validate() error {
	var e errs
	s := b.Spec
	if b.Name == "" {
		e.add("metadata.name", "required")
	}
	switch {
	case s.PodTemplateRef == nil && s.ScalableRef == nil:
		e.add("spec", "one of podTemplateRef and scalableRef is required: it gives the shape of a chunk")
	case s.PodTemplateRef != nil && s.ScalableRef != nil:
		e.add("spec", "podTemplateRef and scalableRef are both set; set one")
	}
	if r := s.PodTemplateRef; r != nil {
		if r.Name == "" {
			e.add("spec.podTemplateRef.name", "required")
		}
		if s.Replicas == nil && s.Limits == nil {
			e.add("spec", "with podTemplateRef, replicas or limits must be set")
		}
	}
	if r := s.ScalableRef; r != nil {
		if r.Name == "" {
			e.add("spec.scalableRef.name", "required")
		}
		switch {
		case r.Kind == "":
			e.add("spec.scalableRef.kind", "required (one of %s)", strings.Join(BufferScalableKinds, ", "))
		case !slices.Contains(BufferScalableKinds, r.Kind):
			e.add("spec.scalableRef.kind", "%q is not a kind Karpenter resolves (one of %s)", r.Kind, strings.Join(BufferScalableKinds, ", "))
		case r.APIGroup != "apps":
			e.add("spec.scalableRef.apiGroup", "%q: a %s is in API group \"apps\"", r.APIGroup, r.Kind)
		}
	}
	if s.Percentage != nil && s.ScalableRef == nil {
		e.add("spec.percentage", "applies only with scalableRef (a share of its replicas)")
	}
	if v := s.Replicas; v != nil && *v < 0 {
		e.add("spec.replicas", "%d: must be at least 0", *v)
	}
	if v := s.Percentage; v != nil && *v < 0 {
		e.add("spec.percentage", "%d: must be at least 0", *v)
	}
	for _, name := range sortedKeys(s.Limits) {
		if q := s.Limits[corev1.ResourceName(name)]; q.Sign() < 0 {
			e.add(fmt.Sprintf("spec.limits[%s]", name), "%s: must not be negative", q.String())
		}
	}
	if st := b.Strategy(); st != BufferActiveCapacity {
		e.add("spec.provisioningStrategy", "%q: Karpenter implements only %q", st, BufferActiveCapacity)
	}
	return e.list.asError()
}

// IsBufferPod reports whether p is a virtual pod of a CapacityBuffer: never
// a real pod, never bound, never counted among the cluster's pods.
func IsBufferPod(p *corev1.Pod) bool {
	return p != nil && p.Annotations[AnnotationBufferPod] == "true"
}

// BufferOf is "namespace/name" of the CapacityBuffer a virtual pod belongs
// to, "" for any other pod.
func BufferOf(p *corev1.Pod) string {
	if !IsBufferPod(p) {
		return ""
	}
	return p.Annotations[AnnotationBufferNamespace] + "/" + p.Annotations[AnnotationBufferName]
}
