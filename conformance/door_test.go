package conformance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/conformance/internal/casebook"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/drift"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// The door: every case also runs with its objects written as one
// multi-document YAML file and read back the way `karpsim plan` and
// `karpsim disrupt` read -f files (manifests.LoadLimited with the default
// limits, then snapshot.FromSet or snapshot.ForDisruption), the instance
// types of each NodePool written as the JSON catalog --catalog reads. Cases
// reach the decision packages through solveCase and evaluateCase; while
// TestDoor runs a case (door set) those run the direct input and the one
// read back, record any difference between the two decisions, and hand the
// case the decision read back, so that the case's own assertions check it
// against upstream's outcome too.

// doorRun is what the door found in one run of a case.
type doorRun struct {
	// calls counts the decisions taken through the door.
	calls int
	// diverged says how a decision read back differs from the direct one.
	diverged []string
	// reasons says how the reasons given differ when the decisions are
	// the same.
	reasons []string
	// refused are the loader's and snapshot's errors on the objects.
	refused []string
	// inexpressible says why an input could not be written as objects;
	// such a call returns the direct decision.
	inexpressible []string
}

// door is the run under way while TestDoor runs a case, nil otherwise.
// Cases run one at a time (allResults, doorResults), so one is enough.
var door *doorRun

// solveCase is scheduling.Solve for the cases: through the door too when
// TestDoor runs.
func solveCase(in scheduling.Input) scheduling.Result {
	res := scheduling.Solve(in)
	if door == nil {
		return res
	}
	through, err := solveThroughDoor(in)
	if err != nil {
		door.note(err)
		return res
	}
	door.calls++
	if d := diffJSON(planView(res), planView(through)); d != "" {
		door.diverged = append(door.diverged, "plan: "+d)
	} else if d := diffJSON(planReasons(res), planReasons(through)); d != "" {
		door.reasons = append(door.reasons, "plan: "+d)
	}
	return through
}

// solveRead is scheduling.Solve for the cases whose input a snapshot
// already read from YAML: through the door by construction.
func solveRead(in scheduling.Input) scheduling.Result {
	if door != nil {
		door.calls++
	}
	return scheduling.Solve(in)
}

// evaluateCase is consolidation.Evaluate for the cases: through the door
// too when TestDoor runs.
func evaluateCase(c consolidation.Cluster, now time.Time, opts consolidation.Options) consolidation.Decision {
	d := consolidation.Evaluate(c, now, opts)
	if door == nil {
		return d
	}
	through, err := evaluateThroughDoor(c, now, opts)
	if err != nil {
		door.note(err)
		return d
	}
	door.calls++
	if diff := diffJSON(decisionView(d), decisionView(through)); diff != "" {
		door.diverged = append(door.diverged, "disrupt: "+diff)
	} else if diff := diffJSON(decisionReasons(d), decisionReasons(through)); diff != "" {
		door.reasons = append(door.reasons, "disrupt: "+diff)
	}
	return through
}

func (r *doorRun) note(err error) {
	var inexpressible errInexpressible
	if errors.As(err, &inexpressible) {
		r.inexpressible = append(r.inexpressible, inexpressible.reason)
		return
	}
	r.refused = append(r.refused, err.Error())
}

// errInexpressible is an input no Kubernetes object states.
type errInexpressible struct{ reason string }

func (e errInexpressible) Error() string { return "not expressible as objects: " + e.reason }

func inexpressible(format string, args ...any) error {
	return errInexpressible{fmt.Sprintf(format, args...)}
}

// doorFile is the objects of one input, written in order, and the catalog
// of each EC2NodeClass they name.
type doorFile struct {
	docs     [][]byte
	catalogs map[string][]byte
	// classOf is the EC2NodeClass written for each NodePool.
	classOf map[string]string
	// claimNames are the NodeClaims written.
	claimNames map[string]bool
	err        error
}

