package dra

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

// ResourcePrefix starts the name of every extended resource a device
// selection becomes.
const ResourcePrefix = "dra.karpsim.dev/"

// ResourceDevices counts every device a node offers, and every device a pod
// claims whatever its selection: two selections that share devices (any
// GPU, and a GPU with 40Gi) can together take no more than the node has.
const ResourceDevices corev1.ResourceName = ResourcePrefix + "devices"

// Objects are the DRA objects of a cluster.
type Objects struct {
	DeviceClasses          []*resourcev1.DeviceClass
	ResourceClaims         []*resourcev1.ResourceClaim
	ResourceClaimTemplates []*resourcev1.ResourceClaimTemplate
	// Templates are the devices instance types declare, by type name, as
	// a cloud provider's dynamic resources do; a type not named here
	// offers InstanceTypeDevices.
	Templates map[string][]Template
	// ResourceSlices are the devices drivers publish (published.go).
	ResourceSlices []*resourcev1.ResourceSlice
}

// Problem is an object karpsim cannot translate, and why, by field.
type Problem struct {
	// Obj is the object given (for locating its file), Object names it
	// ("Kind/namespace/name"), Path is the field.
	Obj     any
	Object  string
	Path    string
	Message string
}

func (p Problem) Error() string { return p.Object + ": " + p.Path + ": " + p.Message }

// selection is what one device request selects: a DeviceClass's devices
// narrowed by the request's selectors, as an extended resource.
type selection struct {
	resource corev1.ResourceName
	match    []matcher
}

// request is one device request of a claim: count devices of a selection.
type request struct {
	sel   *selection
	count int64
}

// Translator turns pods' ResourceClaims into extended-resource requests and
// instance types' devices into capacity (see the package comment). It
// remembers which pod allocates each shared ResourceClaim; it is not safe
// for concurrent use.
type Translator struct {
	classes    map[string]*resourcev1.DeviceClass
	claims     map[string]*resourcev1.ResourceClaim         // by namespace/name
	templates  map[string]*resourcev1.ResourceClaimTemplate // by namespace/name
	selections map[string]*selection                        // by class and request selectors
	// owners are the pods ("namespace/name") allocating each shared
	// claim, by claim namespace/name.
	owners map[string]string
	// alloc is set when the cluster needs the allocator (alloc.go): pods'
	// claims are then allocated on nodes, not counted as resources.
	alloc       bool
	declared    map[string][]Template
	typeDevices map[string]*typeDevices
	// demand are the claims each translated pod allocates, by pod
	// (namespace/name).
	demand map[string][]allocClaim
	// The published devices and the cluster's state (published.go).
	slices          []*resourcev1.ResourceSlice
	state           State
	published       bool
	nodeLocal       map[string][]published
	shared          []published
	taken           map[deviceID]bool
	consumers       map[deviceID][]string
	podNode         map[string]string
	reserved        map[string][]reservation
	reservedDevices map[deviceID]bool
	unaccounted     map[deviceID]bool
	nodeExtra       map[string]resources.Vector
	// The allocator over published devices (allocpub.go): the catalog's
	// types by name, existing nodes' devices by node, the capacity the
	// cluster's claims consume of multi-allocatable published devices,
	// and which published devices are multi-allocatable.
	typeNames        map[string]*instancetypes.InstanceType
	nodeTypes        map[string]*typeDevices
	consumed         map[deviceID]map[string]int64
	multiAllocatable map[deviceID]bool
}

