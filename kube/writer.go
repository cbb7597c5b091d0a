package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
)

// WriterConfig configures a Writer. The zero value writes for real as field
// manager "karpsim", retrying refused evictions for about a minute.
type WriterConfig struct {
	// FieldManager names karpsim in the objects' managedFields; default
	// "karpsim".
	FieldManager string
	// DryRun sends every write with server-side dry run (dryRun=All): the
	// API server admits, validates and answers it as usual but stores
	// nothing, so a NodeClaim is never created and a pod never evicted.
	DryRun bool
	// EvictionBackoff paces the retries of an eviction the API server
	// refuses with 429 Too Many Requests (a PodDisruptionBudget that allows
	// no disruption now); after Steps attempts the drain fails. Default:
	// 1s doubling to 16s, 6 attempts.
	EvictionBackoff wait.Backoff
}

// Writer is a cloud.ClusterWriter over a real cluster. Every update reads
// the object, changes the fields it owns and writes it back, retrying on a
// conflict (another writer changed the object since it was read) as
// client-go's retry.RetryOnConflict does. Every error names the object.
type Writer struct {
	clients Clients
	cfg     WriterConfig
}

var _ cloud.ClusterWriter = (*Writer)(nil)

// NewWriter returns a writer to the clients' cluster.
func NewWriter(c Clients, cfg WriterConfig) *Writer {
	if cfg.FieldManager == "" {
		cfg.FieldManager = "karpsim"
	}
	if cfg.EvictionBackoff.Steps == 0 {
		cfg.EvictionBackoff = wait.Backoff{Duration: time.Second, Factor: 2, Steps: 6, Cap: 16 * time.Second}
	}
	return &Writer{clients: c, cfg: cfg}
}

func (w *Writer) dryRun() []string {
	if w.cfg.DryRun {
		return []string{metav1.DryRunAll}
	}
	return nil
}

func (w *Writer) nodeClaims() dynamic.NamespaceableResourceInterface {
	return w.clients.Dynamic.Resource(nodeClaims.gvr)
}

// CreateNodeClaim creates a NodeClaim, then sets its status when it has
// one (the API server drops status on create).
func (w *Writer) CreateNodeClaim(ctx context.Context, claim *apis.NodeClaim) error {
	u, err := toUnstructured(apis.GroupV1, apis.KindNodeClaim, claim)
	if err != nil {
		return fmt.Errorf("kube: create NodeClaim %s: %w", claim.Name, err)
	}
	status, hasStatus := u.Object["status"].(map[string]any)
	delete(u.Object, "status")
	u.SetResourceVersion("")
	created, err := w.nodeClaims().Create(ctx, u, metav1.CreateOptions{FieldManager: w.cfg.FieldManager, DryRun: w.dryRun()})
	if err != nil {
		return fmt.Errorf("kube: create NodeClaim %s: %w", claim.Name, err)
	}
	if !hasStatus || len(status) == 0 || w.cfg.DryRun {
		return nil
	}
	created.Object["status"] = status
	if _, err := w.nodeClaims().UpdateStatus(ctx, created, metav1.UpdateOptions{FieldManager: w.cfg.FieldManager}); err != nil {
		return fmt.Errorf("kube: set status of NodeClaim %s: %w", claim.Name, err)
	}
	return nil
}

// UpdateNodeClaim replaces a NodeClaim's labels and annotations, then its
// status, each on the latest version of the object.
func (w *Writer) UpdateNodeClaim(ctx context.Context, claim *apis.NodeClaim) error {
	want, err := toUnstructured(apis.GroupV1, apis.KindNodeClaim, claim)
	if err != nil {
		return fmt.Errorf("kube: update NodeClaim %s: %w", claim.Name, err)
	}
	opts := metav1.UpdateOptions{FieldManager: w.cfg.FieldManager, DryRun: w.dryRun()}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := w.nodeClaims().Get(ctx, claim.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.SetLabels(want.GetLabels())
		cur.SetAnnotations(want.GetAnnotations())
		_, err = w.nodeClaims().Update(ctx, cur, opts)
		return err
	})
	if err != nil {
		return fmt.Errorf("kube: update NodeClaim %s: %w", claim.Name, notFound(err))
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := w.nodeClaims().Get(ctx, claim.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if status, ok := want.Object["status"]; ok {
			cur.Object["status"] = status
		} else {
			delete(cur.Object, "status")
		}
		_, err = w.nodeClaims().UpdateStatus(ctx, cur, opts)
		return err
	})
	if err != nil {
		return fmt.Errorf("kube: update status of NodeClaim %s: %w", claim.Name, notFound(err))
	}
	return nil
}

// UpdateNode replaces a node's labels, annotations, taints and whether it
// is cordoned (spec.unschedulable).
func (w *Writer) UpdateNode(ctx context.Context, node *corev1.Node) error {
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := w.clients.Core.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Labels, cur.Annotations = maps.Clone(node.Labels), maps.Clone(node.Annotations)
		cur.Spec.Taints = apis.CopyTaints(node.Spec.Taints)
		cur.Spec.Unschedulable = node.Spec.Unschedulable
		_, err = w.clients.Core.CoreV1().Nodes().Update(ctx, cur, metav1.UpdateOptions{FieldManager: w.cfg.FieldManager, DryRun: w.dryRun()})
		return err
	})
	if err != nil {
		return fmt.Errorf("kube: update Node %s: %w", node.Name, notFound(err))
	}
	return nil
}

