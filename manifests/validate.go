package manifests

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

// validateObject checks an object as the API server would before storing
// it, for the fields karpsim reads: its name and namespace (the Karpenter
// kinds check their names in their own Validate), and for Pods, pod
// templates, Nodes, PDBs, PersistentVolumes, StorageClasses, CSINodes and
// Services the rules of package apis (ValidatePodSpec, ValidateNode,
// ValidatePodDisruptionBudget, ValidatePersistentVolume,
// ValidateStorageClass, ValidateCSINode, ValidateService). docs/limits.md's "Limits on
// input" lists the rules.
func validateObject(kind string, o object) apis.FieldErrors {
	var problems apis.FieldErrors
	switch kind {
	case apis.KindNodePool, apis.KindNodeClaim, apis.KindEC2NodeClass, apis.KindAKSNodeClass, apis.KindNodeOverlay:
	default:
		problems = apis.ValidateObjectName(kind, o.GetNamespace(), o.GetName())
	}
	switch o := any(o).(type) {
	case *corev1.Pod:
		problems = append(problems, apis.ValidatePodDeletionCost(o.Annotations, "metadata.annotations")...)
		problems = append(problems, apis.ValidatePodSpec(&o.Spec, "spec")...)
	case *corev1.PodTemplate:
		problems = append(problems, template(&o.Template, nil, "template")...)
	case *appsv1.Deployment:
		problems = append(problems, template(&o.Spec.Template, o.Spec.Selector, "spec.template")...)
	case *appsv1.ReplicaSet:
		problems = append(problems, template(&o.Spec.Template, o.Spec.Selector, "spec.template")...)
	case *appsv1.StatefulSet:
		problems = append(problems, template(&o.Spec.Template, o.Spec.Selector, "spec.template")...)
	case *appsv1.DaemonSet:
		problems = append(problems, template(&o.Spec.Template, o.Spec.Selector, "spec.template")...)
	case *batchv1.Job:
		problems = append(problems, template(&o.Spec.Template, o.Spec.Selector, "spec.template")...)
	case *corev1.Node:
		problems = append(problems, apis.ValidateNode(o)...)
	case *policyv1.PodDisruptionBudget:
		problems = append(problems, apis.ValidatePodDisruptionBudget(o)...)
	case *corev1.PersistentVolume:
		problems = append(problems, apis.ValidatePersistentVolume(o)...)
	case *storagev1.StorageClass:
		problems = append(problems, apis.ValidateStorageClass(o)...)
	case *storagev1.CSINode:
		problems = append(problems, apis.ValidateCSINode(o)...)
	case *corev1.Service:
		problems = append(problems, apis.ValidateService(o)...)
	}
	return problems
}

// template checks a workload's selector and pod template: its labels, as
// the pods it makes carry them, and its spec.
func template(t *corev1.PodTemplateSpec, selector *metav1.LabelSelector, path string) apis.FieldErrors {
	var problems apis.FieldErrors
	if selector != nil {
		problems = apis.ValidateLabelSelector("spec.selector", selector)
	}
	if len(t.Labels) > 0 || len(t.Annotations) > 0 {
		for _, p := range apis.ValidateObjectMeta(t.Labels, t.Annotations) {
			p.Path = path + "." + p.Path
			problems = append(problems, p)
		}
	}
	problems = append(problems, apis.ValidatePodDeletionCost(t.Annotations, path+".metadata.annotations")...)
	return append(problems, apis.ValidatePodSpec(&t.Spec, path+".spec")...)
}
