package kube

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
)

// WatcherConfig configures a Watcher. The zero value watches every
// namespace with no periodic resync.
type WatcherConfig struct {
	// Resync makes the informers report every object as modified this
	// often; 0 means never (changes alone are reported).
	Resync time.Duration
}

// Watcher is a cloud.ClusterWatcher over a real cluster: one shared
// informer per kind (the built-in kinds of watched through the typed
// clientset; Karpenter's and the CapacityBuffers through the dynamic
// client). The optional kinds (NodeOverlays, CapacityBuffers, DRA's) are
// watched when the server serves them and the credentials may read them,
// and read as none otherwise (Skipped names them). Start lists and watches them and returns once every
// informer has synced, so that the first Snapshot is the whole cluster at
// one moment of each kind's watch. It is safe for concurrent use.
type Watcher struct {
	clients Clients
	cfg     WatcherConfig

	informers map[string]cache.SharedIndexInformer // by kind
	// served are the resources watched, and skipped the optional ones the
	// server does not serve.
	served  []resource
	skipped []string
	stop    chan struct{}

	mu       sync.Mutex
	synced   bool
	watchers []watchFunc
	// failed is the error each kind's informer met first while syncing.
	failed chan error
}

type watchFunc struct {
	ctx context.Context
	fn  func(cloud.Change)
}

var _ cloud.ClusterWatcher = (*Watcher)(nil)

// NewWatcher returns a watcher over the clients' cluster; Start starts it.
func NewWatcher(c Clients, cfg WatcherConfig) *Watcher {
	return &Watcher{clients: c, cfg: cfg, failed: make(chan error, len(watched))}
}

// Start starts the informers and waits until each has listed its kind. It
// stops them and returns an error naming the resource when one cannot be
// listed: the credentials may not (ErrForbidden), the server does not serve
// it, as when Karpenter's CRDs are not installed (ErrNotServed), or the
// server does not answer (ErrUnreachable); or when ctx is done first. The
// informers run until ctx is done or Stop is called.
func (w *Watcher) Start(ctx context.Context) error {
	w.mu.Lock()
	if w.stop != nil {
		w.mu.Unlock()
		return errors.New("kube: Watcher started twice")
	}
	w.stop = make(chan struct{})
	w.mu.Unlock()
	served, err := w.check(ctx)
	if err != nil {
		w.Stop()
		return err
	}

	core := informers.NewSharedInformerFactory(w.clients.Core, w.cfg.Resync)
	dyn := dynamicinformer.NewDynamicSharedInformerFactory(w.clients.Dynamic, w.cfg.Resync)
	informers := map[string]cache.SharedIndexInformer{}
	for _, r := range served {
		informers[r.kind] = informerFor(r, core, dyn)
	}
	w.mu.Lock()
	w.informers, w.served = informers, served
	w.mu.Unlock()
	var regs []cache.ResourceEventHandlerRegistration
	for _, r := range served {
		inf := w.informers[r.kind]
		if err := inf.SetWatchErrorHandler(w.listFailed(r)); err != nil {
			return fmt.Errorf("kube: %s informer: %w", r.name(), err)
		}
		reg, err := inf.AddEventHandler(w.handler(r.kind))
		if err != nil {
			return fmt.Errorf("kube: %s informer: %w", r.name(), err)
		}
		regs = append(regs, reg)
	}
	go func() {
		select {
		case <-ctx.Done():
			w.Stop()
		case <-w.stop:
		}
	}()
	core.Start(w.stop)
	dyn.Start(w.stop)
	return w.waitForSync(ctx, served, regs)
}

// informerFor is the shared informer of a resource: typed for the kinds
// client-go knows, dynamic for the custom ones.
func informerFor(r resource, core informers.SharedInformerFactory, dyn dynamicinformer.DynamicSharedInformerFactory) cache.SharedIndexInformer {
	switch r {
	case pods:
		return core.Core().V1().Pods().Informer()
	case nodes:
		return core.Core().V1().Nodes().Informer()
	case pdbs:
		return core.Policy().V1().PodDisruptionBudgets().Informer()
	case daemonSets:
		return core.Apps().V1().DaemonSets().Informer()
	case pvcs:
		return core.Core().V1().PersistentVolumeClaims().Informer()
	case pvs:
		return core.Core().V1().PersistentVolumes().Informer()
	case storageClass:
		return core.Storage().V1().StorageClasses().Informer()
	case csiNodes:
		return core.Storage().V1().CSINodes().Informer()
	case services:
		return core.Core().V1().Services().Informer()
	case podTemplates:
		return core.Core().V1().PodTemplates().Informer()
	case deployments:
		return core.Apps().V1().Deployments().Informer()
	case replicaSets:
		return core.Apps().V1().ReplicaSets().Informer()
	case statefulSets:
		return core.Apps().V1().StatefulSets().Informer()
	case deviceClasses:
		return core.Resource().V1().DeviceClasses().Informer()
	case resourceClaims:
		return core.Resource().V1().ResourceClaims().Informer()
	case resourceClaimTemplates:
		return core.Resource().V1().ResourceClaimTemplates().Informer()
	case resourceSlices:
		return core.Resource().V1().ResourceSlices().Informer()
	}
	return dyn.ForResource(r.gvr).Informer()
}

