package snapshot

import (
	"errors"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/dra"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
)

// DRATranslator returns the package dra translator of a Set's DeviceClasses,
// ResourceClaims, ResourceClaimTemplates and ResourceSlices; the problems are
// *manifests.Errors naming the file, the object and the field.
func DRATranslator(set *manifests.Set, origin string) (*dra.Translator, []error) {
	t, problems := dra.New(dra.Objects{DeviceClasses: set.DeviceClasses, ResourceClaims: set.ResourceClaims,
		ResourceClaimTemplates: set.ResourceClaimTemplates, ResourceSlices: set.ResourceSlices})
	var errs []error
	for _, p := range problems {
		errs = append(errs, draError(set.SourceOf, origin, p))
	}
	return t, errs
}

// allocator is the translator as scheduling's device allocator when it
// allocates claims, else nil (never a nil pointer in the interface).
func allocator(t *dra.Translator) scheduling.DeviceAllocator {
	if t == nil || !t.Allocating() {
		return nil
	}
	return t
}

func draError(sourceOf func(any) (manifests.Source, bool), origin string, p dra.Problem) error {
	src, ok := sourceOf(p.Obj)
	if !ok {
		src = manifests.Source{File: origin}
		if origin == "" {
			src.File = "<no file>"
		}
	}
	return &manifests.Error{Source: src, Object: p.Object, Path: p.Path, Message: p.Message, Kind: manifests.ErrInvalid}
}

// applyDRA gives the snapshot's instance types and nodes their devices and
// turns its pods' claims into device requests (package dra): what
// Karpenter does with --ignore-dra-requests=false. Pods already running
// with a shared claim allocate it.
func (s *Snapshot) applyDRA(set *manifests.Set, origin string) []error {
	t, errs := DRATranslator(set, origin)
	if len(errs) > 0 {
		return errs
	}
	s.Translator = t
	state := dra.State{Nodes: map[string]bool{}, Pods: slices.Concat(s.Bound, s.Pending), Moving: map[string]bool{}}
	for _, n := range s.Nodes {
		state.Nodes[n.Name] = n.Initialized
	}
	for _, p := range s.Pending {
		// The pods of nodes being deleted keep their spec.nodeName.
		if p.Spec.NodeName != "" {
			state.Moving[apis.PodKey(p)] = true
		}
	}
	t.UseState(state)
	t.Reserve(slices.Concat(s.Pending, s.Buffers))
	s.DeviceAllocations = t.Allocated()
	types := map[string]*instancetypes.InstanceType{}
	for i := range s.NodePools {
		for _, it := range s.NodePools[i].InstanceTypes {
			types[it.Name] = it
		}
		s.NodePools[i].InstanceTypes = t.Catalog(s.NodePools[i].InstanceTypes)
	}
	// The classes' own catalogs (what the simulator launches from, before
	// NodeOverlays) offer the same devices.
	for name, c := range s.ClassCatalogs {
		s.ClassCatalogs[name] = t.Catalog(c)
	}
	for _, p := range s.Bound {
		t.Allocates(p)
	}
	translated := map[*corev1.Pod]*corev1.Pod{}
	translate := func(pods []*corev1.Pod, pending bool) []*corev1.Pod {
		kept := pods[:0]
		for _, p := range pods {
			out, ok := translated[p]
			if !ok {
				var err error
				if out, err = t.Pod(p); err != nil {
					var warning string
					if out, warning, err = deferPod(p, err, pending); warning != "" {
						s.Warnings = append(s.Warnings, warning)
					}
				}
				if err != nil {
					errs = append(errs, draProblem(set, origin, err))
					continue
				}
				translated[p] = out
			}
			if out != nil {
				kept = append(kept, out)
			}
		}
		return kept
	}
	s.Bound = translate(s.Bound, false)
	for _, n := range s.Nodes {
		n.Pods = translate(n.Pods, false)
	}
	s.Pending = translate(s.Pending, true)
	s.Buffers = translate(s.Buffers, true)
	for _, n := range s.Nodes {
		n.Capacity, n.Allocatable = nodeDevices(t, types, n)
	}
	return errs
}

// nodeDevices is a node's capacity and allocatable with its devices: its
// published ones, or its instance type's (dra.Translator.NodeDevices), and
// what its pods ask of it for devices they hold elsewhere.
func nodeDevices(t *dra.Translator, types map[string]*instancetypes.InstanceType, n *scheduling.Node) (corev1.ResourceList, corev1.ResourceList) {
	var typeDevices []dra.Device
	if it := types[n.Labels[apis.LabelInstanceType]]; it != nil {
		typeDevices = dra.InstanceTypeDevices(it)
	}
	capacity, allocatable := t.DeviceResources(t.NodeDevices(n.Name, n.Initialized, typeDevices), n.Capacity, n.Allocatable)
	return t.NodeExtra(n.Name, capacity, allocatable)
}

