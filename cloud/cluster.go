package cloud

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

// MemoryCluster is the in-memory stand-in for an API server: a
// ClusterWatcher over objects the caller sets, applies and deletes, and a
// ClusterWriter for a controller's changes. Every change is reported to the
// watchers in the order it happened. Its zero value is an empty cluster; it
// is safe for concurrent use.
type MemoryCluster struct {
	mu       sync.Mutex
	objects  map[objectKey]any
	watchers []watcher
}

var (
	_ ClusterWatcher = (*MemoryCluster)(nil)
	_ ClusterWriter  = (*MemoryCluster)(nil)
)

type objectKey struct{ kind, namespace, name string }

type watcher struct {
	ctx context.Context
	fn  func(Change)
}

// Set replaces the cluster's objects with copies of s's (nil entries are
// skipped), reporting what was deleted, added and modified.
func (m *MemoryCluster) Set(s ClusterState) {
	m.mu.Lock()
	defer m.mu.Unlock()
	next := map[objectKey]any{}
	for _, obj := range stateObjects(s) {
		if key, cp, ok := keyOf(obj); ok {
			next[key] = cp
		}
	}
	for _, key := range sortedKeys(m.objects) {
		if _, kept := next[key]; !kept {
			delete(m.objects, key)
			m.emit(Deleted, key)
		}
	}
	for _, key := range sortedKeys(next) {
		m.put(key, next[key])
	}
}

// Apply adds objects or replaces them by kind, namespace and name: any
// object of a kind ClusterState holds, as a pointer. The cluster keeps
// copies.
func (m *MemoryCluster) Apply(objects ...any) error {
	for _, obj := range objects {
		if _, _, ok := keyOf(obj); !ok {
			return fmt.Errorf("cloud: MemoryCluster cannot hold a %T", obj)
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, obj := range objects {
		key, cp, _ := keyOf(obj)
		m.put(key, cp)
	}
	return nil
}

// Delete removes an object by kind (a Change's Kind: "Pod", "Node",
// "Deployment", ...), namespace and name; an unknown object fails with an
// error wrapping ErrNotFound.
func (m *MemoryCluster) Delete(kind, namespace, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := objectKey{kind, namespace, name}
	if _, ok := m.objects[key]; !ok {
		return fmt.Errorf("cloud: %s %s: %w", kind, joinName(namespace, name), ErrNotFound)
	}
	delete(m.objects, key)
	m.emit(Deleted, key)
	return nil
}

// Snapshot returns a deep copy of the objects, each list sorted by
// namespace/name.
func (m *MemoryCluster) Snapshot() ClusterState {
	m.mu.Lock()
	defer m.mu.Unlock()
	var s ClusterState
	for _, key := range sortedKeys(m.objects) {
		kinds[key.kind].add(&s, m.objects[key])
	}
	s.Pods = nonNil(s.Pods)
	s.Nodes = nonNil(s.Nodes)
	s.NodeClaims = nonNil(s.NodeClaims)
	s.PDBs = nonNil(s.PDBs)
	return s
}

// Watch calls fn with every change from now until ctx is done.
func (m *MemoryCluster) Watch(ctx context.Context, fn func(Change)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.watchers = append(m.watchers, watcher{ctx: ctx, fn: fn})
}

// CreateNodeClaim adds a NodeClaim; one of the same name fails.
func (m *MemoryCluster) CreateNodeClaim(_ context.Context, claim *apis.NodeClaim) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := objectKey{"NodeClaim", "", claim.Name}
	if _, exists := m.objects[key]; exists {
		return fmt.Errorf("cloud: NodeClaim %s already exists", claim.Name)
	}
	m.put(key, claim.DeepCopy())
	return nil
}

// UpdateNodeClaim replaces a NodeClaim's labels, annotations and status.
func (m *MemoryCluster) UpdateNodeClaim(_ context.Context, claim *apis.NodeClaim) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := objectKey{"NodeClaim", "", claim.Name}
	cur, ok := m.objects[key].(*apis.NodeClaim)
	if !ok {
		return fmt.Errorf("cloud: NodeClaim %s: %w", claim.Name, ErrNotFound)
	}
	next, in := cur.DeepCopy(), claim.DeepCopy()
	next.Labels, next.Annotations, next.Status = in.Labels, in.Annotations, in.Status
	m.put(key, next)
	return nil
}

