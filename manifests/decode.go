package manifests

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	sigsjson "sigs.k8s.io/json"

	"github.com/karpsim/karpsim/apis"
)

// maxListDepth bounds how deeply List documents may nest.
const maxListDepth = 4

// loader accumulates a Set and the problems found while building it.
type loader struct {
	set  *Set
	errs Problems
	// v1beta1Claims are NodeClaims converted from v1beta1, whose
	// expireAfter comes from their NodePool once all objects are read.
	v1beta1Claims []*apis.NodeClaim
	// part is set when the stream joins objects read elsewhere: a
	// NodePool's EC2NodeClass need not be in it.
	part bool

	limits Limits
	// objects counts the objects read, against limits; overObjects is set
	// once the limit was passed and said.
	objects     int
	overObjects bool
	// workers is how many List items are decoded at once; 0 means
	// GOMAXPROCS.
	workers int
	// reference turns off every shortcut (the item-by-item List path,
	// blockDocumentToJSON, strict decoding), for tests that hold them
	// against the reference path: a YAML parser, a tree, decodeTyped.
	reference bool
	// readChunk, when not 0, is the size of the buffers a JSON stream is
	// read into, for tests that cut items across buffers.
	readChunk int
	// listItems counts the items decoded item by item.
	listItems int
	// held is the most bytes a stream's reader held at once in the buffers
	// it reads into (and, reading a pipe, a List's earlier bytes), for tests
	// that what karpsim does not read is not held.
	held int64
	// strings holds one copy of the strings decoded objects repeat.
	strings interner
	// unknown are the unknown fields of the objects read, which explain
	// the errors about them (explainUnknown).
	unknown []unknownField
}

func newLoader() *loader { return &loader{set: newSet(), strings: interner{}} }

// noteHeld records what a reader held at most.
func (l *loader) noteHeld(n int64) { l.held = max(l.held, n) }

func (l *loader) fail(src Source, object, path string, kind error, msg string) {
	l.errs.Add(&Error{Source: src, Object: object, Path: path, Message: msg, Kind: kind})
}

func (l *loader) warn(src Source, object, msg string) {
	l.set.Warnings = append(l.set.Warnings, Warning{Source: src, Object: object, Message: msg})
}

// done runs the checks across objects and returns the result.
func (l *loader) done() (*Set, error) {
	l.crossCheck()
	l.explainUnknown()
	return l.set, l.errs.Err()
}

// coreKind is a Kubernetes kind karpsim reads: its only apiVersion, and
// how to decode it into the Set.
type coreKind struct {
	apiVersion string
	// alias is another apiVersion read the same way, or "".
	alias  string
	decode func(l *loader, src Source, label string, tree map[string]any)
	// strict decodes an object's JSON straight into its Go type, and
	// reports false, adding nothing, unless it decodes without any
	// problem or unknown field.
	strict func(l *loader, src Source, data []byte) bool
}

var coreKinds = map[string]coreKind{
	"Pod":              coreOf("v1", func(s *Set, o *corev1.Pod) { s.Pods = append(s.Pods, o) }),
	"Node":             coreOf("v1", func(s *Set, o *corev1.Node) { s.Nodes = append(s.Nodes, o) }),
	"PersistentVolume": coreOf("v1", func(s *Set, o *corev1.PersistentVolume) { s.PersistentVolumes = append(s.PersistentVolumes, o) }),
	"PersistentVolumeClaim": coreOf("v1", func(s *Set, o *corev1.PersistentVolumeClaim) {
		s.PersistentVolumeClaims = append(s.PersistentVolumeClaims, o)
	}),
	"Deployment":  coreOf("apps/v1", func(s *Set, o *appsv1.Deployment) { s.Deployments = append(s.Deployments, o) }),
	"ReplicaSet":  coreOf("apps/v1", func(s *Set, o *appsv1.ReplicaSet) { s.ReplicaSets = append(s.ReplicaSets, o) }),
	"StatefulSet": coreOf("apps/v1", func(s *Set, o *appsv1.StatefulSet) { s.StatefulSets = append(s.StatefulSets, o) }),
	"DaemonSet":   coreOf("apps/v1", func(s *Set, o *appsv1.DaemonSet) { s.DaemonSets = append(s.DaemonSets, o) }),
	"Job":         coreOf("batch/v1", func(s *Set, o *batchv1.Job) { s.Jobs = append(s.Jobs, o) }),
	"PodDisruptionBudget": coreOf("policy/v1", func(s *Set, o *policyv1.PodDisruptionBudget) {
		s.PodDisruptionBudgets = append(s.PodDisruptionBudgets, o)
	}),
	"Service":      coreOf("v1", func(s *Set, o *corev1.Service) { s.Services = append(s.Services, o) }),
	"StorageClass": coreOf("storage.k8s.io/v1", func(s *Set, o *storagev1.StorageClass) { s.StorageClasses = append(s.StorageClasses, o) }),
	"CSINode":      coreOf("storage.k8s.io/v1", func(s *Set, o *storagev1.CSINode) { s.CSINodes = append(s.CSINodes, o) }),
	"PodTemplate":  coreOf("v1", func(s *Set, o *corev1.PodTemplate) { s.PodTemplates = append(s.PodTemplates, o) }),
	"DeviceClass":  coreOf("resource.k8s.io/v1", func(s *Set, o *resourcev1.DeviceClass) { s.DeviceClasses = append(s.DeviceClasses, o) }),
	"ResourceClaim": coreOf("resource.k8s.io/v1", func(s *Set, o *resourcev1.ResourceClaim) {
		s.ResourceClaims = append(s.ResourceClaims, o)
	}),
	"ResourceClaimTemplate": coreOf("resource.k8s.io/v1", func(s *Set, o *resourcev1.ResourceClaimTemplate) {
		s.ResourceClaimTemplates = append(s.ResourceClaimTemplates, o)
	}),
	"ResourceSlice": coreOf("resource.k8s.io/v1", func(s *Set, o *resourcev1.ResourceSlice) {
		s.ResourceSlices = append(s.ResourceSlices, o)
	}),
	// Karpenter serves v1beta1; the Cluster Autoscaler's v1alpha1 has the
	// same spec and is read as it.
	apis.KindBuffer: withAlias(coreOf(apis.BufferGroupV1B1, func(s *Set, o *apis.CapacityBuffer) {
		s.CapacityBuffers = append(s.CapacityBuffers, o)
	}), apis.BufferGroupV1A1),
}