func (f *doorFile) add(apiVersion, kind string, obj any) {
	if f.err != nil {
		return
	}
	var tree map[string]any
	data, err := json.Marshal(obj)
	if err == nil {
		err = json.Unmarshal(data, &tree)
	}
	if err != nil {
		f.err = err
		return
	}
	tree["apiVersion"], tree["kind"] = apiVersion, kind
	// The CRDs require requirements, even empty.
	switch kind {
	case "NodePool":
		setIfAbsent(tree, []any{}, "spec", "template", "spec", "requirements")
	case "NodeClaim":
		setIfAbsent(tree, []any{}, "spec", "requirements")
	}
	out, err := yaml.Marshal(tree)
	if err != nil {
		f.err = err
		return
	}
	f.docs = append(f.docs, out)
}

// setIfAbsent sets the field at path of tree to v unless it is set.
func setIfAbsent(tree map[string]any, v any, path ...string) {
	for _, k := range path[:len(path)-1] {
		next, ok := tree[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			tree[k] = next
		}
		tree = next
	}
	if tree[path[len(path)-1]] == nil {
		tree[path[len(path)-1]] = v
	}
}

// pools writes the NodePools, each naming the EC2NodeClass whose catalog
// is its instance types: the name it gives when every pool of that name
// has the same types, else "door-<pool>".
func (f *doorFile) pools(pools []scheduling.Pool) {
	if len(pools) == 0 {
		f.err = inexpressible("no NodePool: given none, karpsim plans with its default NodePool")
		return
	}
	f.catalogs = map[string][]byte{}
	byClass := map[string][]byte{}
	ambiguous := map[string]bool{}
	written := make([][]byte, len(pools))
	for i, p := range pools {
		data, err := catalogJSON(p.InstanceTypes)
		if err != nil {
			f.err = err
			return
		}
		written[i] = data
		class := classOf(p.NodePool)
		if prev, ok := byClass[class]; ok && !bytes.Equal(prev, written[i]) {
			ambiguous[class] = true
		}
		byClass[class] = written[i]
	}
	f.classOf = map[string]string{}
	for i, p := range pools {
		np := p.NodePool.DeepCopy()
		class := classOf(np)
		if ambiguous[class] || class == "" {
			class = "door-" + np.Name
			np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: apis.KindEC2NodeClass, Name: class}
		}
		if _, done := f.catalogs[class]; !done {
			f.nodeClass(class)
		}
		f.catalogs[class] = written[i]
		f.classOf[np.Name] = class
		f.add("karpenter.sh/v1", "NodePool", np)
	}
}

// nodeClass writes the smallest EC2NodeClass the loader accepts; its
// instance types are the catalog's.
func (f *doorFile) nodeClass(name string) {
	f.add("karpenter.k8s.aws/v1", "EC2NodeClass", map[string]any{
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"role":                       "KarpenterNodeRole",
			"amiSelectorTerms":           []any{map[string]any{"alias": "al2023@latest"}},
			"subnetSelectorTerms":        []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "door"}}},
			"securityGroupSelectorTerms": []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "door"}}},
		},
	})
}

// catalogKey names a catalog by its first type and length: cases share
// their catalogs, which are read-only.
type catalogKey struct {
	first *instancetypes.InstanceType
	n     int
}

// catalogs caches what catalogJSON and readCatalog make; the cases run one
// at a time.
var (
	catalogsWritten = map[catalogKey][]byte{}
	catalogsRead    = map[string]instancetypes.Catalog{}
)

// catalogJSON is the catalog as --catalog reads it.
func catalogJSON(c instancetypes.Catalog) ([]byte, error) {
	if len(c) == 0 {
		return []byte("[]\n"), nil
	}
	key := catalogKey{c[0], len(c)}
	if data, ok := catalogsWritten[key]; ok {
		return data, nil
	}
	var buf bytes.Buffer
	if err := instancetypes.WriteJSON(&buf, c); err != nil {
		return nil, err
	}
	catalogsWritten[key] = buf.Bytes()
	return buf.Bytes(), nil
}

// readCatalog reads a catalog as --catalog does.
func readCatalog(data []byte, name string) (instancetypes.Catalog, error) {
	if c, ok := catalogsRead[string(data)]; ok {
		return c, nil
	}
	c, err := instancetypes.ReadJSON(bytes.NewReader(data), name)
	if err == nil {
		catalogsRead[string(data)] = c
	}
	return c, err
}