// UpdateNode replaces a node's labels, annotations and taints.
func (m *MemoryCluster) UpdateNode(_ context.Context, node *corev1.Node) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	key := objectKey{"Node", "", node.Name}
	cur, ok := m.objects[key].(*corev1.Node)
	if !ok {
		return fmt.Errorf("cloud: Node %s: %w", node.Name, ErrNotFound)
	}
	next := cur.DeepCopy()
	next.Labels, next.Annotations = maps.Clone(node.Labels), maps.Clone(node.Annotations)
	next.Spec.Taints = apis.CopyTaints(node.Spec.Taints)
	m.put(key, next)
	return nil
}

// DeleteNode drains and deletes a node and its NodeClaim: pods owned by a
// DaemonSet are deleted, the others unbound (their controllers make them
// pending again). A NodeClaim without a node is deleted by name.
func (m *MemoryCluster) DeleteNode(_ context.Context, name string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	nodeKey := objectKey{"Node", "", name}
	node, _ := m.objects[nodeKey].(*corev1.Node)
	var claims []objectKey
	for _, key := range sortedKeys(m.objects) {
		c, ok := m.objects[key].(*apis.NodeClaim)
		if ok && (c.Status.NodeName == name || c.Name == name ||
			(node != nil && node.Spec.ProviderID != "" && c.Status.ProviderID == node.Spec.ProviderID)) {
			claims = append(claims, key)
		}
	}
	if node == nil && len(claims) == 0 {
		return 0, fmt.Errorf("cloud: Node %s: %w", name, ErrNotFound)
	}
	evicted := 0
	for _, key := range sortedKeys(m.objects) {
		p, ok := m.objects[key].(*corev1.Pod)
		if !ok || p.Spec.NodeName != name {
			continue
		}
		if apis.IsDaemonSetPod(p) {
			delete(m.objects, key)
			m.emit(Deleted, key)
			continue
		}
		next := p.DeepCopy()
		next.Spec.NodeName = ""
		next.Status = corev1.PodStatus{Phase: corev1.PodPending}
		m.put(key, next)
		evicted++
	}
	if node != nil {
		delete(m.objects, nodeKey)
		m.emit(Deleted, nodeKey)
	}
	for _, key := range claims {
		delete(m.objects, key)
		m.emit(Deleted, key)
	}
	return evicted, nil
}

// put stores an object and reports it added or modified. The caller holds
// the lock.
func (m *MemoryCluster) put(key objectKey, obj any) {
	if m.objects == nil {
		m.objects = map[objectKey]any{}
	}
	t := Added
	if _, exists := m.objects[key]; exists {
		t = Modified
	}
	m.objects[key] = obj
	m.emit(t, key)
}

// emit reports a change to the watchers whose context is not done, and
// forgets the others. The caller holds the lock.
func (m *MemoryCluster) emit(t ChangeType, key objectKey) {
	ch := Change{Type: t, Kind: key.kind, Namespace: key.namespace, Name: key.name}
	live := m.watchers[:0]
	for _, w := range m.watchers {
		if w.ctx.Err() != nil {
			continue
		}
		w.fn(ch)
		live = append(live, w)
	}
	clear(m.watchers[len(live):])
	m.watchers = live
}

// keyOf returns an object's key and a deep copy of it, or false for a kind
// the cluster does not hold or a nil pointer.
func keyOf(obj any) (objectKey, any, bool) {
	for _, name := range kindNames {
		if key, cp, ok := kinds[name].keyOf(obj); ok {
			return key, cp, true
		}
	}
	return objectKey{}, nil, false
}

// stateObjects are the objects of every list of s.
func stateObjects(s ClusterState) []any {
	var out []any
	for _, name := range kindNames {
		out = kinds[name].objects(s, out)
	}
	return out
}

// kind is how the cluster keys, copies, lists and gathers one kind of
// object.
type kind struct {
	keyOf   func(obj any) (objectKey, any, bool)
	objects func(s ClusterState, out []any) []any
	add     func(s *ClusterState, obj any)
}