// withAlias lets a kind be read from a second apiVersion with the same
// schema.
func withAlias(k coreKind, alias string) coreKind {
	k.alias = alias
	return k
}

// reads reports whether the kind is read from apiVersion.
func (k coreKind) reads(apiVersion string) bool {
	return apiVersion != "" && (apiVersion == k.apiVersion || apiVersion == k.alias)
}

// karpenterKinds are the apiVersions karpsim reads for each Karpenter kind,
// and for kube-scheduler's configuration, which apis validates alike.
var karpenterKinds = map[string][]string{
	apis.KindKubeSchedulerConfiguration: {apis.SchedulerConfigV1},
	apis.KindNodePool:                   {apis.GroupV1, apis.GroupV1B1},
	apis.KindNodeClaim:                  {apis.GroupV1, apis.GroupV1B1},
	apis.KindEC2NodeClass:               {apis.AWSGroupV1, apis.AWSGroupV1B},
	apis.KindAKSNodeClass:               {apis.AzureGroupV1Beta1, apis.AzureGroupV1Alpha2},
	apis.KindNodeOverlay:                {apis.GroupV1Alpha1},
}

// decodeDocument dispatches one object, or the items of a List, by kind.
func (l *loader) decodeDocument(src Source, tree map[string]any) {
	if l.admit(src, 1) {
		l.decodeObject(src, tree, "", "", 0)
	}
}

func (l *loader) decodeObject(src Source, tree map[string]any, inheritedVersion, inheritedKind string, depth int) {
	apiVersion, kind := stringField(tree, "apiVersion"), stringField(tree, "kind")
	if (apiVersion == "" && inheritedVersion != "") || (kind == "" && inheritedKind != "") {
		// An item of a typed list (FooList) takes the list's apiVersion and
		// kind, so that the decoded object has them too.
		tree = maps.Clone(tree)
		if apiVersion == "" {
			apiVersion, tree["apiVersion"] = inheritedVersion, inheritedVersion
		}
		if kind == "" {
			kind, tree["kind"] = inheritedKind, inheritedKind
		}
	}
	dropManagedFields(tree)
	label := objectLabel(src, kind, tree)
	switch {
	case kind == "":
		l.fail(src, "", "", ErrMalformed, fmt.Sprintf("%s: no kind: every object needs apiVersion and kind", src.where()))
		return
	case apiVersion == "":
		l.fail(src, label, "apiVersion", ErrMalformed, "required")
		return
	}
	if items, ok := tree["items"].([]any); ok && strings.HasSuffix(kind, "List") {
		l.decodeList(src, items, apiVersion, strings.TrimSuffix(kind, "List"), depth)
		return
	}
	if versions, ok := karpenterKinds[kind]; ok {
		if !slices.Contains(versions, apiVersion) {
			use := versions[0]
			if len(versions) > 1 {
				use += ", or " + versions[1] + ", which karpsim converts"
			}
			l.fail(src, label, "apiVersion", ErrUnknownAPIVersion, fmt.Sprintf("%q is not supported for %s (use %s)", apiVersion, kind, use))
			return
		}
		l.decodeKarpenter(src, label, apiVersion, kind, tree)
		return
	}
	core, ok := coreKinds[kind]
	switch {
	case !ok:
		l.warn(src, label, fmt.Sprintf(skippedPrefix+" karpsim does not read kind %s (apiVersion %s)", kind, apiVersion))
	case !core.reads(apiVersion):
		l.fail(src, label, "apiVersion", ErrUnknownAPIVersion, fmt.Sprintf("%q is not supported for %s (use %s)", apiVersion, kind, core.apiVersion))
	default:
		core.decode(l, src, label, tree)
	}
}

