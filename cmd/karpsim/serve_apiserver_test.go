package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/kube/kubetest"
)

// TestServeAgainstARealAPIServer deploys what deploy/kubernetes/serve.yaml
// holds to a real kube-apiserver (every object accepted), runs serve as its
// ServiceAccount (through impersonation: only the read-only ClusterRole
// karpsim-read), and has a real Prometheus server scrape it: a query sees
// each node's reason, and a pod created during the test shows in
// karpsim_pending_pods; and when the API server stops, serve says its view
// is stale until it is back, then follows changes again. It skips, saying how to install them, without etcd
// and kube-apiserver, Karpenter's CRDs or Prometheus.
func TestServeAgainstARealAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; not with -short")
	}
	s := kubetest.StartAPIServer(t)
	s.InstallCRDs(t)
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl on PATH to apply deploy/kubernetes/serve.yaml with")
	}
	admin := s.Kubeconfig(t, "admin", kubetest.AdminToken)
	out, err := exec.Command(kubectl, "--kubeconfig", admin, "apply", "-f", filepath.Join("..", "..", "deploy", "kubernetes", "serve.yaml")).CombinedOutput()
	require.NoError(t, err, "every object of deploy/kubernetes/serve.yaml is accepted: %s", out)
	data, err := os.ReadFile(disruptScenario("do-not-disrupt-and-pdb"))
	require.NoError(t, err)
	objs, err := kubetest.Objects(data)
	require.NoError(t, err)
	s.Create(t, objs...)

	// The ServiceAccount's view: the admin's token, impersonating it.
	kubeconfig := filepath.Join(t.TempDir(), "sa.kubeconfig")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster: {server: %q, insecure-skip-tls-verify: true}
users:
- name: karpsim
  user: {token: %q, as: "system:serviceaccount:karpsim:karpsim"}
contexts:
- name: karpsim
  context: {cluster: test, user: karpsim}
current-context: karpsim
`, s.URL, kubetest.AdminToken)), 0o600))
	base, stop := serveIn(t, environment{connect: connectKubeconfig}, "--kubeconfig", kubeconfig, "--debounce", "100ms")
	eventually(t, 60*time.Second, "ready", func() bool { code, _ := httpGet(t, base+"/readyz"); return code == http.StatusOK })
	_, metrics := httpGet(t, base+"/metrics")
	assert.Contains(t, metrics, `karpsim_node_not_disrupted{node="ip-10-0-1-10.ec2.internal",nodepool="default",reason="do-not-disrupt"} 1`)
	assert.Contains(t, metrics, `karpsim_node_not_disrupted{node="ip-10-0-2-11.ec2.internal",nodepool="default",reason="pdb"} 1`)
	assert.Contains(t, metrics, "\nkarpsim_view_stale 0\n")

	prometheus := startPrometheus(t, strings.TrimPrefix(base, "http://"))
	eventually(t, 60*time.Second, "Prometheus has scraped the reasons", func() bool {
		return len(promQuery(t, prometheus, `karpsim_node_not_disrupted{reason="pdb"} == 1`)) == 1
	})
	// The Deployment of serve.yaml has no pod yet (no controller manager
	// runs here): karpsim counts its replica as a pod about to be made.
	assert.Equal(t, []string{"1"}, promQuery(t, prometheus, "karpsim_pending_pods"))

	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-0", Namespace: "shop"}}
	pending.Spec.Containers = []corev1.Container{{Name: "api", Image: "api", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("4Gi")}}}}
	_, err = s.Admin.Core.CoreV1().Pods("shop").Create(context.Background(), pending, metav1.CreateOptions{})
	require.NoError(t, err)
	created := time.Now()
	eventually(t, 5*time.Second, "the pod in serve's metrics", func() bool {
		_, m := httpGet(t, base+"/metrics")
		return strings.Contains(m, "\nkarpsim_pending_pods 2\n")
	})
	t.Logf("the created pod showed in /metrics after %s", time.Since(created).Round(time.Millisecond))
	eventually(t, 30*time.Second, "Prometheus sees the pending pod", func() bool {
		v := promQuery(t, prometheus, "karpsim_pending_pods")
		return len(v) == 1 && v[0] == "2"
	})
	assert.NotEmpty(t, promQuery(t, prometheus, `karpsim_provisioning_plan_nodeclaims > 0`), "a NodeClaim for the pending pods")

	// The API server goes away: the view is marked stale, on the page's
	// JSON and in the metrics, and the last answer stays. When it is back,
	// the informers watch again and a pod created then shows.
	s.Stop()
	eventually(t, 30*time.Second, "stale while the API server is down", func() bool {
		_, m := httpGet(t, base+"/metrics")
		return strings.Contains(m, "\nkarpsim_view_stale 1\n")
	})
	_, status := httpGet(t, base+"/api/status")
	assert.Contains(t, status, `"stale": true`)
	assert.Contains(t, status, `"name": "ip-10-0-1-10.ec2.internal"`, "the last answer stays")
	s.Restart(t)
	eventually(t, 30*time.Second, "fresh again once the API server is back", func() bool {
		_, m := httpGet(t, base+"/metrics")
		return strings.Contains(m, "\nkarpsim_view_stale 0\n")
	})
	second := pending.DeepCopy()
	second.Name, second.ResourceVersion = "api-1", ""
	_, err = s.Admin.Core.CoreV1().Pods("shop").Create(context.Background(), second, metav1.CreateOptions{})
	require.NoError(t, err)
	eventually(t, 60*time.Second, "a pod created after the restart in serve's metrics", func() bool {
		_, m := httpGet(t, base+"/metrics")
		return strings.Contains(m, "\nkarpsim_pending_pods 3\n")
	})

	code, stderr := stop()
	assert.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "forbidden", "the read-only ClusterRole is all serve needs")
	assert.Contains(t, stderr, "the API server does not answer", "serve logs the outage")
}

// startPrometheus runs Debian's prometheus scraping target every second and
// returns its base URL, or skips the test saying how to install it.
func startPrometheus(t *testing.T, target string) string {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("no prometheus here: install it (Debian: apt-get install prometheus) to test serve with a real scraper")
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "prometheus.yml")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
- job_name: karpsim
  static_configs: [{targets: [%q]}]
`, target)), 0o600))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, "--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("prometheus:\n%s", log.String())
		}
	})
	base := "http://" + addr
	eventually(t, 60*time.Second, "prometheus ready", func() bool {
		resp, err := http.Get(base + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return base
}

// promQuery runs an instant query and returns the values of its samples.
func promQuery(t *testing.T, base, query string) []string {
	t.Helper()
	resp, err := http.Get(base + "/api/v1/query?query=" + url.QueryEscape(query))
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	require.Equal(t, "success", out.Status, query)
	var values []string
	for _, r := range out.Data.Result {
		values = append(values, fmt.Sprint(r.Value[1]))
	}
	return values
}
