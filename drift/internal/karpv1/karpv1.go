// Package karpv1 mirrors the part of Karpenter's NodePool API
// (sigs.k8s.io/karpenter pkg/apis/v1) that NodePool.Hash reads: the
// NodeClaim template. hashstructure (FormatV2) folds in the Go name of every
// struct type, the name of every field and, for fields that are hashed, their
// order and kind, so these types carry upstream's names, field order and
// kinds exactly. Fields upstream tags hash:"ignore" (requirements, and
// NillableDuration.Raw) are left out: hashstructure skips them without
// touching the running hash, so leaving them out gives the same value.
package karpv1

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NodeClaimTemplate is what NodePool.Hash hashes: spec.template.
type NodeClaimTemplate struct {
	ObjectMeta
	Spec NodeClaimTemplateSpec
}

// ObjectMeta is the template's metadata.
type ObjectMeta struct {
	Labels      map[string]string
	Annotations map[string]string
}

// NodeClaimTemplateSpec is the template's spec without the requirements,
// which upstream excludes from the hash.
type NodeClaimTemplateSpec struct {
	Taints                 []corev1.Taint
	StartupTaints          []corev1.Taint
	NodeClassRef           *NodeClassReference
	TerminationGracePeriod *metav1.Duration
	ExpireAfter            NillableDuration
}

// NodeClassReference names the node class; upstream orders its fields kind,
// name, group.
type NodeClassReference struct {
	Kind  string
	Name  string
	Group string
}

// NillableDuration embeds the duration as upstream does, so the hashed
// field is named Duration; a nil Duration ("Never") is a zero field and is
// skipped.
type NillableDuration struct {
	*time.Duration
}