func classOf(np *apis.NodePool) string {
	if ref := np.Spec.Template.Spec.NodeClassRef; ref != nil {
		return ref.Name
	}
	return ""
}

func (f *doorFile) pod(p *corev1.Pod) {
	c := p.DeepCopy()
	limitExtended(&c.Spec)
	f.add("v1", "Pod", c)
}

// limitExtended gives every request of an extended resource without a
// limit a limit equal to it, as the API server requires of a pod (such
// resources cannot be overcommitted); a solve reads requests only.
func limitExtended(spec *corev1.PodSpec) {
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for i := range list {
			r := &list[i].Resources
			for name, q := range r.Requests {
				if _, limited := r.Limits[name]; limited || !extendedResource(name) {
					continue
				}
				if r.Limits == nil {
					r.Limits = corev1.ResourceList{}
				}
				r.Limits[name] = q.DeepCopy()
			}
		}
	}
}

// extendedResource reports whether name is an extended resource: qualified by a
// domain other than kubernetes.io.
func extendedResource(name corev1.ResourceName) bool {
	n := string(name)
	return strings.Contains(n, "/") && !strings.HasPrefix(n, "kubernetes.io/") && !strings.Contains(n, ".kubernetes.io/") &&
		!strings.HasPrefix(n, corev1.ResourceHugePagesPrefix)
}

// daemonSets writes one DaemonSet per DaemonSet pod, named after the pod,
// its template the pod's. A pod that doorTemplates gives a template for
// was the DaemonSet's live pod upstream: the DaemonSet gets that template
// and the pod is written as its pod.
func (f *doorFile) daemonSets(pods []*corev1.Pod) {
	for _, p := range pods {
		ds := &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, UID: "ds-uid-" + p.UID}}
		ds.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"door-daemon": p.Name}}
		template := p
		if t, ok := doorTemplates[p.Name]; ok {
			template = t
			live, controller := p.DeepCopy(), true
			live.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.Name, UID: ds.UID, Controller: &controller}}
			f.pod(live)
		}
		ds.Spec.Template.ObjectMeta = metav1.ObjectMeta{Labels: maps.Clone(template.Labels), Annotations: maps.Clone(template.Annotations)}
		if ds.Spec.Template.Labels == nil {
			ds.Spec.Template.Labels = map[string]string{}
		}
		ds.Spec.Template.Labels["door-daemon"] = p.Name
		ds.Spec.Template.Spec = *template.Spec.DeepCopy()
		limitExtended(&ds.Spec.Template.Spec)
		f.add("apps/v1", "DaemonSet", ds)
	}
}

// daemonWithTemplate is the DaemonSet pod live, whose DaemonSet's template
// upstream is template's pod: through the door, the DaemonSet has that
// template and live is its pod.
func daemonWithTemplate(live, template *corev1.Pod) *corev1.Pod {
	doorTemplates[live.Name] = template
	return live
}

// doorTemplates are the DaemonSet templates of the cases whose DaemonSet
// pod upstream differs from its template, by the pod's name.
var doorTemplates = map[string]*corev1.Pod{}

