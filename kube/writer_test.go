package kube_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	k8stesting "k8s.io/client-go/testing"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/kube"
	"github.com/karpsim/karpsim/kube/kubetest"
)

var nodeClaimsGVR = schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}

// fastBackoff retries a refused eviction three times without waiting long.
var fastBackoff = wait.Backoff{Duration: time.Millisecond, Factor: 1, Steps: 3}

// evictions makes the fake clientset evict as the API server does: the
// pod is deleted, or refused with 429 while refuse says so.
func evictions(f kubetest.Fakes, refuse func(name string) bool) *atomic.Int32 {
	var calls atomic.Int32
	f.Core.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		calls.Add(1)
		ev := a.(k8stesting.CreateAction).GetObject().(*policyv1.Eviction)
		if refuse(ev.Name) {
			return true, nil, apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		}
		if len(ev.DeleteOptions.DryRun) > 0 {
			return true, nil, nil
		}
		return true, nil, f.Core.Tracker().Delete(schema.GroupVersionResource{Version: "v1", Resource: "pods"}, ev.Namespace, ev.Name)
	})
	return &calls
}

func TestWriterCreatesAndUpdatesNodeClaims(t *testing.T) {
	f := fakes(t, cluster)
	w := kube.NewWriter(f.Clients, kube.WriterConfig{})
	ctx := t.Context()
	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-1", Labels: map[string]string{apis.LabelNodePool: "default"}}}
	claim.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: apis.KindEC2NodeClass, Name: "default"}
	require.NoError(t, w.CreateNodeClaim(ctx, claim))
	err := w.CreateNodeClaim(ctx, claim)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "create NodeClaim default-1")

	claim.Annotations = map[string]string{"karpenter.sh/do-not-disrupt": "true"}
	claim.Status.NodeName = "node-b"
	require.NoError(t, w.UpdateNodeClaim(ctx, claim))
	got, err := f.Dynamic.Resource(nodeClaimsGVR).Get(ctx, "default-1", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "true", got.GetAnnotations()["karpenter.sh/do-not-disrupt"])
	assert.Equal(t, "node-b", got.Object["status"].(map[string]any)["nodeName"])

	claim.Name = "gone"
	err = w.UpdateNodeClaim(ctx, claim)
	assert.ErrorIs(t, err, cloud.ErrNotFound)
	assert.Contains(t, err.Error(), "NodeClaim gone")
}

func TestWriterRetriesAConflict(t *testing.T) {
	f := fakes(t, cluster)
	var updates atomic.Int32
	f.Core.PrependReactor("update", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		if updates.Add(1) == 1 {
			return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "nodes"}, "node-a", errors.New("the object has been modified"))
		}
		return false, nil, nil
	})
	w := kube.NewWriter(f.Clients, kube.WriterConfig{FieldManager: "test"})
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-a", Labels: map[string]string{"x": "y"}}}
	node.Spec.Taints = []corev1.Taint{apis.DisruptedTaint()}
	require.NoError(t, w.UpdateNode(t.Context(), node))
	assert.Equal(t, int32(2), updates.Load(), "the conflict was retried once")
	got, err := f.Core.CoreV1().Nodes().Get(t.Context(), "node-a", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, node.Spec.Taints, got.Spec.Taints)
	assert.Equal(t, "aws:///us-east-1a/i-1", got.Spec.ProviderID, "fields the writer does not own are kept")

	err = w.UpdateNode(t.Context(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "deleted-meanwhile"}})
	assert.ErrorIs(t, err, cloud.ErrNotFound)
	assert.Contains(t, err.Error(), "update Node deleted-meanwhile")
}

