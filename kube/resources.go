package kube

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpsim/karpsim/apis"
)

// resource is one kind the watcher reads.
type resource struct {
	// kind is the kind as cloud.Change names it.
	kind string
	gvr  schema.GroupVersionResource
	// crd is true for Karpenter's kinds, served only once their
	// CustomResourceDefinitions are installed.
	crd bool
	// optional is true for kinds a cluster may well not serve: NodeOverlays
	// and CapacityBuffers (CRDs not every cluster installs) and DRA's
	// (resource.k8s.io/v1, Kubernetes 1.34 on). The watcher skips such a
	// kind when the server does not serve it, as a cluster without them.
	optional bool
	// quiet is true for an optional kind whose absence is the rule, not
	// worth naming: Azure's node classes on any cluster not on Azure.
	quiet bool
}

// name is the resource as kubectl and RBAC rules spell it:
// "pods", "nodepools.karpenter.sh".
func (r resource) name() string {
	if r.gvr.Group == "" {
		return r.gvr.Resource
	}
	return r.gvr.Resource + "." + r.gvr.Group
}

var (
	nodePools      = resource{kind: apis.KindNodePool, gvr: schema.GroupVersionResource{Group: apis.Group, Version: "v1", Resource: "nodepools"}, crd: true}
	nodeClaims     = resource{kind: apis.KindNodeClaim, gvr: schema.GroupVersionResource{Group: apis.Group, Version: "v1", Resource: "nodeclaims"}, crd: true}
	ec2NodeClasses = resource{kind: apis.KindEC2NodeClass, gvr: schema.GroupVersionResource{Group: apis.AWSGroup, Version: "v1", Resource: "ec2nodeclasses"}, crd: true}
	// aksNodeClasses are Azure's node classes: a cluster serves them or
	// EC2NodeClasses (see Watcher.check), or both.
	aksNodeClasses = resource{kind: apis.KindAKSNodeClass, gvr: schema.GroupVersionResource{Group: apis.AzureGroup, Version: "v1beta1", Resource: "aksnodeclasses"}, crd: true, optional: true, quiet: true}

	pods         = resource{kind: "Pod", gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}
	nodes        = resource{kind: "Node", gvr: schema.GroupVersionResource{Version: "v1", Resource: "nodes"}}
	pdbs         = resource{kind: "PodDisruptionBudget", gvr: schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}}
	daemonSets   = resource{kind: "DaemonSet", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "daemonsets"}}
	pvcs         = resource{kind: "PersistentVolumeClaim", gvr: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}}
	pvs          = resource{kind: "PersistentVolume", gvr: schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}}
	storageClass = resource{kind: "StorageClass", gvr: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "storageclasses"}}
	// csiNodes give nodes' volume limits; credentials without the rule
	// leave them out, as an older ClusterRole has none.
	csiNodes = resource{kind: "CSINode", gvr: schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "csinodes"}, optional: true}

	// Services and the workload controllers give pods kube-scheduler's
	// default spread selectors, and CapacityBuffers their pod templates.
	services     = resource{kind: "Service", gvr: schema.GroupVersionResource{Version: "v1", Resource: "services"}}
	podTemplates = resource{kind: "PodTemplate", gvr: schema.GroupVersionResource{Version: "v1", Resource: "podtemplates"}}
	deployments  = resource{kind: "Deployment", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}}
	replicaSets  = resource{kind: "ReplicaSet", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "replicasets"}}
	statefulSets = resource{kind: "StatefulSet", gvr: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "statefulsets"}}

	nodeOverlays = resource{kind: apis.KindNodeOverlay, gvr: schema.GroupVersionResource{Group: apis.Group, Version: "v1alpha1", Resource: "nodeoverlays"}, crd: true, optional: true}
	// capacityBuffers is the Cluster Autoscaler's v1beta1; a cluster with
	// only the older v1alpha1 (the same spec) is read through that.
	capacityBuffers     = resource{kind: apis.KindBuffer, gvr: schema.GroupVersionResource{Group: bufferGroup, Version: "v1beta1", Resource: "capacitybuffers"}, crd: true, optional: true}
	capacityBuffersV1A1 = resource{kind: apis.KindBuffer, gvr: schema.GroupVersionResource{Group: bufferGroup, Version: "v1alpha1", Resource: "capacitybuffers"}, crd: true, optional: true}

	deviceClasses          = resource{kind: "DeviceClass", gvr: schema.GroupVersionResource{Group: draGroup, Version: "v1", Resource: "deviceclasses"}, optional: true}
	resourceClaims         = resource{kind: "ResourceClaim", gvr: schema.GroupVersionResource{Group: draGroup, Version: "v1", Resource: "resourceclaims"}, optional: true}
	resourceClaimTemplates = resource{kind: "ResourceClaimTemplate", gvr: schema.GroupVersionResource{Group: draGroup, Version: "v1", Resource: "resourceclaimtemplates"}, optional: true}
	resourceSlices         = resource{kind: "ResourceSlice", gvr: schema.GroupVersionResource{Group: draGroup, Version: "v1", Resource: "resourceslices"}, optional: true}
)

