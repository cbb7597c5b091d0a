package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serveIn starts serve over env in the background and returns its base
// URL, and a stop that ends it and returns its exit code and stderr.
func serveIn(t *testing.T, env environment, args ...string) (string, func() (int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	env.serveContext = func() (context.Context, context.CancelFunc) { return context.WithCancel(ctx) }
	addr := make(chan string, 1)
	env.listening = func(a string) { addr <- a }
	type exit struct {
		code           int
		stdout, stderr string
	}
	done := make(chan exit, 1)
	go func() {
		code, stdout, stderr := runEnv(env, append([]string{"serve", "--listen", "127.0.0.1:0"}, args...)...)
		done <- exit{code, stdout, stderr}
	}()
	var base string
	select {
	case a := <-addr:
		base = "http://" + a
	case e := <-done:
		cancel()
		t.Fatalf("serve exited %d before listening: %s", e.code, e.stderr)
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatal("serve did not listen within 60 s")
	}
	stopped := false
	stop := func() (int, string) {
		cancel()
		e := <-done
		stopped = true
		return e.code, e.stderr
	}
	t.Cleanup(func() {
		if !stopped {
			stop()
		}
	})
	return base, stop
}

// httpGet returns the status and body of a GET.
func httpGet(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// eventually polls get until ok, failing after within.
func eventually(t *testing.T, within time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestServeAnswersAndFollowsChanges serves a fake cluster: the page, the
// JSON and the metrics answer for it, a pod created through the API shows
// in the metrics within the debounce, and serve stops cleanly, having
// written nothing to the cluster.
func TestServeAnswersAndFollowsChanges(t *testing.T) {
	env, fakes := fakeCluster(t, filepath.Join("..", "..", "testdata", "disrupt", "empty-node", "input.yaml"))
	base, stop := serveIn(t, env, "--debounce", "50ms")
	eventually(t, 30*time.Second, "ready", func() bool { code, _ := httpGet(t, base+"/readyz"); return code == http.StatusOK })

	code, page := httpGet(t, base+"/")
	require.Equal(t, http.StatusOK, code)
	assert.Contains(t, page, "<title>karpsim advisor</title>")
	_, status := httpGet(t, base+"/api/status")
	assert.Contains(t, status, `"name": "ip-10-0-1-10.ec2.internal"`)
	_, metrics := httpGet(t, base+"/metrics")
	assert.Contains(t, metrics, "\nkarpsim_pending_pods 0\n")
	assert.Contains(t, metrics, `karpsim_disruption_candidate_nodes{method="emptiness"}`)
	assert.Contains(t, metrics, "\nkarpsim_view_stale 0\n")

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "late", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}}}}}
	writes := len(fakes.Core.Actions())
	_, err := fakes.Core.CoreV1().Pods("default").Create(context.Background(), pod, metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, 5*time.Second, "the new pod in karpsim_pending_pods", func() bool {
		_, m := httpGet(t, base+"/metrics")
		return strings.Contains(m, "\nkarpsim_pending_pods 1\n")
	})
	for _, a := range fakes.Core.Actions()[writes+1:] {
		assert.Contains(t, []string{"list", "watch", "get"}, a.GetVerb(), "serve only reads: %v", a)
	}
	for _, a := range fakes.Dynamic.Actions() {
		assert.Contains(t, []string{"list", "watch", "get"}, a.GetVerb(), "serve only reads: %v", a)
	}

	code, stderr := stop()
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "read only: it never writes to the cluster")
	assert.Contains(t, stderr, "karpsim serve: stopped")
}

func TestServeRefusesBadFlags(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"--debounce 0s", "--debounce 0s: give 10ms to 10m0s"},
		{"--period 100h", "--period 100h0m0s: give 1s to 24h0m0s"},
		{"--listen 127.0.0.1:99999", "--listen 127.0.0.1:99999"},
		{"--feature-gates NodeRepairs=true", `unknown gate "NodeRepairs"`},
		{"--aws-feature-gates RebootForRepair=maybe", "RebootForRepair=maybe"},
	} {
		env, _ := fakeCluster(t, filepath.Join("..", "..", "testdata", "disrupt", "empty-node", "input.yaml"))
		env.serveContext = func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
		code, _, stderr := runEnv(env, append([]string{"serve"}, strings.Fields(tc.args)...)...)
		assert.NotEqual(t, 0, code, tc.args)
		assert.Contains(t, stderr, tc.want, tc.args)
	}
}

// TestServeRepairsWithTheGate serves the node-repair golden's cluster with
// --feature-gates NodeRepair=true: the advisor's disruption command is
// node repair's, as karpsim disrupt gives it with the gate.
func TestServeRepairsWithTheGate(t *testing.T) {
	env, _ := fakeCluster(t, filepath.Join("..", "..", "testdata", "disrupt", "node-repair", "input.yaml"))
	base, stop := serveIn(t, env, "--debounce", "50ms", "--feature-gates", "NodeRepair=true")
	eventually(t, 30*time.Second, "ready", func() bool { code, _ := httpGet(t, base+"/readyz"); return code == http.StatusOK })
	_, metrics := httpGet(t, base+"/metrics")
	assert.Contains(t, metrics, `karpsim_disruption_candidate_nodes{method="repair"}`)
	code, stderr := stop()
	assert.Equal(t, 0, code, stderr)
}
