package kube_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/kube"
	"github.com/karpsim/karpsim/kube/kubetest"
)

// TestWriterAgainstARealAPIServer writes through kube.Writer to a real
// kube-apiserver: dry run stores nothing, NodeClaims are created with their
// status, nodes are tainted, a PodDisruptionBudget stops a drain with 429
// until it is gone, and the watcher reports it all. It is skipped, saying
// how to install them, where etcd or kube-apiserver is missing.
func TestWriterAgainstARealAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; not with -short")
	}
	s := kubetest.StartAPIServer(t)
	s.InstallCRDs(t)
	objs, err := kubetest.Objects([]byte(cluster))
	require.NoError(t, err)
	s.Create(t, objs...)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	core := s.Admin.Core

	watcher := kube.NewWatcher(s.Admin, kube.WatcherConfig{})
	require.NoError(t, watcher.Start(ctx))
	defer watcher.Stop()
	var rec recorder
	watcher.Watch(ctx, rec.add)
	st, err := watcher.State()
	require.NoError(t, err)
	assert.Len(t, st.Pods, 2)
	assert.Len(t, st.NodePools, 1)

	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-1", Labels: map[string]string{apis.LabelNodePool: "default"}}}
	claim.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: apis.KindEC2NodeClass, Name: "default"}
	claim.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{
		{Key: apis.LabelInstanceType, Operator: corev1.NodeSelectorOpIn, Values: []string{"m5.large"}}}
	claim.Status.ProviderID = "aws:///us-east-1a/i-2"

	dry := kube.NewWriter(s.Admin, kube.WriterConfig{DryRun: true, EvictionBackoff: fastBackoff})
	require.NoError(t, dry.CreateNodeClaim(ctx, claim))
	node := st.Nodes[0].DeepCopy()
	node.Spec.Taints = append(node.Spec.Taints, apis.DisruptedTaint())
	require.NoError(t, dry.UpdateNode(ctx, node))
	_, err = dry.DeleteNode(ctx, "node-a") // the PDB selects no pod: web-1 has no labels
	require.NoError(t, err)
	_, err = s.Admin.Dynamic.Resource(nodeClaimsGVR).Get(ctx, "default-1", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "a dry-run create stores nothing: %v", err)
	got, err := core.CoreV1().Nodes().Get(ctx, "node-a", metav1.GetOptions{})
	require.NoError(t, err)
	assert.False(t, apis.HasDisruptedTaint(got.Spec.Taints), "a dry-run update stores nothing")
	_, err = core.CoreV1().Pods("shop").Get(ctx, "web-1", metav1.GetOptions{})
	assert.NoError(t, err, "a dry-run eviction evicts nothing")

	w := kube.NewWriter(s.Admin, kube.WriterConfig{EvictionBackoff: fastBackoff})
	require.NoError(t, w.CreateNodeClaim(ctx, claim))
	c, err := s.Admin.Dynamic.Resource(nodeClaimsGVR).Get(ctx, "default-1", metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "aws:///us-east-1a/i-2", c.Object["status"].(map[string]any)["providerID"], "status set after create")
	assert.Equal(t, "karpsim", c.GetManagedFields()[0].Manager)
	require.NoError(t, w.UpdateNode(ctx, node))
	got, err = core.CoreV1().Nodes().Get(ctx, "node-a", metav1.GetOptions{})
	require.NoError(t, err)
	assert.True(t, apis.HasDisruptedTaint(got.Spec.Taints), "%v", got.Spec.Taints)

	// Labelled app=web, web-1 falls under the PDB web, which allows no
	// disruption: the API server refuses its eviction with 429, and the
	// node stays.
	web1, err := core.CoreV1().Pods("shop").Get(ctx, "web-1", metav1.GetOptions{})
	require.NoError(t, err)
	web1.Labels = map[string]string{"app": "web"}
	_, err = core.CoreV1().Pods("shop").Update(ctx, web1, metav1.UpdateOptions{})
	require.NoError(t, err)
	_, err = w.DeleteNode(ctx, "node-a")
	require.Error(t, err)
	assert.True(t, apierrors.IsTooManyRequests(err), "%v", err)
	assert.Contains(t, err.Error(), "drain Node node-a: evict Pod shop/web-1: refused 3 times")
	_, err = core.CoreV1().Nodes().Get(ctx, "node-a", metav1.GetOptions{})
	require.NoError(t, err, "the node stays")

	require.NoError(t, core.PolicyV1().PodDisruptionBudgets("shop").Delete(ctx, "web", metav1.DeleteOptions{}))
	patient := kube.NewWriter(s.Admin, kube.WriterConfig{EvictionBackoff: wait.Backoff{Duration: 100 * time.Millisecond, Factor: 1, Steps: 50}})
	evicted, err := patient.DeleteNode(ctx, "node-a")
	require.NoError(t, err)
	assert.Equal(t, 1, evicted)
	_, err = core.CoreV1().Nodes().Get(ctx, "node-a", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err))
	_, err = s.Admin.Dynamic.Resource(nodeClaimsGVR).Get(ctx, "default-abcde", metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the node's NodeClaim goes with it")

	for _, c := range []cloud.Change{
		{Type: cloud.Added, Kind: "NodeClaim", Name: "default-1"},
		{Type: cloud.Modified, Kind: "Node", Name: "node-a"},
		{Type: cloud.Deleted, Kind: "Node", Name: "node-a"},
		{Type: cloud.Deleted, Kind: "NodeClaim", Name: "default-abcde"},
	} {
		require.Eventually(t, func() bool { return rec.has(c) }, 10*time.Second, 20*time.Millisecond, "change %+v", c)
	}
}