const (
	bufferGroup = "autoscaling.x-k8s.io"
	draGroup    = "resource.k8s.io"
)

// watched are the resources Watcher reads, in the order it checks them.
var watched = []resource{pods, nodes, pdbs, daemonSets, pvcs, pvs, storageClass, csiNodes, services, podTemplates, deployments, replicaSets, statefulSets,
	nodePools, nodeClaims, ec2NodeClasses, aksNodeClasses, nodeOverlays, capacityBuffers, deviceClasses, resourceClaims, resourceClaimTemplates, resourceSlices}

// fallbacks are the versions read when a resource's is not served.
var fallbacks = map[resource]resource{capacityBuffers: capacityBuffersV1A1}

// Errors that say why the cluster could not be read. Each is wrapped with
// the resource and the server's own words.
var (
	// ErrForbidden: the credentials may not list or watch a resource.
	ErrForbidden = errors.New("forbidden")
	// ErrNotServed: the API server does not serve a resource; for
	// Karpenter's kinds, its CRDs are not installed.
	ErrNotServed = errors.New("not served")
	// ErrUnreachable: the API server did not answer.
	ErrUnreachable = errors.New("unreachable")
)

// describeListError says why a resource could not be listed, naming it and
// what would fix it.
func describeListError(r resource, server string, err error) error {
	var status apierrors.APIStatus
	isStatus := errors.As(err, &status)
	switch {
	case apierrors.IsForbidden(err):
		return fmt.Errorf("kube: list %s: %w: the credentials may not list and watch %s cluster-wide (the read-only ClusterRole karpsim-read is in examples/kubecontroller/rbac.yaml): %s",
			r.name(), ErrForbidden, r.name(), status.Status().Message)
	case apierrors.IsNotFound(err) && r.crd:
		return fmt.Errorf("kube: list %s: %w: the server does not serve %s/%s: install Karpenter's CRDs (the CustomResourceDefinition %s)",
			r.name(), ErrNotServed, r.gvr.GroupVersion(), r.gvr.Resource, r.name())
	case apierrors.IsNotFound(err):
		return fmt.Errorf("kube: list %s: %w: the server does not serve %s/%s", r.name(), ErrNotServed, r.gvr.GroupVersion(), r.gvr.Resource)
	case isStatus:
		return fmt.Errorf("kube: list %s: %w", r.name(), err)
	}
	where := server
	if where == "" {
		where = "the API server"
	}
	return fmt.Errorf("kube: list %s: %w: %s did not answer: %w", r.name(), ErrUnreachable, where, err)
}

// karpenterObject is what fromUnstructured needs of an apis type; a type
// with a SetDefaults method is defaulted too.
type karpenterObject[T any] interface {
	*T
	Validate() error
}

// fromUnstructured decodes a Karpenter object as the API server holds it
// into its apis type, defaulted and validated as manifests does for files.
// The error names the object.
func fromUnstructured[T any, P karpenterObject[T]](kind string, u *unstructured.Unstructured) (P, error) {
	data, err := json.Marshal(u.Object)
	if err != nil {
		return nil, fmt.Errorf("%s/%s: %w", kind, u.GetName(), err)
	}
	var obj P = new(T)
	if err := json.Unmarshal(data, obj); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", kind, u.GetName(), err)
	}
	if d, ok := any(obj).(interface{ SetDefaults() }); ok {
		d.SetDefaults()
	}
	if err := obj.Validate(); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", kind, u.GetName(), err)
	}
	return obj, nil
}

// toUnstructured encodes an apis object for the dynamic client.
func toUnstructured(apiVersion, kind string, obj any) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := json.Unmarshal(data, &u.Object); err != nil {
		return nil, err
	}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	return u, nil
}

// splitKey splits a cache key "namespace/name" or "name".
func splitKey(key string) (namespace, name string) {
	if ns, n, ok := strings.Cut(key, "/"); ok {
		return ns, n
	}
	return "", key
}