// node writes a node and its pods. A managed node carries its NodePool's
// label, and the initialized label when it is initialized; a node no
// NodePool manages is Ready when it is initialized. Startup taints are the
// NodePool's, as the snapshot reads them.
func (f *doorFile) node(n *scheduling.Node, pools map[string]*apis.NodePool) (*corev1.Node, error) {
	if len(n.VolumeLimits) > 0 {
		csi := &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: n.Name}}
		for _, driver := range slices.Sorted(maps.Keys(n.VolumeLimits)) {
			count := int32(n.VolumeLimits[driver])
			csi.Spec.Drivers = append(csi.Spec.Drivers, storagev1.CSINodeDriver{Name: driver, NodeID: n.Name,
				Allocatable: &storagev1.VolumeNodeResources{Count: &count}})
		}
		f.add("storage.k8s.io/v1", "CSINode", csi)
	}
	obj := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: maps.Clone(n.Labels)}}
	if obj.Labels == nil {
		obj.Labels = map[string]string{}
	}
	obj.Spec.Taints = slices.Clone(n.Taints)
	obj.Status.Capacity, obj.Status.Allocatable = n.Capacity.DeepCopy(), n.Allocatable.DeepCopy()
	ready := corev1.ConditionTrue
	if n.NodePool != "" {
		obj.Labels[apis.LabelNodePool] = n.NodePool
		delete(obj.Labels, apis.LabelNodeInitialized)
		if n.Initialized {
			obj.Labels[apis.LabelNodeInitialized] = "true"
		}
		var want []corev1.Taint
		if np := pools[n.NodePool]; np != nil {
			want = np.Spec.Template.Spec.StartupTaints
		}
		if !slices.EqualFunc(n.StartupTaints, want, func(a, b corev1.Taint) bool { return a.MatchTaint(&b) }) {
			return nil, inexpressible("node %s has startup taints other than its NodePool's", n.Name)
		}
	} else {
		if len(n.StartupTaints) > 0 {
			return nil, inexpressible("node %s has startup taints but no NodePool", n.Name)
		}
		if !n.Initialized {
			ready = corev1.ConditionFalse
		}
	}
	obj.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: ready}}
	for _, p := range n.Pods {
		bound := p.DeepCopy()
		bound.Spec.NodeName = n.Name
		f.pod(bound)
	}
	return obj, nil
}

// launchedBy writes the NodeClaim that launched a node of a NodePool not
// yet initialized: only the node of a NodeClaim is Karpenter's to
// initialize, it counts any other as initialized.
func (f *doorFile) launchedBy(n *scheduling.Node, pools map[string]*apis.NodePool) {
	if n.NodePool == "" || n.Initialized {
		return
	}
	pool := pools[n.NodePool]
	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "door-claim-" + n.Name,
		Labels: map[string]string{apis.LabelNodePool: n.NodePool}}}
	if pool != nil {
		claim.Spec.NodeClassRef = pool.Spec.Template.Spec.NodeClassRef
	}
	claim.Status.NodeName = n.Name
	f.add("karpenter.sh/v1", "NodeClaim", claim)
}

// volumes writes what pods' volumes refer to.
func (f *doorFile) volumes(in scheduling.Input) {
	for _, c := range in.StorageClasses {
		f.add("storage.k8s.io/v1", "StorageClass", c.DeepCopy())
	}
	for _, v := range in.PersistentVolumes {
		f.add("v1", "PersistentVolume", v.DeepCopy())
	}
	for _, c := range in.PersistentVolumeClaims {
		f.add("v1", "PersistentVolumeClaim", c.DeepCopy())
	}
}

// load reads the file back as `karpsim plan -f file --catalog …` does.
func (f *doorFile) load() (*manifests.Set, snapshot.Options, error) {
	if f.err != nil {
		return nil, snapshot.Options{}, f.err
	}
	data := bytes.Join(f.docs, []byte("---\n"))
	set, err := manifests.LoadLimited(manifests.DefaultLimits(), manifests.Input{Stream: manifests.Stream{Name: "door.yaml", Data: data}})
	if err != nil {
		return nil, snapshot.Options{}, fmt.Errorf("%w\n%s", err, data)
	}
	catalogs := map[string]instancetypes.Catalog{}
	for class, data := range f.catalogs {
		c, err := readCatalog(data, class+".json")
		if err != nil && strings.Contains(err.Error(), "no instance types") {
			return nil, snapshot.Options{}, inexpressible("a NodePool without instance types, which a JSON catalog cannot state")
		}
		if err != nil && strings.Contains(err.Error(), "offerings: two for zone") {
			return nil, snapshot.Options{}, inexpressible("several offerings of one type per zone and capacity type (offering overrides), which a JSON catalog cannot state")
		}
		if err != nil {
			return nil, snapshot.Options{}, err
		}
		catalogs[class] = c
	}
	opts := snapshot.Options{Catalog: func(nc *apis.EC2NodeClass) (instancetypes.Catalog, error) {
		name := ""
		if nc != nil {
			name = nc.Name
		}
		if c, ok := catalogs[name]; ok {
			return c, nil
		}
		for _, class := range slices.Sorted(maps.Keys(catalogs)) {
			return catalogs[class], nil
		}
		return nil, fmt.Errorf("door: no catalog for EC2NodeClass %q", name)
	}}
	return set, opts, nil
}