// applyDRA gives the disruption view's catalogs and nodes their devices and
// turns the claims of its pods, and of buffers' virtual pods (changed in
// place), into device requests, as Snapshot.applyDRA does for
// provisioning: every consolidation simulation then places them as
// Karpenter's with --ignore-dra-requests=false. Pods already running with
// a shared claim allocate it.
func (d *Disruption) applyDRA(set *manifests.Set, origin string, buffers *[]*corev1.Pod) []error {
	t, errs := DRATranslator(set, origin)
	if len(errs) > 0 {
		return errs
	}
	d.Translator = t
	c := &d.Cluster
	state := dra.State{Nodes: map[string]bool{}, Pods: slices.Clone(c.Pending), Moving: map[string]bool{}}
	for _, n := range c.Nodes {
		if n.Node == nil {
			continue
		}
		state.Pods = append(state.Pods, n.Node.Pods...)
		if !n.Deleting {
			state.Nodes[n.Node.Name] = n.Node.Initialized
			continue
		}
		for _, p := range n.Node.Pods {
			state.Moving[apis.PodKey(p)] = true
		}
	}
	t.UseState(state)
	t.Reserve(slices.Concat(c.Pending, *buffers))
	d.DeviceAllocations = t.Allocated()
	types := map[string]*instancetypes.InstanceType{}
	for i := range c.NodePools {
		for _, it := range c.NodePools[i].InstanceTypes {
			types[it.Name] = it
		}
		c.NodePools[i].InstanceTypes = t.Catalog(c.NodePools[i].InstanceTypes)
	}
	for _, n := range c.Nodes {
		if n.Node == nil {
			continue
		}
		for _, p := range n.Node.Pods {
			t.Allocates(p)
		}
	}
	translate := func(pods []*corev1.Pod, pending bool) []*corev1.Pod {
		kept := pods[:0]
		for _, p := range pods {
			out, err := t.Pod(p)
			if err != nil {
				var warning string
				if out, warning, err = deferPod(p, err, pending); warning != "" {
					d.Warnings = append(d.Warnings, warning)
				}
			}
			if err != nil {
				errs = append(errs, draProblem(set, origin, err))
				continue
			}
			if out != nil {
				kept = append(kept, out)
			}
		}
		return kept
	}
	for _, n := range c.Nodes {
		if n.Node != nil {
			n.Node.Pods = translate(n.Node.Pods, false)
		}
	}
	c.Pending = translate(c.Pending, true)
	*buffers = translate(*buffers, true)
	for _, n := range c.Nodes {
		if n.Node != nil {
			n.Node.Capacity, n.Node.Allocatable = nodeDevices(t, types, n.Node)
		}
	}
	d.DRA = true
	return errs
}

// deferPod is what the plan holds of a pod whose claims package dra
// defers (dra.Deferred: a ResourceClaim or DeviceClass that does not exist
// yet), with a warning; any other error is returned as it is.
func deferPod(p *corev1.Pod, err error, pending bool) (*corev1.Pod, string, error) {
	var d dra.Deferred
	if !errors.As(err, &d) {
		return nil, "", err
	}
	if pending {
		return DeferredPod(p, d, true), d.Error() + ": it is reported unschedulable", nil
	}
	return DeferredPod(p, d, false), d.Error() + ": the pod stays on its node, counted without its claims", nil
}

// DeferredPod is a pod whose claims package dra defers, as a solve takes
// it: without its claims, and, when pending, marked with
// scheduling.AnnotationDeferred so that the solve reports it unschedulable
// with the reason, as Karpenter leaves it pending outside its scheduling
// run; a pod already on a node keeps running there. p is not changed.
func DeferredPod(p *corev1.Pod, d dra.Deferred, pending bool) *corev1.Pod {
	out := p.DeepCopy()
	out.Spec.ResourceClaims = nil
	for i := range out.Spec.Containers {
		out.Spec.Containers[i].Resources.Claims = nil
	}
	for i := range out.Spec.InitContainers {
		out.Spec.InitContainers[i].Resources.Claims = nil
	}
	if pending {
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[scheduling.AnnotationDeferred] = d.Error()
	}
	return out
}

// draProblem names a dra.Problem's file, object and field.
func draProblem(set *manifests.Set, origin string, err error) error {
	if prob, ok := err.(dra.Problem); ok {
		return draError(set.SourceOf, origin, prob)
	}
	return err
}