// New checks the DeviceClasses' selectors and returns a translator, or the
// problems found. Claims and templates are checked as pods use them.
func New(o Objects) (*Translator, []Problem) {
	t := &Translator{classes: map[string]*resourcev1.DeviceClass{}, claims: map[string]*resourcev1.ResourceClaim{},
		templates: map[string]*resourcev1.ResourceClaimTemplate{}, selections: map[string]*selection{}, owners: map[string]string{},
		declared: o.Templates, typeDevices: map[string]*typeDevices{}, demand: map[string][]allocClaim{},
		typeNames: map[string]*instancetypes.InstanceType{}, nodeTypes: map[string]*typeDevices{}}
	t.alloc = needsAllocator(o)
	var problems []Problem
	for _, c := range o.DeviceClasses {
		for i, s := range c.Spec.Selectors {
			if s.CEL == nil {
				problems = append(problems, Problem{c, "DeviceClass/" + c.Name, fmt.Sprintf("spec.selectors[%d]", i), "only CEL selectors exist in resource.k8s.io/v1"})
				continue
			}
			if _, err := compileCEL(s.CEL.Expression); err != nil {
				problems = append(problems, Problem{c, "DeviceClass/" + c.Name, fmt.Sprintf("spec.selectors[%d].cel.expression", i), err.Error()})
			}
		}
		t.classes[c.Name] = c
	}
	problems = append(problems, checkSlices(o.ResourceSlices)...)
	t.slices = o.ResourceSlices
	for _, c := range o.ResourceClaims {
		t.claims[key(c.Namespace, c.Name)] = c
	}
	for _, c := range o.ResourceClaimTemplates {
		t.templates[key(c.Namespace, c.Name)] = c
	}
	// Every request of every claim and template is a selection instance
	// types may offer; reading them now also finds their problems.
	for _, c := range o.ResourceClaims {
		if err := t.check(c.Spec); err != nil && !err.missing {
			problems = append(problems, Problem{c, "ResourceClaim/" + key(c.Namespace, c.Name), err.path, err.msg})
		}
	}
	for _, c := range o.ResourceClaimTemplates {
		if err := t.check(c.Spec.Spec); err != nil && !err.missing {
			problems = append(problems, Problem{c, "ResourceClaimTemplate/" + key(c.Namespace, c.Name), "spec." + err.path, err.msg})
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	return t, nil
}

func key(namespace, name string) string { return apis.NamespaceOf(namespace) + "/" + name }

// fieldError is a problem with a field; missing marks an object the field
// names that was not given (a DeviceClass), which defers the pods that need
// it rather than refusing the objects.
type fieldError struct {
	path, msg string
	missing   bool
}

// Deferred is why a pod's claims cannot be allocated yet: a ResourceClaim
// it names, or a DeviceClass its claim's requests name, does not exist.
// Karpenter leaves such a pod pending, out of the scheduling run, until the
// object exists (provisioning/scheduling/dra.go resolvePodClaims, and the
// allocator's request.go); package snapshot leaves it out of the plan with a
// warning.
type Deferred struct {
	// Pod is the pod (namespace/name), Path the field that names the
	// missing object.
	Pod, Path, Reason string
}

func (d Deferred) Error() string {
	return fmt.Sprintf("Pod/%s: %s: %s: Karpenter leaves the pod pending until it exists", d.Pod, d.Path, d.Reason)
}

// requests reads a claim's device requests as counts of a selection's
// devices: Exactly requests in ExactCount mode, without capacity requests
// (a claim with anything else makes the translator allocate, alloc.go),
// checked as allocSpec checks them.
func (t *Translator) requests(spec resourcev1.ResourceClaimSpec) ([]request, *fieldError) {
	if err := t.validate(spec); err != nil {
		return nil, err
	}
	var out []request
	for i, r := range spec.Devices.Requests {
		path := fmt.Sprintf("spec.devices.requests[%d]", i)
		ex := r.Exactly
		sel, err := t.selection(ex)
		if err != nil {
			return nil, &fieldError{path + ".exactly.selectors", err.Error(), false}
		}
		out = append(out, request{sel: sel, count: max(ex.Count, 1)})
	}
	return out, nil
}

// selection returns the selection of a request, made once per class and
// request selectors.
func (t *Translator) selection(ex *resourcev1.ExactDeviceRequest) (*selection, error) {
	var exprs []string
	for _, s := range ex.Selectors {
		if s.CEL == nil {
			return nil, fmt.Errorf("only CEL selectors exist in resource.k8s.io/v1")
		}
		exprs = append(exprs, s.CEL.Expression)
	}
	id := ex.DeviceClassName + "\x00" + strings.Join(exprs, "\x00")
	if sel, ok := t.selections[id]; ok {
		return sel, nil
	}
	sel := &selection{resource: resourceName(ex.DeviceClassName, exprs)}
	for _, s := range t.classes[ex.DeviceClassName].Spec.Selectors {
		m, err := compileCEL(s.CEL.Expression)
		if err != nil {
			return nil, err
		}
		sel.match = append(sel.match, m)
	}
	for _, e := range exprs {
		m, err := compileCEL(e)
		if err != nil {
			return nil, err
		}
		sel.match = append(sel.match, m)
	}
	t.selections[id] = sel
	return sel, nil
}

// resourceName is dra.karpsim.dev/<class>, with a hash of the request's
// selectors when it has any, within the 63 characters a name allows.
func resourceName(class string, exprs []string) corev1.ResourceName {
	name := class
	if len(exprs) > 0 || len(name) > 63 {
		h := fnv.New32a()
		h.Write([]byte(class + "\x00" + strings.Join(exprs, "\x00")))
		name = fmt.Sprintf("%s-%08x", name[:min(len(name), 54)], h.Sum32())
	}
	return corev1.ResourceName(ResourcePrefix + name)
}

// count is how many devices of it a selection takes.
func (s *selection) count(devices []Device) int64 {
	var n int64
	for _, d := range devices {
		if !slices.ContainsFunc(s.match, func(m matcher) bool { return !m(d) }) {
			n++
		}
	}
	return n
}

// Capacity is the type's capacity with every selection's devices added.
func (t *Translator) Capacity(it *instancetypes.InstanceType) resources.Vector {
	devices := InstanceTypeDevices(it)
	c := it.Capacity
	if len(devices) == 0 {
		return c
	}
	for _, sel := range t.sortedSelections() {
		if n := sel.count(devices); n > 0 {
			c = c.With(sel.resource, n).With(ResourceDevices, int64(len(devices)))
		}
	}
	return c
}

func (t *Translator) sortedSelections() []*selection {
	out := make([]*selection, 0, len(t.selections))
	for _, s := range t.selections {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *selection) int { return cmp.Compare(a.resource, b.resource) })
	return out
}

// Catalog returns the catalog with each type that has selected devices
// replaced by a copy offering them; the catalog is not changed.
func (t *Translator) Catalog(cat instancetypes.Catalog) instancetypes.Catalog {
	if t.alloc {
		// The allocator places claims on the types' devices: the
		// catalog is unchanged.
		t.indexTypes(cat)
		return cat
	}
	if len(t.selections) == 0 {
		return cat
	}
	out := make(instancetypes.Catalog, len(cat))
	for i, it := range cat {
		out[i] = it
		if c := t.Capacity(it); len(c.Names()) != len(it.Capacity.Names()) {
			out[i] = it.WithCapacity(c)
		}
	}
	return out
}

// NodeResources adds an existing node's devices to its capacity and
// allocatable lists, from its instance type (nil when unknown: the node
// then offers none).
func (t *Translator) NodeResources(it *instancetypes.InstanceType, capacity, allocatable corev1.ResourceList) (corev1.ResourceList, corev1.ResourceList) {
	if it == nil || t.alloc {
		return capacity, allocatable
	}
	return t.DeviceResources(InstanceTypeDevices(it), capacity, allocatable)
}

// DeviceResources adds devices (a node's, from NodeDevices) to a node's
// capacity and allocatable lists, as NodeResources adds its type's.
func (t *Translator) DeviceResources(devices []Device, capacity, allocatable corev1.ResourceList) (corev1.ResourceList, corev1.ResourceList) {
	capacity, allocatable = capacity.DeepCopy(), allocatable.DeepCopy()
	for _, sel := range t.sortedSelections() {
		if n := sel.count(devices); n > 0 {
			q := *resource.NewQuantity(n, resource.DecimalSI)
			if capacity == nil {
				capacity = corev1.ResourceList{}
			}
			if allocatable == nil {
				allocatable = corev1.ResourceList{}
			}
			capacity[sel.resource], allocatable[sel.resource] = q, q
			all := *resource.NewQuantity(int64(len(devices)), resource.DecimalSI)
			capacity[ResourceDevices], allocatable[ResourceDevices] = all, all
		}
	}
	return capacity, allocatable
}

// Claim allocation of a shared claim: the pod that allocates it carries
// this label (key per claim), the others require its node.
const claimLabelPrefix = ResourcePrefix + "claim-"

// Pod returns the pod as scheduling should see it: without ResourceClaims,
// requesting its claims' devices as extended resources (a claim shared with
// other pods only in the pod that allocates it: the first bound one, or the
// first given), held on the node of a shared claim's allocating pod, and,
// unless it is on a node already, on the nodes an allocated claim's node
// selector allows. A pod without
// claims is returned as it is; the pod given is never changed. The error
// is a Problem naming the pod's field.
func (t *Translator) Pod(p *corev1.Pod) (*corev1.Pod, error) {
	if len(p.Spec.ResourceClaims) == 0 {
		return p, nil
	}
	out := p.DeepCopy()
	out.Spec.ResourceClaims = nil
	podKey := apis.PodKey(p)
	delete(t.demand, podKey)
	var extra resources.Vector
	for i, pc := range p.Spec.ResourceClaims {
		path := fmt.Sprintf("spec.resourceClaims[%d]", i)
		problem := func(field, msg string) error {
			return Problem{p, "Pod/" + podKey, path + field, msg}
		}
		var spec resourcev1.ResourceClaimSpec
		var claim *resourcev1.ResourceClaim
		generated, known := generatedClaim(p, pc.Name)
		switch {
		case pc.ResourceClaimTemplateName != nil && known && generated == "":
			// The claim controller found no claim needed: nothing
			// to allocate, as Karpenter skips it.
			continue
		case pc.ResourceClaimTemplateName != nil && known && t.claims[key(p.Namespace, generated)] != nil:
			// The claim generated for this pod is given: it is the
			// one allocated, with its status.
			claim = t.claims[key(p.Namespace, generated)]
			spec = claim.Spec
		case pc.ResourceClaimTemplateName != nil:
			tmpl := t.templates[key(p.Namespace, *pc.ResourceClaimTemplateName)]
			if tmpl == nil {
				return nil, problem(".resourceClaimTemplateName", fmt.Sprintf("no ResourceClaimTemplate %s was given", key(p.Namespace, *pc.ResourceClaimTemplateName)))
			}
			spec = tmpl.Spec.Spec
		case pc.ResourceClaimName != nil:
			claim = t.claims[key(p.Namespace, *pc.ResourceClaimName)]
			if claim == nil {
				return nil, Deferred{podKey, path + ".resourceClaimName", fmt.Sprintf("ResourceClaim %s does not exist", key(p.Namespace, *pc.ResourceClaimName))}
			}
			spec = claim.Spec
		default:
			return nil, problem("", "one of resourceClaimName and resourceClaimTemplateName is required")
		}
		var reqs []request
		var ac allocClaim
		var ferr *fieldError
		if t.alloc {
			ac, ferr = t.allocSpec(spec)
		} else {
			reqs, ferr = t.requests(spec)
		}
		if ferr != nil && ferr.missing {
			return nil, Deferred{podKey, path, ferr.path + ": " + ferr.msg}
		}
		if ferr != nil {
			return nil, problem("", ferr.path+": "+ferr.msg)
		}
		// What published devices the claim holds or was given
		// (published.go) leaves the rest to ask of the node.
		reqs, cluster, topology := t.publishedPart(p, pc, claim, reqs)
		held := t.heldInCluster(claim)
		if held {
			// Its pods need no common node when it holds only
			// devices no node owns (allocpub.go).
			cluster = t.clusterOnly(claim)
		}
		if topology != nil && (p.Spec.NodeName == "" || t.state.Moving[podKey]) {
			requireNodes(out, topology)
		}
		allocates := true
		if claim != nil && !cluster {
			claimKey := key(claim.Namespace, claim.Name)
			owner, ok := t.owners[claimKey]
			if !ok {
				owner = podKey
				t.owners[claimKey] = owner
			}
			label := claimLabel(claimKey)
			if owner != podKey {
				requirePodOf(out, label)
				reqs, allocates = nil, false
			} else {
				if out.Labels == nil {
					out.Labels = map[string]string{}
				}
				out.Labels[label] = "allocates"
			}
		}
		// A pod already on a node holds the claim there; wherever a
		// simulation moves it (consolidation, a deleting node),
		// Karpenter deallocates its claim and allocates it anew.
		if claim != nil && claim.Status.Allocation != nil && claim.Status.Allocation.NodeSelector != nil && p.Spec.NodeName == "" && !t.reallocated(claim) {
			requireNodes(out, claim.Status.Allocation.NodeSelector)
		}
		if t.alloc && allocates && (!held || t.pins(claim, podKey, &ac)) {
			t.demand[podKey] = append(t.demand[podKey], ac)
		}
		for _, r := range reqs {
			// Saturating sums: a count past 2^53 is refused later as
			// the container's request, never wrapped into a small one.
			extra = extra.Add(resources.Vector{}.With(r.sel.resource, r.count))
			extra = extra.Add(resources.Vector{}.With(ResourceDevices, r.count))
		}
	}
	if names := extra.Names(); len(names) > 0 {
		if len(out.Spec.Containers) == 0 {
			return nil, Problem{p, "Pod/" + podKey, "spec.containers", "a pod with claims needs a container to account their devices to"}
		}
		c := &out.Spec.Containers[0]
		if c.Resources.Requests == nil {
			c.Resources.Requests = corev1.ResourceList{}
		}
		if c.Resources.Limits == nil {
			c.Resources.Limits = corev1.ResourceList{}
		}
		for _, name := range names {
			q := *resource.NewQuantity(extra.Get(name), resource.DecimalSI)
			c.Resources.Requests[name], c.Resources.Limits[name] = q, q
		}
	}
	for i := range out.Spec.Containers {
		out.Spec.Containers[i].Resources.Claims = nil
	}
	for i := range out.Spec.InitContainers {
		out.Spec.InitContainers[i].Resources.Claims = nil
	}
	return out, nil
}

// generatedClaim is the name of the claim the claim controller generated
// for the pod's template reference name, from the pod's
// status.resourceClaimStatuses: known is false when the status has no
// entry (no claim generated yet: the template is read instead), and the
// name is "" when the controller found no claim needed.
func generatedClaim(p *corev1.Pod, name string) (generated string, known bool) {
	for _, s := range p.Status.ResourceClaimStatuses {
		if s.Name == name {
			if s.ResourceClaimName == nil {
				return "", true
			}
			return *s.ResourceClaimName, true
		}
	}
	return "", false
}

// Allocates sets the pod that allocates a shared claim, before any other
// pod referencing it is translated: a pod already running with it.
func (t *Translator) Allocates(p *corev1.Pod) {
	for _, pc := range p.Spec.ResourceClaims {
		if pc.ResourceClaimName != nil {
			k := key(p.Namespace, *pc.ResourceClaimName)
			if _, ok := t.owners[k]; !ok {
				t.owners[k] = apis.PodKey(p)
			}
		}
	}
}

func claimLabel(claimKey string) string {
	h := fnv.New64a()
	h.Write([]byte(claimKey))
	return fmt.Sprintf("%s%016x", claimLabelPrefix, h.Sum64())
}

// requirePodOf adds a required pod affinity to the node (hostname) of the
// pod carrying label.
func requirePodOf(p *corev1.Pod, label string) {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.PodAffinity == nil {
		p.Spec.Affinity.PodAffinity = &corev1.PodAffinity{}
	}
	a := p.Spec.Affinity.PodAffinity
	a.RequiredDuringSchedulingIgnoredDuringExecution = append(a.RequiredDuringSchedulingIgnoredDuringExecution, corev1.PodAffinityTerm{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{label: "allocates"}},
		TopologyKey:   apis.LabelHostname,
	})
}

