package main

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"

	"github.com/karpsim/karpsim/controller"
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
apiVersion: v1
kind: Pod
metadata: {name: web-0, namespace: shop, creationTimestamp: "2026-01-01T00:00:00Z"}
spec:
  containers:
  - name: c
    image: nginx
    resources: {requests: {cpu: "1", memory: 1Gi}}
`

// syncBuffer is a bytes.Buffer safe for the runner's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// The loop sees the pending pod and asks to launch a node for it, with the
// NodeClaim written in dry run.
func TestRunLaunchesForAPendingPodInDryRun(t *testing.T) {
	objs, err := kubetest.Objects([]byte(cluster))
	require.NoError(t, err)
	f := kubetest.New(objs...)
	var out syncBuffer
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, Config{Clients: f.Clients, Launcher: &printLauncher{out: &out},
			Timings: controller.Timings{BatchIdle: 20 * time.Millisecond, BatchMax: 200 * time.Millisecond}}, &out)
	}()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "launch (not done): NodeClaim default-") },
		20*time.Second, 20*time.Millisecond, out.String())
	cancel()
	require.NoError(t, <-done)
	assert.Contains(t, out.String(), "synced: 1 pods, 0 nodes, 1 NodePools (dry run")
	for _, a := range f.Dynamic.Actions() {
		if c, ok := a.(k8stesting.CreateActionImpl); ok {
			assert.Equal(t, []string{metav1.DryRunAll}, c.CreateOptions.DryRun, "NodeClaims are created in dry run")
		}
	}
}