// writeDefaultSpread writes the configuration, Services and controllers
// that give the default spread constraints: each controller a ReplicaSet or
// StatefulSet of its selector, with as many replicas as the pods it owns
// (a StatefulSet none, so that its pods are not made again by ordinal).
func (f *doorFile) writeDefaultSpread(d *scheduling.DefaultSpread, pods []*corev1.Pod) error {
	if d == nil {
		return nil
	}
	for _, key := range slices.Sorted(maps.Keys(d.Controllers)) {
		if err := f.controller(key, d.Controllers[key], pods); err != nil {
			return err
		}
	}
	args := map[string]any{"defaultingType": "List", "defaultConstraints": d.Constraints}
	cfg := map[string]any{
		"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
		"profiles": []any{map[string]any{"schedulerName": "default-scheduler",
			"pluginConfig": []any{map[string]any{"name": "PodTopologySpread", "args": args}}}},
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return err
	}
	f.docs = append(f.docs, out)
	for _, s := range d.Services {
		f.add("v1", "Service", s.DeepCopy())
	}
	return nil
}

// controller writes the controller of key ("Kind/namespace/name") with
// the selector, its template labelled to match it.
func (f *doorFile) controller(key string, sel *metav1.LabelSelector, pods []*corev1.Pod) error {
	kind, rest, _ := strings.Cut(key, "/")
	ns, name, _ := strings.Cut(rest, "/")
	labels := maps.Clone(sel.MatchLabels)
	if labels == nil {
		labels = map[string]string{}
	}
	for _, e := range sel.MatchExpressions {
		switch e.Operator {
		case metav1.LabelSelectorOpIn:
			labels[e.Key] = e.Values[0]
		case metav1.LabelSelectorOpExists:
			labels[e.Key] = "x"
		}
	}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/app:1"}}}}
	meta := metav1.ObjectMeta{Name: name, Namespace: ns}
	var owned int32
	for _, p := range pods {
		for _, ref := range p.OwnerReferences {
			if ref.Kind == kind && ref.Name == name && apis.NamespaceOf(p.Namespace) == apis.NamespaceOf(ns) {
				owned++
			}
		}
	}
	switch kind {
	case "ReplicaSet":
		f.add("apps/v1", kind, &appsv1.ReplicaSet{ObjectMeta: meta, Spec: appsv1.ReplicaSetSpec{Replicas: &owned, Selector: sel.DeepCopy(), Template: tmpl}})
	case "StatefulSet":
		var none int32
		f.add("apps/v1", kind, &appsv1.StatefulSet{ObjectMeta: meta, Spec: appsv1.StatefulSetSpec{Replicas: &none, Selector: sel.DeepCopy(), Template: tmpl}})
	default:
		return inexpressible("default spread constraints with a %s's selector, which karpsim reads from no object", kind)
	}
	return nil
}

func poolsByName[T any](pools []T, np func(T) *apis.NodePool) map[string]*apis.NodePool {
	out := map[string]*apis.NodePool{}
	for _, p := range pools {
		out[np(p).Name] = np(p)
	}
	return out
}

