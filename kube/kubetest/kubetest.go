// Package kubetest gives tests of code that reads or writes a cluster
// through package kube a cluster to run against: fake client-go clients
// holding a cluster's objects (Fakes: the typed fake clientset for the
// built-in kinds, the dynamic fake client for Karpenter's NodePools,
// NodeClaims, EC2NodeClasses and NodeOverlays and for CapacityBuffers), and
// a real etcd and kube-apiserver started for a test (APIServer), skipped
// with instructions (HowToInstall) when they are not installed.
package kubetest

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	clientscheme "k8s.io/client-go/kubernetes/scheme"
	k8stesting "k8s.io/client-go/testing"

	"github.com/karpsim/karpsim/kube"
)

// Karpenter's resources, as the dynamic fake client must be told them.
var listKinds = map[schema.GroupVersionResource]string{
	{Group: "karpenter.sh", Version: "v1", Resource: "nodepools"}:                     "NodePoolList",
	{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}:                    "NodeClaimList",
	{Group: "karpenter.k8s.aws", Version: "v1", Resource: "ec2nodeclasses"}:           "EC2NodeClassList",
	{Group: "karpenter.azure.com", Version: "v1beta1", Resource: "aksnodeclasses"}:    "AKSNodeClassList",
	{Group: "karpenter.sh", Version: "v1alpha1", Resource: "nodeoverlays"}:            "NodeOverlayList",
	{Group: "autoscaling.x-k8s.io", Version: "v1beta1", Resource: "capacitybuffers"}:  "CapacityBufferList",
	{Group: "autoscaling.x-k8s.io", Version: "v1alpha1", Resource: "capacitybuffers"}: "CapacityBufferList",
}

// clusterScoped are the built-in kinds without a namespace that a test
// may hold; every other kind client-go knows gets namespace "default" when
// it has none, as kubectl apply would give it.
var clusterScoped = map[string]bool{"Node": true, "PersistentVolume": true, "StorageClass": true, "CSINode": true, "Namespace": true, "DeviceClass": true, "ResourceSlice": true}

// Fakes are fake clients and the kube.Clients over them.
type Fakes struct {
	Clients kube.Clients
	Core    *fake.Clientset
	Dynamic *dynamicfake.FakeDynamicClient
}

// New returns fake clients holding objs: objects of the kinds client-go
// knows go to the typed clientset, the others (unstructured Karpenter
// objects) to the dynamic client.
func New(objs ...runtime.Object) Fakes {
	var typed, custom []runtime.Object
	for _, o := range objs {
		if _, ok := o.(*unstructured.Unstructured); ok {
			custom = append(custom, o)
		} else {
			typed = append(typed, o)
		}
	}
	core := fake.NewClientset(typed...)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds)
	azure := false
	for _, o := range custom {
		azure = azure || o.(*unstructured.Unstructured).GetKind() == "AKSNodeClass"
	}
	if !azure {
		// A cluster not on Azure has no CRD of Azure's node classes.
		aks := schema.GroupResource{Group: "karpenter.azure.com", Resource: "aksnodeclasses"}
		for _, verb := range []string{"list", "watch"} {
			dyn.PrependReactor(verb, aks.Resource, func(k8stesting.Action) (bool, runtime.Object, error) {
				return true, nil, apierrors.NewNotFound(aks, "")
			})
		}
	}
	for _, o := range custom {
		// The tracker would guess a resource from the kind, and guess
		// "nodeoverlaies": each goes under its resource, named.
		u := o.(*unstructured.Unstructured)
		gvr := resourceOf(u.GroupVersionKind())
		if err := dyn.Tracker().Create(gvr, u, u.GetNamespace()); err != nil {
			panic(fmt.Sprintf("kubetest: %s %s: %v", u.GetKind(), u.GetName(), err))
		}
	}
	return Fakes{Clients: kube.Clients{Core: core, Dynamic: dyn}, Core: core, Dynamic: dyn}
}

// resourceOf is the resource of a custom kind listKinds names, or the
// tracker's guess for another.
func resourceOf(gvk schema.GroupVersionKind) schema.GroupVersionResource {
	for gvr, list := range listKinds {
		if gvr.GroupVersion() == gvk.GroupVersion() && list == gvk.Kind+"List" {
			return gvr
		}
	}
	gvr, _ := meta.UnsafeGuessKindToResource(gvk)
	return gvr
}

// Objects decodes manifests (multi-document YAML, JSON, kubectl Lists) into
// objects for New: typed for the kinds client-go knows, unstructured for
// the others.
func Objects(data []byte) ([]runtime.Object, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []runtime.Object
	for {
		var u unstructured.Unstructured
		err := dec.Decode(&u.Object)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(u.Object) == 0 {
			continue
		}
		objs, err := objectsOf(&u)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
}

func objectsOf(u *unstructured.Unstructured) ([]runtime.Object, error) {
	if u.IsList() {
		var out []runtime.Object
		err := u.EachListItem(func(item runtime.Object) error {
			objs, err := objectsOf(item.(*unstructured.Unstructured))
			out = append(out, objs...)
			return err
		})
		return out, err
	}
	gvk := u.GroupVersionKind()
	if u.GetNamespace() == "" && !clusterScoped[gvk.Kind] && clientscheme.Scheme.Recognizes(gvk) {
		u.SetNamespace("default")
	}
	if !clientscheme.Scheme.Recognizes(gvk) {
		return []runtime.Object{u}, nil
	}
	obj, err := clientscheme.Scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, fmt.Errorf("%s %s: %w", gvk.Kind, u.GetName(), err)
	}
	return []runtime.Object{obj}, nil
}

var clientScheme = clientscheme.Scheme