// check lists one object of each kind, so that a kind that cannot be read
// fails Start at once with its reason instead of leaving its informer to
// retry: an informer retries a refused connection for ever. It returns the
// resources to watch: every one, but an optional kind the server does not
// serve (in none of its versions) or the credentials may not read, which
// is left out.
func (w *Watcher) check(ctx context.Context) ([]resource, error) {
	var served []resource
	var skipped []string
	for _, r := range watched {
		err := w.listOne(ctx, r)
		if alt, ok := fallbacks[r]; ok && apierrors.IsNotFound(err) {
			if altErr := w.listOne(ctx, alt); !apierrors.IsNotFound(altErr) {
				r, err = alt, altErr
			}
		}
		switch {
		case err == nil:
			served = append(served, r)
		case r == ec2NodeClasses && apierrors.IsNotFound(err) && w.listOne(ctx, aksNodeClasses) == nil:
			// A cluster on Azure serves AKSNodeClasses instead.
			skipped = append(skipped, r.name()+": not served (the cluster's node classes are AKSNodeClasses)")
		case r.quiet && (apierrors.IsNotFound(err) || apierrors.IsForbidden(err)):
		case r.optional && apierrors.IsNotFound(err):
			skipped = append(skipped, r.name()+": not served")
		case r.optional && apierrors.IsForbidden(err):
			// The API server authorizes before it looks the resource up:
			// credentials without a rule for a kind the cluster may not
			// even serve are refused either way.
			skipped = append(skipped, r.name()+": forbidden")
		default:
			return nil, describeListError(r, w.clients.Server, err)
		}
	}
	w.mu.Lock()
	w.skipped = skipped
	w.mu.Unlock()
	return served, nil
}

// listOne lists at most one object of the resource.
func (w *Watcher) listOne(ctx context.Context, r resource) error {
	opts := metav1.ListOptions{Limit: 1}
	var err error
	switch r {
	case pods:
		_, err = w.clients.Core.CoreV1().Pods(metav1.NamespaceAll).List(ctx, opts)
	case nodes:
		_, err = w.clients.Core.CoreV1().Nodes().List(ctx, opts)
	case pdbs:
		_, err = w.clients.Core.PolicyV1().PodDisruptionBudgets(metav1.NamespaceAll).List(ctx, opts)
	case daemonSets:
		_, err = w.clients.Core.AppsV1().DaemonSets(metav1.NamespaceAll).List(ctx, opts)
	case pvcs:
		_, err = w.clients.Core.CoreV1().PersistentVolumeClaims(metav1.NamespaceAll).List(ctx, opts)
	case pvs:
		_, err = w.clients.Core.CoreV1().PersistentVolumes().List(ctx, opts)
	case storageClass:
		_, err = w.clients.Core.StorageV1().StorageClasses().List(ctx, opts)
	case csiNodes:
		_, err = w.clients.Core.StorageV1().CSINodes().List(ctx, opts)
	case services:
		_, err = w.clients.Core.CoreV1().Services(metav1.NamespaceAll).List(ctx, opts)
	case podTemplates:
		_, err = w.clients.Core.CoreV1().PodTemplates(metav1.NamespaceAll).List(ctx, opts)
	case deployments:
		_, err = w.clients.Core.AppsV1().Deployments(metav1.NamespaceAll).List(ctx, opts)
	case replicaSets:
		_, err = w.clients.Core.AppsV1().ReplicaSets(metav1.NamespaceAll).List(ctx, opts)
	case statefulSets:
		_, err = w.clients.Core.AppsV1().StatefulSets(metav1.NamespaceAll).List(ctx, opts)
	case deviceClasses:
		_, err = w.clients.Core.ResourceV1().DeviceClasses().List(ctx, opts)
	case resourceClaims:
		_, err = w.clients.Core.ResourceV1().ResourceClaims(metav1.NamespaceAll).List(ctx, opts)
	case resourceClaimTemplates:
		_, err = w.clients.Core.ResourceV1().ResourceClaimTemplates(metav1.NamespaceAll).List(ctx, opts)
	case resourceSlices:
		_, err = w.clients.Core.ResourceV1().ResourceSlices().List(ctx, opts)
	default:
		_, err = w.clients.Dynamic.Resource(r.gvr).List(ctx, opts)
	}
	return err
}

