package kube_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/kube"
	"github.com/karpsim/karpsim/kube/kubetest"
)

const cluster = `
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  role: KarpenterNodeRole
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata: {name: default-abcde, labels: {karpenter.sh/nodepool: default}}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements: []
status: {nodeName: node-a, providerID: aws:///us-east-1a/i-1}
---
apiVersion: v1
kind: Node
metadata: {name: node-a, labels: {karpenter.sh/nodepool: default}}
spec: {providerID: aws:///us-east-1a/i-1}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: shop}
spec:
  nodeName: node-a
  containers: [{name: c, image: nginx}]
status:
  phase: Running
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: shop}
spec:
  containers: [{name: c, image: nginx}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web, namespace: shop}
spec: {maxUnavailable: 0, selector: {matchLabels: {app: web}}}
`

func fakes(t *testing.T, manifests string) kubetest.Fakes {
	t.Helper()
	objs, err := kubetest.Objects([]byte(manifests))
	require.NoError(t, err)
	return kubetest.New(objs...)
}

func started(t *testing.T, f kubetest.Fakes) *kube.Watcher {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	w := kube.NewWatcher(f.Clients, kube.WatcherConfig{})
	require.NoError(t, w.Start(ctx))
	t.Cleanup(w.Stop)
	return w
}

func TestWatcherSnapshotAfterSync(t *testing.T) {
	w := started(t, fakes(t, cluster))
	s, err := w.State()
	require.NoError(t, err)
	var pods []string
	for _, p := range s.Pods {
		pods = append(pods, p.Namespace+"/"+p.Name)
	}
	assert.Equal(t, []string{"shop/web-0", "shop/web-1"}, pods, "sorted by namespace/name")
	require.Len(t, s.Nodes, 1)
	require.Len(t, s.PDBs, 1)
	require.Len(t, s.NodePools, 1)
	require.Len(t, s.NodeClaims, 1)
	require.Len(t, s.EC2NodeClasses, 1)
	assert.Equal(t, "node-a", s.NodeClaims[0].Status.NodeName)
	assert.NotEmpty(t, s.NodePools[0].Spec.Disruption.ConsolidationPolicy, "NodePools are defaulted as files are")

	s.Pods[0].Name = "changed"
	assert.Equal(t, "web-0", w.Snapshot().Pods[0].Name, "the snapshot is a copy")
}

// recorder collects changes.
type recorder struct {
	mu      sync.Mutex
	changes []cloud.Change
}

func (r *recorder) add(c cloud.Change) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.changes = append(r.changes, c)
}

func (r *recorder) has(c cloud.Change) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.changes, c)
}

func TestWatcherReportsChanges(t *testing.T) {
	f := fakes(t, cluster)
	w := started(t, f)
	ctx := t.Context()
	var rec recorder
	w.Watch(ctx, rec.add)

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web-2", Namespace: "shop"}}
	_, err := f.Core.CoreV1().Pods("shop").Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err)
	pod.Spec.NodeName = "node-a"
	pod.ResourceVersion = "2"
	_, err = f.Core.CoreV1().Pods("shop").Update(ctx, pod, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, f.Dynamic.Resource(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}).
		Delete(ctx, "default-abcde", metav1.DeleteOptions{}))

	want := []cloud.Change{
		{Type: cloud.Added, Kind: "Pod", Namespace: "shop", Name: "web-2"},
		{Type: cloud.Modified, Kind: "Pod", Namespace: "shop", Name: "web-2"},
		{Type: cloud.Deleted, Kind: "NodeClaim", Name: "default-abcde"},
	}
	for _, c := range want {
		require.Eventually(t, func() bool { return rec.has(c) }, 5*time.Second, 10*time.Millisecond, "change %+v", c)
	}
	require.Eventually(t, func() bool { return len(w.Snapshot().NodeClaims) == 0 }, 5*time.Second, 10*time.Millisecond)
}