// requireNodes narrows the pod's required node affinity to the node
// selector's terms: every existing term is combined with every one of
// them.
func requireNodes(p *corev1.Pod, sel *corev1.NodeSelector) {
	if p.Spec.Affinity == nil {
		p.Spec.Affinity = &corev1.Affinity{}
	}
	if p.Spec.Affinity.NodeAffinity == nil {
		p.Spec.Affinity.NodeAffinity = &corev1.NodeAffinity{}
	}
	na := p.Spec.Affinity.NodeAffinity
	if na.RequiredDuringSchedulingIgnoredDuringExecution == nil || len(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms) == 0 {
		na.RequiredDuringSchedulingIgnoredDuringExecution = sel.DeepCopy()
		return
	}
	var terms []corev1.NodeSelectorTerm
	for _, have := range na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
		for _, add := range sel.NodeSelectorTerms {
			terms = append(terms, corev1.NodeSelectorTerm{
				MatchExpressions: slices.Concat(have.MatchExpressions, add.MatchExpressions),
				MatchFields:      slices.Concat(have.MatchFields, add.MatchFields),
			})
		}
	}
	na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = terms
}

// HasClaims reports whether any pod claims devices.
func HasClaims(pods []*corev1.Pod) bool {
	return slices.ContainsFunc(pods, apis.ClaimsDevices)
}
