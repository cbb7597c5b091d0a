package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/kube/kubetest"
)

// TestRunAgainstARealAPIServer runs the program against a real
// kube-apiserver holding Karpenter's own CRDs, in dry run and then
// applying: the pending pod gets one launch, its NodeClaim is accepted
// (validated and stored nowhere in dry run, stored when applying), and the
// loop does not launch and terminate again while it waits for the node. It
// is skipped, saying how to get them, where etcd, kube-apiserver or
// Karpenter's CRDs are missing.
func TestRunAgainstARealAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; not with -short")
	}
	s := kubetest.StartAPIServer(t)
	s.InstallCRDs(t)
	objs, err := kubetest.Objects([]byte(cluster))
	require.NoError(t, err)
	s.Create(t, objs...)
	nodeClaims := s.Admin.Dynamic.Resource(schema.GroupVersionResource{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"})

	for _, apply := range []bool{false, true} {
		var out syncBuffer
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, Config{Clients: s.Admin, Apply: apply, Launcher: &printLauncher{out: &out},
				Timings: controller.Timings{BatchIdle: 20 * time.Millisecond, BatchMax: 200 * time.Millisecond}}, &out)
		}()
		require.Eventually(t, func() bool { return strings.Contains(out.String(), "decision: launch ") },
			30*time.Second, 20*time.Millisecond, "apply %v: %s", apply, out.String())
		// Long enough for a refused create to have been retried several
		// times (the loop retries a failed step every second).
		time.Sleep(5 * time.Second)
		cancel()
		require.NoError(t, <-done)
		got := out.String()
		assert.Equal(t, 1, strings.Count(got, "launch (not done):"), "apply %v: one launch:\n%s", apply, got)
		assert.Equal(t, 1, strings.Count(got, "decision: launch "), "apply %v: one launch decision:\n%s", apply, got)
		assert.NotContains(t, got, "error", "apply %v: every write accepted:\n%s", apply, got)
		assert.NotContains(t, got, "terminate (not done)", "apply %v: nothing terminated:\n%s", apply, got)
		assert.NotContains(t, got, "launch-failed", "apply %v", apply)

		list, err := nodeClaims.List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err)
		if !apply {
			assert.Empty(t, list.Items, "dry run stores nothing")
			continue
		}
		require.Len(t, list.Items, 1, "the NodeClaim is stored")
		reqs, _, err := unstructured.NestedSlice(list.Items[0].Object, "spec", "requirements")
		require.NoError(t, err)
		assert.NotEmpty(t, reqs, "the NodeClaim states its requirements")
		assert.Contains(t, got, "launch (not done): NodeClaim "+list.Items[0].GetName()+":")
	}
}