// solveThroughDoor writes in as objects, reads them back as `karpsim plan`
// does and solves the snapshot's input with in's options.
func solveThroughDoor(in scheduling.Input) (scheduling.Result, error) {
	f := &doorFile{}
	if err := f.writeDefaultSpread(in.Options.DefaultSpread, in.Pods); err != nil {
		return scheduling.Result{}, err
	}
	f.pools(in.NodePools)
	pools := poolsByName(in.NodePools, func(p scheduling.Pool) *apis.NodePool { return p.NodePool })
	for _, n := range in.Nodes {
		obj, err := f.node(n, pools)
		if err != nil {
			return scheduling.Result{}, err
		}
		f.add("v1", "Node", obj)
		f.launchedBy(n, pools)
	}
	for _, p := range in.Pods {
		if apis.IsBufferPod(p) {
			return scheduling.Result{}, inexpressible("a CapacityBuffer's virtual pod handed in as a pod")
		}
		pending := p.DeepCopy()
		pending.Spec.NodeName = ""
		f.pod(pending)
	}
	f.daemonSets(in.DaemonSets)
	f.volumes(in)
	set, opts, err := f.load()
	if err != nil {
		return scheduling.Result{}, err
	}
	opts.DRA = in.Options.DRA
	snap, err := snapshot.FromSet(set, opts)
	if err != nil {
		return scheduling.Result{}, err
	}
	o := in.Options
	o.DefaultSpread = nil
	return scheduling.Solve(snap.Input(o)), nil
}

// evaluateThroughDoor writes c as objects, reads them back as `karpsim
// disrupt` does and evaluates the view at now with opts.
func evaluateThroughDoor(c consolidation.Cluster, now time.Time, opts consolidation.Options) (consolidation.Decision, error) {
	view, o, err := disruptionThroughDoor(c, now, opts)
	if err != nil {
		return consolidation.Decision{}, err
	}
	return consolidation.Evaluate(view, now, o), nil
}

// disruptionThroughDoor writes c as objects and reads them back as `karpsim
// disrupt` does: the cluster and options it evaluates at now.
func disruptionThroughDoor(c consolidation.Cluster, now time.Time, opts consolidation.Options) (consolidation.Cluster, consolidation.Options, error) {
	f := &doorFile{}
	pods := slices.Clone(c.Pending)
	for _, n := range c.Nodes {
		pods = append(pods, n.Node.Pods...)
	}
	if err := f.writeDefaultSpread(opts.Scheduling.DefaultSpread, pods); err != nil {
		return consolidation.Cluster{}, opts, err
	}
	pools := slices.Clone(c.NodePools)
	f.pools(pools)
	byName := poolsByName(pools, func(p scheduling.Pool) *apis.NodePool { return p.NodePool })
	for _, n := range c.Nodes {
		obj, claim, err := f.disruptionNode(n, byName, now)
		if err != nil {
			return consolidation.Cluster{}, opts, err
		}
		f.add("v1", "Node", obj)
		if claim != nil {
			f.add("karpenter.sh/v1", "NodeClaim", claim)
		}
	}
	for _, p := range c.Pending {
		if apis.IsBufferPod(p) {
			return consolidation.Cluster{}, opts, inexpressible("a CapacityBuffer's virtual pod handed in as a pod")
		}
		f.pod(p)
	}
	f.daemonSets(c.DaemonSets)
	for _, pdb := range c.PDBs {
		f.add("policy/v1", "PodDisruptionBudget", pdb.DeepCopy())
	}
	set, sopts, err := f.load()
	if err != nil {
		return consolidation.Cluster{}, opts, err
	}
	sopts.DRA = opts.Scheduling.DRA
	view, err := snapshot.ForDisruption(set, sopts, now)
	if err != nil {
		return consolidation.Cluster{}, opts, err
	}
	stated := map[string]bool{}
	for _, n := range c.Nodes {
		stated[n.Node.Name] = n.Drift != nil
	}
	for _, n := range view.Cluster.Nodes {
		if n.Drift != nil && !stated[n.Node.Name] {
			return consolidation.Cluster{}, opts, inexpressible("node %s is not drifted in the case, but its objects drift (%s): karpsim disrupt computes drift from the NodeClaim, its NodePool and catalog, not from a Drifted condition", n.Node.Name, n.Drift.Reason)
		}
	}
	o := opts
	o.Cache = nil
	o.Scheduling.DefaultSpread = view.DefaultSpread
	return view.Cluster, o, nil
}