// Skipped names the optional resources the watcher reads as empty, and why:
// "nodeoverlays.karpenter.sh: not served" (or "forbidden"); set by Start.
func (w *Watcher) Skipped() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.skipped)
}

// waitForSync waits until every handler has seen its informer's initial
// list, or the first list error.
func (w *Watcher) waitForSync(ctx context.Context, served []resource, regs []cache.ResourceEventHandlerRegistration) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var pending []string
		for i, reg := range regs {
			if !reg.HasSynced() {
				pending = append(pending, served[i].name())
			}
		}
		if len(pending) == 0 {
			w.mu.Lock()
			w.synced = true
			w.mu.Unlock()
			return nil
		}
		select {
		case err := <-w.failed:
			w.Stop()
			return err
		case <-ctx.Done():
			w.Stop()
			return fmt.Errorf("kube: waiting for %s to be listed: %w", strings.Join(pending, ", "), ctx.Err())
		case <-tick.C:
		}
	}
}

// listFailed reports a resource's list or watch error while the watcher
// syncs; afterwards the informer retries on its own, as client-go's do.
func (w *Watcher) listFailed(r resource) cache.WatchErrorHandler {
	return func(_ *cache.Reflector, err error) {
		w.mu.Lock()
		synced := w.synced
		w.mu.Unlock()
		if synced {
			return
		}
		select {
		case w.failed <- describeListError(r, w.clients.Server, err):
		default:
		}
	}
}

// Stop stops the informers; the watcher reports no more changes.
func (w *Watcher) Stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop == nil {
		return
	}
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
}

// Watch calls fn with every change the informers see from now until ctx is
// done. Changes of one kind arrive in the order the API server made them;
// fn is called from the informers' goroutines, one at a time.
func (w *Watcher) Watch(ctx context.Context, fn func(cloud.Change)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.watchers = append(w.watchers, watchFunc{ctx: ctx, fn: fn})
}

// emit reports one change to the live watchers, forgetting the others.
func (w *Watcher) emit(ch cloud.Change) {
	w.mu.Lock()
	defer w.mu.Unlock()
	live := w.watchers[:0]
	for _, wf := range w.watchers {
		if wf.ctx.Err() != nil {
			continue
		}
		wf.fn(ch)
		live = append(live, wf)
	}
	clear(w.watchers[len(live):])
	w.watchers = live
}

