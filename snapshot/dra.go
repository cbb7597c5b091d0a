package snapshot

import (
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
	translate := func(pods []*corev1.Pod) {
		for i, p := range pods {
			if out, ok := translated[p]; ok {
				pods[i] = out
				continue
			}
			out, err := t.Pod(p)
			if err != nil {
				if prob, ok := err.(dra.Problem); ok {
					err = draError(set.SourceOf, origin, prob)
				}
				errs = append(errs, err)
				continue
			}
			translated[p], pods[i] = out, out
		}
	}
	translate(s.Bound)
	for _, n := range s.Nodes {
		translate(n.Pods)
	}
	translate(s.Pending)
	translate(s.Buffers)
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
func (d *Disruption) applyDRA(set *manifests.Set, origin string, buffers []*corev1.Pod) []error {
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
	t.Reserve(slices.Concat(c.Pending, buffers))
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
	translate := func(pods []*corev1.Pod) {
		for i, p := range pods {
			out, err := t.Pod(p)
			if err != nil {
				if prob, ok := err.(dra.Problem); ok {
					err = draError(set.SourceOf, origin, prob)
				}
				errs = append(errs, err)
				continue
			}
			pods[i] = out
		}
	}
	for _, n := range c.Nodes {
		if n.Node != nil {
			translate(n.Node.Pods)
		}
	}
	translate(c.Pending)
	translate(buffers)
	for _, n := range c.Nodes {
		if n.Node != nil {
			n.Node.Capacity, n.Node.Allocatable = nodeDevices(t, types, n.Node)
		}
	}
	d.DRA = true
	return errs
}
