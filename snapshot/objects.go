package snapshot

import (
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/manifests"
)

// objects are the Kubernetes objects a snapshot is built from, whether they
// were read from files (a manifests.Set) or from a watched cluster (a
// cloud.ClusterState). The builder reads them and never changes them.
type objects struct {
	NodePools      []*apis.NodePool
	NodeClaims     []*apis.NodeClaim
	EC2NodeClasses []*apis.EC2NodeClass
	AKSNodeClasses []*apis.AKSNodeClass
	NodeOverlays   []*apis.NodeOverlay
	// SchedulerConfig and Services give pods default spread constraints.
	SchedulerConfig *apis.KubeSchedulerConfiguration
	Services        []*corev1.Service

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
	CSINodes               []*storagev1.CSINode

	// source says where an object was read from, for errors; nil when the
	// objects were not read from files.
	source func(obj any) (manifests.Source, bool)
}

func (o objects) sourceOf(obj any) (manifests.Source, bool) {
	if o.source == nil {
		return manifests.Source{}, false
	}
	return o.source(obj)
}

// setObjects are the objects of a Set, located by the Set's sources.
func setObjects(set *manifests.Set) objects {
	return objects{
		NodePools: set.NodePools, NodeClaims: set.NodeClaims, EC2NodeClasses: set.EC2NodeClasses, AKSNodeClasses: set.AKSNodeClasses,
		NodeOverlays: set.NodeOverlays, SchedulerConfig: set.SchedulerConfig, Services: set.Services,
		Pods: set.Pods, Deployments: set.Deployments, ReplicaSets: set.ReplicaSets, StatefulSets: set.StatefulSets,
		Jobs: set.Jobs, DaemonSets: set.DaemonSets, PodDisruptionBudgets: set.PodDisruptionBudgets, Nodes: set.Nodes,
		PersistentVolumes: set.PersistentVolumes, PersistentVolumeClaims: set.PersistentVolumeClaims,
		StorageClasses: set.StorageClasses, CSINodes: set.CSINodes,
		source: set.SourceOf,
	}
}

// stateObjects are the objects of a watched cluster's state. Errors name
// them at Options.Origin.
func stateObjects(s cloud.ClusterState) objects {
	return objects{
		NodePools: s.NodePools, NodeClaims: s.NodeClaims, EC2NodeClasses: s.EC2NodeClasses, AKSNodeClasses: s.AKSNodeClasses,
		Pods: s.Pods, DaemonSets: s.DaemonSets, PodDisruptionBudgets: s.PDBs, Nodes: s.Nodes,
		PersistentVolumes: s.PersistentVolumes, PersistentVolumeClaims: s.PersistentVolumeClaims,
		StorageClasses: s.StorageClasses, CSINodes: s.CSINodes,
	}
}