// decodeList expands the items of a List (kind List, or FooList whose
// items may leave out their apiVersion and kind).
func (l *loader) decodeList(src Source, items []any, apiVersion, itemKind string, depth int) {
	if depth >= maxListDepth {
		l.fail(src, "", "", ErrMalformed, fmt.Sprintf("%s: lists nested more than %d deep", src.where(), maxListDepth))
		return
	}
	if itemKind == "" {
		apiVersion = ""
	}
	if !l.admit(src, len(items)) {
		return
	}
	for i, item := range items {
		itemSrc := src
		itemSrc.Item = i + 1
		obj, ok := item.(map[string]any)
		if !ok {
			l.fail(itemSrc, "", "", ErrMalformed, fmt.Sprintf("%s: not an object but %s", itemSrc.where(), describeValue(item)))
			continue
		}
		l.decodeObject(itemSrc, obj, apiVersion, itemKind, depth+1)
	}
}

// coreOf describes a core kind whose objects add appends to the Set.
func coreOf[T any, PT interface {
	*T
	metav1.Object
}](apiVersion string, add func(*Set, *T)) coreKind {
	return coreKind{apiVersion: apiVersion, decode: decodeCore(add), strict: decodeCoreStrict[T, PT](add)}
}

// decodeCoreStrict returns coreKind.strict for a core kind.
func decodeCoreStrict[T any, PT interface {
	*T
	metav1.Object
}](add func(*Set, *T)) func(*loader, Source, []byte) bool {
	return func(l *loader, src Source, data []byte) bool {
		obj := new(T)
		strict, err := sigsjson.UnmarshalStrict(data, obj, sigsjson.DisallowUnknownFields, sigsjson.DisallowDuplicateFields)
		if err != nil || len(strict) > 0 || PT(obj).GetName() == "" {
			return false
		}
		PT(obj).SetManagedFields(nil)
		add(l.set, obj)
		l.set.setSource(obj, src)
		return true
	}
}

// decodeStrict decodes an item of a core kind with its own apiVersion and
// kind through coreKind.strict, and reports whether it did.
func (l *loader) decodeStrict(src Source, data []byte, apiVersion, kind string) bool {
	core, ok := coreKinds[kind]
	return ok && core.reads(apiVersion) && core.strict(l, src, data)
}

// decodeCore returns a decoder for a core kind that appends to the Set.
func decodeCore[T any](add func(*Set, *T)) func(*loader, Source, string, map[string]any) {
	return func(l *loader, src Source, label string, tree map[string]any) {
		obj, problems, unknown := decodeTyped[T](tree)
		l.warnUnknown(src, label, unknown)
		l.noteUnknown(src, label, reflect.TypeFor[T](), unknown)
		l.report(src, label, ErrDecode, problems, nil)
		if obj != nil {
			add(l.set, obj)
			l.set.setSource(obj, src)
		}
	}
}

func (l *loader) warnUnknown(src Source, label string, paths []string) {
	for _, p := range paths {
		l.warn(src, label, fmt.Sprintf("unknown field %s ignored", p))
	}
}

// report turns field errors into Errors of the given kind, leaving out
// those under a field already reported in skip.
func (l *loader) report(src Source, label string, kind error, problems apis.FieldErrors, skip []string) {
	for _, p := range problems {
		if covered(p.Path, skip) {
			continue
		}
		l.fail(src, label, p.Path, kind, p.Message)
	}
}

// covered reports whether path is, or is inside, one of the given paths.
func covered(path string, paths []string) bool {
	for _, p := range paths {
		if path == p || (p != "" && (strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"["))) {
			return true
		}
	}
	return false
}

func stringField(tree map[string]any, name string) string {
	s, _ := tree[name].(string)
	return s
}

// objectLabel names an object in messages: "Kind/name", or with the
// namespace for namespaced objects, or the document when it has no name.
func objectLabel(src Source, kind string, tree map[string]any) string {
	meta, _ := tree["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	namespace, _ := meta["namespace"].(string)
	switch {
	case name == "":
		return fmt.Sprintf("%s without a name in %s", kind, src.where())
	case namespace != "":
		return kind + "/" + apis.DisplayName(namespace) + "/" + apis.DisplayName(name)
	default:
		return kind + "/" + apis.DisplayName(name)
	}
}

// describeValue names a generic JSON value for messages.
func describeValue(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", t)
	case bool:
		return fmt.Sprintf("%t", t)
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	default:
		return fmt.Sprintf("the number %v", t)
	}
}