// disruptionNode writes a node as the disruption controller sees it: its
// annotations, deletion and readiness on the node; its initialization,
// last pod event and drift on its NodeClaim (a drifted node's claim
// carries a NodePool hash that is not its NodePool's, and the Drifted
// condition since when it drifted).
func (f *doorFile) disruptionNode(n *consolidation.Node, pools map[string]*apis.NodePool, now time.Time) (*corev1.Node, *apis.NodeClaim, error) {
	switch {
	case !n.NominatedAt.IsZero():
		return nil, nil, inexpressible("node %s was nominated for a pod, which lives in Karpenter's memory, not in an object", n.Node.Name)
	case n.BufferPods > 0:
		return nil, nil, inexpressible("node %s holds CapacityBuffer room handed in as a count", n.Node.Name)
	case n.Drift != nil && n.Drift.Reason != string(drift.NodePoolDrifted):
		return nil, nil, inexpressible("node %s drifted for %s, handed in as a status", n.Node.Name, n.Drift.Reason)
	}
	obj, err := f.node(n.Node, pools)
	if err != nil {
		return nil, nil, err
	}
	obj.Annotations = maps.Clone(n.Annotations)
	if n.NotReady {
		obj.Status.Conditions[0].Status = corev1.ConditionFalse
	}
	created := n.InitializedAt
	if n.Health != nil {
		// The node's own conditions, its Ready one in place of the door's.
		for _, c := range n.Health.Conditions {
			if c.Type == corev1.NodeReady {
				obj.Status.Conditions[0] = c
				continue
			}
			obj.Status.Conditions = append(obj.Status.Conditions, c)
		}
		if !n.Health.Created.IsZero() {
			created = n.Health.Created
		}
	}
	if n.NodeClaim == nil {
		if n.Deleting {
			obj.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Second)}
			obj.Finalizers = []string{"karpenter.sh/termination"}
		}
		obj.CreationTimestamp = metav1.NewTime(created)
		return obj, nil, nil
	}
	claim := n.NodeClaim.DeepCopy()
	if f.claimNames[claim.Name] {
		// Cases name successive replacements alike; the API server would not.
		claim.Name = "door-claim-" + n.Node.Name
	}
	if f.claimNames == nil {
		f.claimNames = map[string]bool{}
	}
	f.claimNames[claim.Name] = true
	if claim.Labels == nil {
		claim.Labels = map[string]string{}
	}
	if n.Node.NodePool != "" {
		claim.Labels[apis.LabelNodePool] = n.Node.NodePool
	}
	claim.Status.NodeName = n.Node.Name
	// A claim with a node has launched and carries its instance's ID, as
	// the node does.
	obj.Spec.ProviderID = "door:///" + n.Node.Name
	claim.Status.ProviderID = obj.Spec.ProviderID
	if !slices.ContainsFunc(claim.Status.Conditions, func(c metav1.Condition) bool { return c.Type == "Launched" }) {
		setCondition(claim, "Launched", n.InitializedAt)
	}
	if claim.Spec.NodeClassRef == nil {
		class, ok := f.classOf[n.Node.NodePool]
		if !ok {
			class = "door-unknown"
		}
		claim.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: apis.KindEC2NodeClass, Name: class}
	}
	if n.Deleting {
		claim.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Second)}
		claim.Finalizers = []string{"karpenter.sh/termination"}
	}
	claim.Status.LastPodEventTime = metav1.NewTime(n.LastPodEventAt)
	if !n.InitializedAt.IsZero() {
		setCondition(claim, "Initialized", n.InitializedAt)
	}
	if n.Drift != nil {
		if claim.Annotations == nil {
			claim.Annotations = map[string]string{}
		}
		claim.Annotations[apis.AnnotationNodePoolHash] = "door-drifted"
		claim.Annotations[apis.AnnotationNodePoolHashVersion] = drift.NodePoolHashVersion
		setCondition(claim, "Drifted", n.Drift.Since)
	}
	obj.CreationTimestamp = metav1.NewTime(created)
	return obj, claim, nil
}

func setCondition(claim *apis.NodeClaim, t string, at time.Time) {
	claim.Status.Conditions = slices.DeleteFunc(claim.Status.Conditions, func(c metav1.Condition) bool { return c.Type == t })
	claim.Status.Conditions = append(claim.Status.Conditions, metav1.Condition{Type: t, Status: metav1.ConditionTrue,
		LastTransitionTime: metav1.NewTime(at), Reason: t, Message: ""})
}