func TestWriterDrainsAndDeletesANode(t *testing.T) {
	f := fakes(t, cluster)
	calls := evictions(f, func(string) bool { return false })
	w := kube.NewWriter(f.Clients, kube.WriterConfig{EvictionBackoff: fastBackoff})
	evicted, err := w.DeleteNode(t.Context(), "node-a")
	require.NoError(t, err)
	assert.Equal(t, 1, evicted)
	assert.Equal(t, int32(1), calls.Load(), "only the pod on node-a is evicted")
	_, err = f.Core.CoreV1().Nodes().Get(t.Context(), "node-a", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err))
	_, err = f.Dynamic.Resource(nodeClaimsGVR).Get(t.Context(), "default-abcde", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the node's NodeClaim is deleted with it")

	_, err = w.DeleteNode(t.Context(), "node-a")
	assert.ErrorIs(t, err, cloud.ErrNotFound)
}

func TestWriterStopsADrainAPDBRefuses(t *testing.T) {
	f := fakes(t, cluster)
	calls := evictions(f, func(name string) bool { return name == "web-1" })
	w := kube.NewWriter(f.Clients, kube.WriterConfig{EvictionBackoff: fastBackoff})
	_, err := w.DeleteNode(t.Context(), "node-a")
	require.Error(t, err)
	assert.True(t, apierrors.IsTooManyRequests(err))
	assert.Contains(t, err.Error(), "drain Node node-a: evict Pod shop/web-1: refused 3 times")
	assert.Equal(t, int32(3), calls.Load())
	_, err = f.Core.CoreV1().Nodes().Get(t.Context(), "node-a", metav1.GetOptions{})
	assert.NoError(t, err, "the node stays while its pod cannot be evicted")
}

func TestWriterEvictionWaitStopsWithTheContext(t *testing.T) {
	f := fakes(t, cluster)
	evictions(f, func(string) bool { return true })
	w := kube.NewWriter(f.Clients, kube.WriterConfig{EvictionBackoff: wait.Backoff{Duration: time.Hour, Steps: 5}})
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := w.DeleteNode(ctx, "node-a")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestWriterDryRunStoresNothing(t *testing.T) {
	f := fakes(t, cluster)
	evictions(f, func(string) bool { return false })
	w := kube.NewWriter(f.Clients, kube.WriterConfig{DryRun: true, EvictionBackoff: fastBackoff})
	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-1"}}
	require.NoError(t, w.CreateNodeClaim(t.Context(), claim))
	_, err := w.DeleteNode(t.Context(), "node-a")
	require.NoError(t, err)
	// The fake clientset ignores dryRun, so the check is that every write
	// asked for it.
	writes := 0
	for _, a := range append(f.Core.Actions(), f.Dynamic.Actions()...) {
		var dryRun []string
		switch a := a.(type) {
		case k8stesting.DeleteActionImpl:
			dryRun = a.DeleteOptions.DryRun
		case k8stesting.UpdateActionImpl:
			dryRun = a.UpdateOptions.DryRun
		case k8stesting.CreateActionImpl:
			if ev, ok := a.GetObject().(*policyv1.Eviction); ok {
				dryRun = ev.DeleteOptions.DryRun
			} else {
				dryRun = a.CreateOptions.DryRun
			}
		default:
			continue
		}
		writes++
		assert.Equal(t, []string{metav1.DryRunAll}, dryRun, "%s %s", a.GetVerb(), a.GetResource().Resource)
	}
	assert.Equal(t, 4, writes, "create the claim, evict the pod, delete the node and its claim")
}

// A pod deleted between the drain's list and its eviction is gone already:
// the drain goes on without counting it.
func TestWriterDrainSkipsAPodDeletedMeanwhile(t *testing.T) {
	f := fakes(t, cluster)
	f.Core.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() != "eviction" {
			return false, nil, nil
		}
		return true, nil, apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "web-1")
	})
	w := kube.NewWriter(f.Clients, kube.WriterConfig{EvictionBackoff: fastBackoff})
	evicted, err := w.DeleteNode(t.Context(), "node-a")
	require.NoError(t, err)
	assert.Equal(t, 0, evicted)
	_, err = f.Core.CoreV1().Nodes().Get(t.Context(), "node-a", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the node is deleted")
}
