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
	storagev1 "k8s.io/api/storage/v1"
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
// informer per kind (Pods, Nodes, PodDisruptionBudgets, DaemonSets,
// PersistentVolumeClaims, PersistentVolumes, StorageClasses through the
// typed clientset; NodePools, NodeClaims and EC2NodeClasses through the
// dynamic client). Start lists and watches them and returns once every
// informer has synced, so that the first Snapshot is the whole cluster at
// one moment of each kind's watch. It is safe for concurrent use.
type Watcher struct {
	clients Clients
	cfg     WatcherConfig

	informers map[string]cache.SharedIndexInformer // by kind
	stop      chan struct{}

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
	if err := w.check(ctx); err != nil {
		w.Stop()
		return err
	}

	core := informers.NewSharedInformerFactory(w.clients.Core, w.cfg.Resync)
	dyn := dynamicinformer.NewDynamicSharedInformerFactory(w.clients.Dynamic, w.cfg.Resync)
	w.informers = map[string]cache.SharedIndexInformer{
		pods.kind:           core.Core().V1().Pods().Informer(),
		nodes.kind:          core.Core().V1().Nodes().Informer(),
		pdbs.kind:           core.Policy().V1().PodDisruptionBudgets().Informer(),
		daemonSets.kind:     core.Apps().V1().DaemonSets().Informer(),
		pvcs.kind:           core.Core().V1().PersistentVolumeClaims().Informer(),
		pvs.kind:            core.Core().V1().PersistentVolumes().Informer(),
		storageClass.kind:   core.Storage().V1().StorageClasses().Informer(),
		nodePools.kind:      dyn.ForResource(nodePools.gvr).Informer(),
		nodeClaims.kind:     dyn.ForResource(nodeClaims.gvr).Informer(),
		ec2NodeClasses.kind: dyn.ForResource(ec2NodeClasses.gvr).Informer(),
	}
	var regs []cache.ResourceEventHandlerRegistration
	for _, r := range watched {
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
	return w.waitForSync(ctx, regs)
}

// check lists one object of each kind, so that a kind that cannot be read
// fails Start at once with its reason instead of leaving its informer to
// retry: an informer retries a refused connection for ever.
func (w *Watcher) check(ctx context.Context) error {
	opts := metav1.ListOptions{Limit: 1}
	for _, r := range watched {
		var err error
		switch r.kind {
		case pods.kind:
			_, err = w.clients.Core.CoreV1().Pods(metav1.NamespaceAll).List(ctx, opts)
		case nodes.kind:
			_, err = w.clients.Core.CoreV1().Nodes().List(ctx, opts)
		case pdbs.kind:
			_, err = w.clients.Core.PolicyV1().PodDisruptionBudgets(metav1.NamespaceAll).List(ctx, opts)
		case daemonSets.kind:
			_, err = w.clients.Core.AppsV1().DaemonSets(metav1.NamespaceAll).List(ctx, opts)
		case pvcs.kind:
			_, err = w.clients.Core.CoreV1().PersistentVolumeClaims(metav1.NamespaceAll).List(ctx, opts)
		case pvs.kind:
			_, err = w.clients.Core.CoreV1().PersistentVolumes().List(ctx, opts)
		case storageClass.kind:
			_, err = w.clients.Core.StorageV1().StorageClasses().List(ctx, opts)
		default:
			_, err = w.clients.Dynamic.Resource(r.gvr).List(ctx, opts)
		}
		if err != nil {
			return describeListError(r, w.clients.Server, err)
		}
	}
	return nil
}

// waitForSync waits until every handler has seen its informer's initial
// list, or the first list error.
func (w *Watcher) waitForSync(ctx context.Context, regs []cache.ResourceEventHandlerRegistration) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		var pending []string
		for i, reg := range regs {
			if !reg.HasSynced() {
				pending = append(pending, watched[i].name())
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
	var errs []error
	s.NodePools = decoded[apis.NodePool](w.informers[nodePools.kind], apis.KindNodePool, &errs)
	s.NodeClaims = decoded[apis.NodeClaim](w.informers[nodeClaims.kind], apis.KindNodeClaim, &errs)
	s.EC2NodeClasses = decoded[apis.EC2NodeClass](w.informers[ec2NodeClasses.kind], apis.KindEC2NodeClass, &errs)
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