// planView is what a plan decides: the new NodeClaims, the bindings and
// the unschedulable pods; planReasons why each pod is unschedulable.
func planView(r scheduling.Result) any {
	var pods []string
	for _, u := range r.Unschedulable {
		pods = append(pods, u.Pod)
	}
	return struct {
		NodeClaims    []scheduling.NodeClaim
		Bindings      []scheduling.Binding
		Unschedulable []string
	}{r.NodeClaims, r.Bindings, pods}
}

func planReasons(r scheduling.Result) any { return r.Unschedulable }

// decisionView is what an evaluation decides: the commands and which nodes
// they disrupt; decisionReasons the reasons given for each.
func decisionView(d consolidation.Decision) any {
	d.Commands = slices.Clone(d.Commands)
	for i := range d.Commands {
		d.Commands[i].Reason = ""
	}
	d.Candidates = slices.Clone(d.Candidates)
	for i := range d.Candidates {
		d.Candidates[i].Reason = ""
	}
	return d
}

// doorDriftDetail is what drift detection says of the hash the door gives a
// drifted node's claim; the case states the reason alone.
var doorDriftDetail = regexp.MustCompile(`: karpenter\.sh/nodepool-hash door-drifted on NodeClaim "[^"]*" != [0-9]+, the hash of NodePool "[^"]*"'s template \(version v[0-9]+\)`)

func decisionReasons(d consolidation.Decision) any {
	var out []string
	for _, c := range d.Commands {
		out = append(out, doorDriftDetail.ReplaceAllString(c.Reason, ""))
	}
	for _, c := range d.Candidates {
		out = append(out, c.Node+": "+doorDriftDetail.ReplaceAllString(c.Reason, ""))
	}
	return out
}

// diffJSON is "" when a and b are the same as JSON, else both, shortened.
func diffJSON(a, b any) string {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	if errA != nil || errB != nil {
		return fmt.Sprintf("cannot compare: %v %v", errA, errB)
	}
	if bytes.Equal(ja, jb) {
		return ""
	}
	i := 0
	for i < len(ja) && i < len(jb) && ja[i] == jb[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("direct …%s… through the door …%s…", clip(ja, from, i+300), clip(jb, from, i+300))
}

func clip(b []byte, from, to int) string {
	return strings.ToValidUTF8(string(b[from:min(to, len(b))]), "")
}

var (
	doorOnce sync.Once
	doorAll  map[string]doorOutcome
)

// doorOutcome is one case's run through the door.
type doorOutcome struct {
	casebook.Outcome
	run doorRun
}

// doorResults runs every case not known to fail through the door, once per
// test binary.
func doorResults() map[string]doorOutcome {
	doorOnce.Do(func() {
		doorAll = map[string]doorOutcome{}
		for _, id := range book.IDs() {
			c, _ := book.Case(id)
			if c.Fails != "" {
				continue
			}
			door = &doorRun{}
			out := casebook.Run(c)
			doorAll[id] = doorOutcome{Outcome: out, run: *door}
			door = nil
		}
	})
	return doorAll
}

// summary is a case's door verdict: "pass", "no decision" (the case asks
// the decision packages nothing), or what failed.
func (o doorOutcome) summary() string {
	switch {
	case o.Failed:
		return "fail: " + strings.Join(o.Msgs, "; ")
	case len(o.run.diverged) > 0:
		return "diverged: " + strings.Join(o.run.diverged, "; ")
	case len(o.run.refused) > 0:
		return "refused: " + strings.Join(o.run.refused, "; ")
	case len(o.run.inexpressible) > 0:
		return "inexpressible: " + strings.Join(slices.Compact(slices.Sorted(slices.Values(o.run.inexpressible))), "; ")
	case len(o.run.reasons) > 0:
		return "reasons differ: " + strings.Join(o.run.reasons, "; ")
	case o.run.calls == 0:
		return "no decision"
	}
	return "pass"
}
