package manifests

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/karpsim/karpsim/apis"
)

// Set is everything read from a group of manifests, each kind in input
// order (files in the order given, folders in lexical order, documents and
// list items in file order).
//
// Karpenter objects are in karpenter.sh/v1 or karpenter.k8s.aws/v1 form,
// defaulted; v1beta1 ones were converted. The objects belong to the Set:
// nothing else refers to them.
type Set struct {
	NodePools      []*apis.NodePool
	NodeClaims     []*apis.NodeClaim
	EC2NodeClasses []*apis.EC2NodeClass
	// AKSNodeClasses are the Azure provider's node classes
	// (karpenter.azure.com/v1beta1; v1alpha2 is read as v1beta1).
	AKSNodeClasses []*apis.AKSNodeClass
	// NodeOverlays are karpenter.sh/v1alpha1 NodeOverlays.
	NodeOverlays []*apis.NodeOverlay
	// SchedulerConfig is kube-scheduler's configuration, when given: its
	// PodTopologySpread default constraints apply to pods without spread
	// constraints of their own.
	SchedulerConfig *apis.KubeSchedulerConfiguration

	Pods                   []*corev1.Pod
	Deployments            []*appsv1.Deployment
	ReplicaSets            []*appsv1.ReplicaSet
	StatefulSets           []*appsv1.StatefulSet
	Jobs                   []*batchv1.Job
	DaemonSets             []*appsv1.DaemonSet
	PodDisruptionBudgets   []*policyv1.PodDisruptionBudget
	Nodes                  []*corev1.Node
	PersistentVolumes      []*corev1.PersistentVolume
	PersistentVolumeClaims []*corev1.PersistentVolumeClaim
	StorageClasses         []*storagev1.StorageClass
	PodTemplates           []*corev1.PodTemplate
	// CSINodes give nodes' volume limits: how many volumes each CSI driver
	// may attach to the node of the same name.
	CSINodes []*storagev1.CSINode

	// CapacityBuffers are autoscaling.x-k8s.io CapacityBuffers, validated.
	CapacityBuffers []*apis.CapacityBuffer

	// DeviceClasses, ResourceClaims and ResourceClaimTemplates are the
	// resource.k8s.io/v1 objects of dynamic resource allocation.
	DeviceClasses          []*resourcev1.DeviceClass
	ResourceClaims         []*resourcev1.ResourceClaim
	ResourceClaimTemplates []*resourcev1.ResourceClaimTemplate
	// ResourceSlices are the devices DRA drivers publish in the cluster.
	ResourceSlices []*resourcev1.ResourceSlice
	// Services matter to default spread constraints, whose selector is
	// deduced from the Services that select a pod.
	Services []*corev1.Service

	// Warnings are the problems karpsim worked around, in the order found.
	Warnings []Warning

	sources map[any]Source
}

func newSet() *Set { return &Set{sources: map[any]Source{}} }

// size counts the objects of every kind.
func (s *Set) size() int {
	configs := 0
	if s.SchedulerConfig != nil {
		configs = 1
	}
	return len(s.NodePools) + len(s.NodeClaims) + len(s.EC2NodeClasses) + len(s.AKSNodeClasses) + len(s.Pods) + len(s.Deployments) +
		len(s.ReplicaSets) + len(s.StatefulSets) + len(s.Jobs) + len(s.DaemonSets) + len(s.PodDisruptionBudgets) +
		len(s.Nodes) + len(s.PersistentVolumes) + len(s.PersistentVolumeClaims) + len(s.StorageClasses) +
		len(s.PodTemplates) + len(s.CSINodes) + len(s.CapacityBuffers) + len(s.DeviceClasses) + len(s.ResourceClaims) + len(s.ResourceClaimTemplates) +
		len(s.ResourceSlices) + len(s.NodeOverlays) + len(s.Services) + configs
}

// setSource records where obj was read from. A child loader's Set starts
// without a map, as most hold a single object.
func (s *Set) setSource(obj any, src Source) {
	if s.sources == nil {
		s.sources = make(map[any]Source, 1)
	}
	s.sources[obj] = src
}

// SourceOf returns where obj, a pointer held in the Set, was read from.
func (s *Set) SourceOf(obj any) (Source, bool) {
	src, ok := s.sources[obj]
	return src, ok
}