func TestWatcherStopsReportingWhenTheContextIsDone(t *testing.T) {
	f := fakes(t, cluster)
	w := started(t, f)
	ctx, cancel := context.WithCancel(t.Context())
	var rec recorder
	w.Watch(ctx, rec.add)
	cancel()
	_, err := f.Core.CoreV1().Nodes().Create(t.Context(), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-b"}}, metav1.CreateOptions{})
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(w.Snapshot().Nodes) == 2 }, 5*time.Second, 10*time.Millisecond)
	assert.Empty(t, rec.changes)
}

func TestWatcherStartNamesWhatItCannotRead(t *testing.T) {
	for _, tc := range []struct {
		name     string
		dynamic  bool
		resource string
		err      error
		want     error
		says     string
	}{
		{"RBAC forbids NodePools", true, "nodepools", apierrors.NewForbidden(schema.GroupResource{Group: "karpenter.sh", Resource: "nodepools"}, "", errors.New("no RBAC")),
			kube.ErrForbidden, "list nodepools.karpenter.sh: forbidden"},
		{"CRDs not installed", true, "ec2nodeclasses", apierrors.NewNotFound(schema.GroupResource{Group: "karpenter.k8s.aws", Resource: "ec2nodeclasses"}, ""),
			kube.ErrNotServed, "install Karpenter's CRDs (the CustomResourceDefinition ec2nodeclasses.karpenter.k8s.aws)"},
		{"RBAC forbids pods", false, "pods", apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no RBAC")),
			kube.ErrForbidden, "list pods: forbidden"},
		{"server unreachable", false, "nodes", errors.New("dial tcp 127.0.0.1:1: connect: connection refused"),
			kube.ErrUnreachable, "connection refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := fakes(t, cluster)
			refuse := func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tc.err }
			if tc.dynamic {
				f.Dynamic.PrependReactor("list", tc.resource, refuse)
			} else {
				f.Core.PrependReactor("list", tc.resource, refuse)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			err := kube.NewWatcher(f.Clients, kube.WatcherConfig{}).Start(ctx)
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.says)
			assert.NoError(t, ctx.Err(), "Start fails at once, not at the deadline")
		})
	}
}

func TestWatcherStateNamesAnObjectThatDoesNotDecode(t *testing.T) {
	w := started(t, fakes(t, cluster+`
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: broken}
spec: {weight: "heavy"}
`))
	s, err := w.State()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "NodePool/broken")
	assert.Len(t, s.NodePools, 1, "the others are still read")
}

// TestWatcherSkipsOptionalKindsItCannotRead: an optional kind the server
// does not serve, or the credentials may not list, is read as none and
// named; CapacityBuffers are read through v1alpha1 when v1beta1 is not
// served.
func TestWatcherSkipsOptionalKindsItCannotRead(t *testing.T) {
	f := fakes(t, cluster+`---
apiVersion: autoscaling.x-k8s.io/v1alpha1
kind: CapacityBuffer
metadata: {name: headroom, namespace: shop}
spec:
  podTemplateRef: {name: batch}
  replicas: 1
`)
	notServed := func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetResource().Version == "v1alpha1" && a.GetResource().Resource == "capacitybuffers" {
			return false, nil, nil
		}
		return true, nil, apierrors.NewNotFound(a.GetResource().GroupResource(), "")
	}
	f.Dynamic.PrependReactor("list", "nodeoverlays", notServed)
	f.Dynamic.PrependReactor("list", "capacitybuffers", notServed)
	f.Core.PrependReactor("list", "resourceclaims", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(a.GetResource().GroupResource(), "", errors.New("no rule"))
	})
	w := started(t, f)
	assert.Equal(t, []string{"nodeoverlays.karpenter.sh: not served", "resourceclaims.resource.k8s.io: forbidden"}, w.Skipped())
	s, err := w.State()
	require.NoError(t, err)
	assert.Empty(t, s.NodeOverlays)
	assert.Empty(t, s.ResourceClaims)
	require.Len(t, s.CapacityBuffers, 1, "read through v1alpha1")
	assert.Equal(t, "headroom", s.CapacityBuffers[0].Name)
}