// handler turns an informer's notifications into changes. A resync (the
// same resourceVersion again) is no change.
func (w *Watcher) handler(kind string) cache.ResourceEventHandler {
	change := func(t cloud.ChangeType, obj any) {
		if ns, name, ok := nameOf(obj); ok {
			w.emit(cloud.Change{Type: t, Kind: kind, Namespace: ns, Name: name})
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { change(cloud.Added, obj) },
		UpdateFunc: func(old, cur any) {
			o, err1 := meta.Accessor(old)
			c, err2 := meta.Accessor(cur)
			if err1 == nil && err2 == nil && o.GetResourceVersion() == c.GetResourceVersion() {
				return
			}
			change(cloud.Modified, cur)
		},
		DeleteFunc: func(obj any) { change(cloud.Deleted, obj) },
	}
}

// nameOf names an object, or the object a tombstone stands for (a delete
// the informer learnt of only by relisting).
func nameOf(obj any) (namespace, name string, ok bool) {
	if t, isTombstone := obj.(cache.DeletedFinalStateUnknown); isTombstone {
		ns, n := splitKey(t.Key)
		return ns, n, true
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return "", "", false
	}
	return m.GetNamespace(), m.GetName(), true
}

// Snapshot returns the cluster as the informers hold it, as copies the
// caller owns, each list sorted by namespace/name. A Karpenter object that
// does not decode is left out; State reports it.
func (w *Watcher) Snapshot() cloud.ClusterState {
	s, _ := w.State()
	return s
}

// State returns the cluster as Snapshot does, and an error naming every
// Karpenter object that could not be decoded (and so is left out). Before
// Start has returned, the state is empty.
func (w *Watcher) State() (cloud.ClusterState, error) {
	s := cloud.ClusterState{Pods: []*corev1.Pod{}, Nodes: []*corev1.Node{}, NodeClaims: []*apis.NodeClaim{}, PDBs: []*policyv1.PodDisruptionBudget{}}
	if w.informers == nil {
		return s, nil
	}
	s.Pods = typed[*corev1.Pod](w.informers[pods.kind], (*corev1.Pod).DeepCopy)
	s.Nodes = typed[*corev1.Node](w.informers[nodes.kind], (*corev1.Node).DeepCopy)
	s.PDBs = typed[*policyv1.PodDisruptionBudget](w.informers[pdbs.kind], (*policyv1.PodDisruptionBudget).DeepCopy)
	s.DaemonSets = typed[*appsv1.DaemonSet](w.informers[daemonSets.kind], (*appsv1.DaemonSet).DeepCopy)
	s.PersistentVolumeClaims = typed[*corev1.PersistentVolumeClaim](w.informers[pvcs.kind], (*corev1.PersistentVolumeClaim).DeepCopy)
	s.PersistentVolumes = typed[*corev1.PersistentVolume](w.informers[pvs.kind], (*corev1.PersistentVolume).DeepCopy)
	s.StorageClasses = typed[*storagev1.StorageClass](w.informers[storageClass.kind], (*storagev1.StorageClass).DeepCopy)
	s.CSINodes = typed[*storagev1.CSINode](w.informers[csiNodes.kind], (*storagev1.CSINode).DeepCopy)
	s.Services = typed[*corev1.Service](w.informers[services.kind], (*corev1.Service).DeepCopy)
	s.PodTemplates = typed[*corev1.PodTemplate](w.informers[podTemplates.kind], (*corev1.PodTemplate).DeepCopy)
	s.Deployments = typed[*appsv1.Deployment](w.informers[deployments.kind], (*appsv1.Deployment).DeepCopy)
	s.ReplicaSets = typed[*appsv1.ReplicaSet](w.informers[replicaSets.kind], (*appsv1.ReplicaSet).DeepCopy)
	s.StatefulSets = typed[*appsv1.StatefulSet](w.informers[statefulSets.kind], (*appsv1.StatefulSet).DeepCopy)
	s.DeviceClasses = typed[*resourcev1.DeviceClass](w.informers[deviceClasses.kind], (*resourcev1.DeviceClass).DeepCopy)
	s.ResourceClaims = typed[*resourcev1.ResourceClaim](w.informers[resourceClaims.kind], (*resourcev1.ResourceClaim).DeepCopy)
	s.ResourceClaimTemplates = typed[*resourcev1.ResourceClaimTemplate](w.informers[resourceClaimTemplates.kind], (*resourcev1.ResourceClaimTemplate).DeepCopy)
	s.ResourceSlices = typed[*resourcev1.ResourceSlice](w.informers[resourceSlices.kind], (*resourcev1.ResourceSlice).DeepCopy)
	var errs []error
	s.NodePools = decoded[apis.NodePool](w.informers[nodePools.kind], apis.KindNodePool, &errs)
	s.NodeClaims = decoded[apis.NodeClaim](w.informers[nodeClaims.kind], apis.KindNodeClaim, &errs)
	s.EC2NodeClasses = decoded[apis.EC2NodeClass](w.informers[ec2NodeClasses.kind], apis.KindEC2NodeClass, &errs)
	s.AKSNodeClasses = decoded[apis.AKSNodeClass](w.informers[aksNodeClasses.kind], apis.KindAKSNodeClass, &errs)
	s.NodeOverlays = decoded[apis.NodeOverlay](w.informers[nodeOverlays.kind], apis.KindNodeOverlay, &errs)
	s.NodeOverlays = checkOverlayLabels(s.NodeOverlays, s.NodePools, &errs)
	s.CapacityBuffers = decoded[apis.CapacityBuffer](w.informers[capacityBuffers.kind], apis.KindBuffer, &errs)
	if s.NodeClaims == nil {
		s.NodeClaims = []*apis.NodeClaim{}
	}
	return s, errors.Join(errs...)
}

// typed copies an informer's objects of type T, sorted by namespace/name.
func typed[T interface {
	comparable
	metav1.Object
}](inf cache.SharedIndexInformer, deepCopy func(T) T) []T {
	out := []T{}
	if inf == nil { // a kind the server does not serve
		return out
	}
	for _, obj := range inf.GetStore().List() {
		if o, ok := obj.(T); ok {
			out = append(out, deepCopy(o))
		}
	}
	slices.SortFunc(out, func(a, b T) int {
		return cmp.Or(cmp.Compare(a.GetNamespace(), b.GetNamespace()), cmp.Compare(a.GetName(), b.GetName()))
	})
	return out
}

// decoded decodes an informer's Karpenter objects, sorted by name,
// appending an error for each that does not decode.
func decoded[T any, P karpenterObject[T]](inf cache.SharedIndexInformer, kind string, errs *[]error) []P {
	if inf == nil { // a kind the server does not serve
		return nil
	}
	items := inf.GetStore().List()
	slices.SortFunc(items, func(a, b any) int {
		_, an, _ := nameOf(a)
		_, bn, _ := nameOf(b)
		return cmp.Compare(an, bn)
	})
	var out []P
	for _, item := range items {
		u, ok := item.(*unstructured.Unstructured)
		if !ok {
			continue
		}
		obj, err := fromUnstructured[T, P](kind, u)
		if err != nil {
			*errs = append(*errs, err)
			continue
		}
		out = append(out, obj)
	}
	return out
}