// DeleteNode drains a node through the Eviction API, so that the API
// server honours PodDisruptionBudgets, then deletes the node and its
// NodeClaims (a NodeClaim without a node is deleted by name). DaemonSet,
// mirror and finished pods are not evicted: they go with the node. An
// eviction refused with 429 is retried with WriterConfig.EvictionBackoff;
// if it is still refused, the drain stops with an error naming the pod, and
// nothing is deleted. It returns how many pods were evicted.
func (w *Writer) DeleteNode(ctx context.Context, name string) (int, error) {
	node, err := w.clients.Core.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		node = nil
	} else if err != nil {
		return 0, fmt.Errorf("kube: delete Node %s: %w", name, err)
	}
	claims, err := w.claimsOf(ctx, name, node)
	if err != nil {
		return 0, err
	}
	if node == nil && len(claims) == 0 {
		return 0, fmt.Errorf("kube: delete Node %s: %w", name, cloud.ErrNotFound)
	}
	evicted := 0
	if node != nil {
		if evicted, err = w.drain(ctx, name); err != nil {
			return evicted, err
		}
		err := w.clients.Core.CoreV1().Nodes().Delete(ctx, name, metav1.DeleteOptions{DryRun: w.dryRun()})
		if err != nil && !apierrors.IsNotFound(err) {
			return evicted, fmt.Errorf("kube: delete Node %s: %w", name, err)
		}
	}
	for _, c := range claims {
		err := w.nodeClaims().Delete(ctx, c, metav1.DeleteOptions{DryRun: w.dryRun()})
		if err != nil && !apierrors.IsNotFound(err) {
			return evicted, fmt.Errorf("kube: delete NodeClaim %s of node %s: %w", c, name, err)
		}
	}
	return evicted, nil
}

// claimsOf names the NodeClaims of a node: by status.nodeName, by
// status.providerID, or the claim of that name.
func (w *Writer) claimsOf(ctx context.Context, name string, node *corev1.Node) ([]string, error) {
	list, err := w.nodeClaims().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("kube: delete Node %s: list NodeClaims: %w", name, err)
	}
	var out []string
	for _, c := range list.Items {
		nodeName, _, _ := unstructured.NestedString(c.Object, "status", "nodeName")
		providerID, _, _ := unstructured.NestedString(c.Object, "status", "providerID")
		if c.GetName() == name || nodeName == name || (node != nil && node.Spec.ProviderID != "" && providerID == node.Spec.ProviderID) {
			out = append(out, c.GetName())
		}
	}
	return out, nil
}

// drain evicts the node's pods one by one.
func (w *Writer) drain(ctx context.Context, node string) (int, error) {
	list, err := w.clients.Core.CoreV1().Pods(metav1.NamespaceAll).List(ctx, metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String(),
	})
	if err != nil {
		return 0, fmt.Errorf("kube: drain Node %s: list its pods: %w", node, err)
	}
	evicted := 0
	for i := range list.Items {
		p := &list.Items[i]
		if p.Spec.NodeName != node || apis.IsDaemonSetPod(p) || apis.IsMirrorPod(p) || apis.IsTerminal(p) {
			continue
		}
		gone, err := w.evict(ctx, p)
		if err != nil {
			return evicted, fmt.Errorf("kube: drain Node %s: %w", node, err)
		}
		if !gone {
			evicted++
		}
	}
	return evicted, nil
}

// evict evicts one pod, retrying while the API server answers 429. gone is
// true when the pod no longer existed.
func (w *Writer) evict(ctx context.Context, p *corev1.Pod) (gone bool, err error) {
	eviction := &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace},
		DeleteOptions: &metav1.DeleteOptions{DryRun: w.dryRun()},
	}
	backoff := w.cfg.EvictionBackoff
	for attempt := 1; ; attempt++ {
		err := w.postEviction(ctx, eviction)
		switch {
		case err == nil:
			return false, nil
		case apierrors.IsNotFound(err):
			return true, nil
		case !apierrors.IsTooManyRequests(err):
			return false, fmt.Errorf("evict Pod %s/%s: %w", p.Namespace, p.Name, err)
		case attempt >= w.cfg.EvictionBackoff.Steps:
			return false, fmt.Errorf("evict Pod %s/%s: refused %d times (a PodDisruptionBudget allows no disruption): %w", p.Namespace, p.Name, attempt, err)
		}
		select {
		case <-ctx.Done():
			return false, fmt.Errorf("evict Pod %s/%s: %w (last refusal: %w)", p.Namespace, p.Name, ctx.Err(), err)
		case <-time.After(backoff.Step()):
		}
	}
}

// postEviction asks for one eviction. client-go's REST client would wait
// out a 429's Retry-After (10 s for a PodDisruptionBudget) and ask again on
// its own, up to ten times, hiding the refusal until the request times out;
// the writer retries with its own backoff instead, so the request is sent
// once. Fake clientsets have no REST client and go through Evict.
func (w *Writer) postEviction(ctx context.Context, eviction *policyv1.Eviction) error {
	rc, ok := w.clients.Core.CoreV1().RESTClient().(*rest.RESTClient)
	if !ok || rc == nil {
		return w.clients.Core.PolicyV1().Evictions(eviction.Namespace).Evict(ctx, eviction)
	}
	return rc.Post().MaxRetries(0).Namespace(eviction.Namespace).Resource("pods").Name(eviction.Name).
		SubResource("eviction").Body(eviction).Do(ctx).Error()
}

// notFound adds cloud.ErrNotFound to the chain of a NotFound answer.
func notFound(err error) error {
	if apierrors.IsNotFound(err) {
		return errors.Join(err, cloud.ErrNotFound)
	}
	return err
}