// kinds are the kinds a ClusterState holds, by Change.Kind: the cluster
// holds every one of them.
var kinds = map[string]kind{
	"Pod":                   kindOf("Pod", true, func(s *ClusterState) *[]*corev1.Pod { return &s.Pods }),
	"Node":                  kindOf("Node", false, func(s *ClusterState) *[]*corev1.Node { return &s.Nodes }),
	"NodeClaim":             kindOf("NodeClaim", false, func(s *ClusterState) *[]*apis.NodeClaim { return &s.NodeClaims }),
	"PodDisruptionBudget":   kindOf("PodDisruptionBudget", true, func(s *ClusterState) *[]*policyv1.PodDisruptionBudget { return &s.PDBs }),
	"NodePool":              kindOf("NodePool", false, func(s *ClusterState) *[]*apis.NodePool { return &s.NodePools }),
	"EC2NodeClass":          kindOf("EC2NodeClass", false, func(s *ClusterState) *[]*apis.EC2NodeClass { return &s.EC2NodeClasses }),
	"AKSNodeClass":          kindOf("AKSNodeClass", false, func(s *ClusterState) *[]*apis.AKSNodeClass { return &s.AKSNodeClasses }),
	"DaemonSet":             kindOf("DaemonSet", true, func(s *ClusterState) *[]*appsv1.DaemonSet { return &s.DaemonSets }),
	"PersistentVolumeClaim": kindOf("PersistentVolumeClaim", true, func(s *ClusterState) *[]*corev1.PersistentVolumeClaim { return &s.PersistentVolumeClaims }),
	"PersistentVolume":      kindOf("PersistentVolume", false, func(s *ClusterState) *[]*corev1.PersistentVolume { return &s.PersistentVolumes }),
	"StorageClass":          kindOf("StorageClass", false, func(s *ClusterState) *[]*storagev1.StorageClass { return &s.StorageClasses }),
	"CSINode":               kindOf("CSINode", false, func(s *ClusterState) *[]*storagev1.CSINode { return &s.CSINodes }),
	"NodeOverlay":           kindOf("NodeOverlay", false, func(s *ClusterState) *[]*apis.NodeOverlay { return &s.NodeOverlays }),
	"CapacityBuffer":        kindOf("CapacityBuffer", true, func(s *ClusterState) *[]*apis.CapacityBuffer { return &s.CapacityBuffers }),
	"PodTemplate":           kindOf("PodTemplate", true, func(s *ClusterState) *[]*corev1.PodTemplate { return &s.PodTemplates }),
	"Service":               kindOf("Service", true, func(s *ClusterState) *[]*corev1.Service { return &s.Services }),
	"Deployment":            kindOf("Deployment", true, func(s *ClusterState) *[]*appsv1.Deployment { return &s.Deployments }),
	"ReplicaSet":            kindOf("ReplicaSet", true, func(s *ClusterState) *[]*appsv1.ReplicaSet { return &s.ReplicaSets }),
	"StatefulSet":           kindOf("StatefulSet", true, func(s *ClusterState) *[]*appsv1.StatefulSet { return &s.StatefulSets }),
	"DeviceClass":           kindOf("DeviceClass", false, func(s *ClusterState) *[]*resourcev1.DeviceClass { return &s.DeviceClasses }),
	"ResourceClaim":         kindOf("ResourceClaim", true, func(s *ClusterState) *[]*resourcev1.ResourceClaim { return &s.ResourceClaims }),
	"ResourceClaimTemplate": kindOf("ResourceClaimTemplate", true, func(s *ClusterState) *[]*resourcev1.ResourceClaimTemplate { return &s.ResourceClaimTemplates }),
	"ResourceSlice":         kindOf("ResourceSlice", false, func(s *ClusterState) *[]*resourcev1.ResourceSlice { return &s.ResourceSlices }),
}

// kindNames are the keys of kinds in order, for loops that must not range
// over the map.
var kindNames = slices.Sorted(maps.Keys(kinds))

// kindOf is the kind named name whose objects are list's: a namespaced
// kind is keyed by namespace and name, a cluster-scoped one by name alone.
func kindOf[T any, P interface {
	*T
	metav1.Object
	DeepCopy() *T
}](name string, namespaced bool, list func(*ClusterState) *[]P) kind {
	return kind{
		keyOf: func(obj any) (objectKey, any, bool) {
			o, ok := obj.(P)
			if !ok || o == nil {
				return objectKey{}, nil, false
			}
			key := objectKey{kind: name, name: o.GetName()}
			if namespaced {
				key.namespace = o.GetNamespace()
			}
			return key, P(o.DeepCopy()), true
		},
		objects: func(s ClusterState, out []any) []any {
			for _, o := range *list(&s) {
				out = append(out, o)
			}
			return out
		},
		add: func(s *ClusterState, obj any) {
			l := list(s)
			*l = append(*l, P(obj.(P).DeepCopy()))
		},
	}
}

func sortedKeys(m map[objectKey]any) []objectKey {
	return slices.SortedFunc(maps.Keys(m), func(a, b objectKey) int {
		return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.namespace, b.namespace), cmp.Compare(a.name, b.name))
	})
}

func joinName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
