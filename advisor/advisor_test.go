package advisor

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

// memoryCluster is an in-memory cluster holding a disruption golden's
// objects.
func memoryCluster(t *testing.T, golden string) (*cloud.MemoryCluster, time.Time) {
	t.Helper()
	set, err := manifests.Load(filepath.Join("..", "testdata", "disrupt", golden, "input.yaml"))
	require.NoError(t, err)
	_, at := snapshot.TimeRange(set)
	m := &cloud.MemoryCluster{}
	m.Set(cloud.ClusterState{Pods: set.Pods, Nodes: set.Nodes, NodeClaims: set.NodeClaims, PDBs: set.PodDisruptionBudgets,
		NodePools: set.NodePools, EC2NodeClasses: set.EC2NodeClasses, DaemonSets: set.DaemonSets})
	return m, at
}

func pendingPod(name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", CreationTimestamp: metav1.NewTime(time.Date(2026, 3, 3, 11, 0, 0, 0, time.UTC))},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "x",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}}}},
	}
}

// waitFor polls the advisor until ok holds, failing after 10 s.
func waitFor(t *testing.T, a *Advisor, what string, ok func(Status) bool) Status {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := a.Status()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s: %s; status: stale %v, error %q, %d evaluations", what, s.Stale, s.Error, s.Evaluations)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestAdvisorFollowsTheCluster runs an advisor over an in-memory cluster:
// its first answer is the cluster's, a pod created later shows up in the
// plan and the metrics after the debounce, and its deletion takes it out
// again.
func TestAdvisorFollowsTheCluster(t *testing.T) {
	m, at := memoryCluster(t, "empty-node")
	a := New(m, Config{Debounce: 20 * time.Millisecond, Period: time.Hour, Now: func() time.Time { return at }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- a.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-a.Ready()
	first := a.Status()
	require.NotNil(t, first.Answer)
	require.NotNil(t, first.Answer.Repack, "the first evaluation weighs the cluster too")
	assert.Zero(t, first.Answer.Pending.Pods)
	require.NotEmpty(t, first.Answer.Disruption.Commands)
	assert.Equal(t, "emptiness", first.Answer.Disruption.Commands[0].Method)

	require.NoError(t, m.Apply(pendingPod("late")))
	s := waitFor(t, a, "the new pod is pending in the answer", func(s Status) bool { return s.Answer.Pending.Pods == 1 })
	require.Len(t, s.Answer.Pending.NodeClaims, 1)
	assert.Equal(t, s.Answer.Pending.NodeClaims[0].PricePerHour, s.Answer.Pending.PerHour)
	assert.NotNil(t, s.Answer.Repack, "a change keeps the last repack")
	assert.Equal(t, 1.0, metricValue(t, a, "karpsim_pending_pods"))

	require.NoError(t, m.Delete("Pod", "default", "late"))
	waitFor(t, a, "the deleted pod leaves the answer", func(s Status) bool { return s.Answer.Pending.Pods == 0 })
}

// metricValue is the value of the first sample of the named gauge.
func metricValue(t *testing.T, a *Advisor, name string) float64 {
	t.Helper()
	families, err := a.Registry().Gather()
	require.NoError(t, err)
	for _, f := range families {
		if f.GetName() == name && len(f.GetMetric()) > 0 {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestStaleWhileTheAPIServerDoesNotAnswer: a failing probe marks the view
// stale, on the page's JSON and in karpsim_view_stale; when the probe
// answers again the advisor evaluates at once and the mark goes.
func TestStaleWhileTheAPIServerDoesNotAnswer(t *testing.T) {
	m, at := memoryCluster(t, "empty-node")
	var mu sync.Mutex
	var down error
	a := New(m, Config{Debounce: time.Hour, Period: time.Hour, ProbeEvery: 10 * time.Millisecond, Now: func() time.Time { return at },
		Probe: func(context.Context) error { mu.Lock(); defer mu.Unlock(); return down }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- a.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-a.Ready()
	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	assert.Contains(t, get(t, srv.URL+"/metrics"), "\nkarpsim_view_stale 0\n")

	mu.Lock()
	down = errors.New("connection refused")
	mu.Unlock()
	s := waitFor(t, a, "stale", func(s Status) bool { return s.Stale })
	assert.Contains(t, s.Error, "connection refused")
	assert.False(t, s.StaleSince.IsZero())
	assert.Contains(t, get(t, srv.URL+"/metrics"), "\nkarpsim_view_stale 1\n")
	assert.Contains(t, get(t, srv.URL+"/api/status"), `"stale": true`)

	evaluations := s.Evaluations
	mu.Lock()
	down = nil
	mu.Unlock()
	s = waitFor(t, a, "fresh again", func(s Status) bool { return !s.Stale })
	assert.Greater(t, s.Evaluations, evaluations, "recovering evaluates at once")
	assert.Contains(t, get(t, srv.URL+"/metrics"), "\nkarpsim_view_stale 0\n")
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	return string(body)
}

// TestMetricsFollowPrometheusConventions lints every metric the advisor
// exports with client_golang's promlint, and checks the exposition of one
// golden against values computed from its answer.
func TestMetricsFollowPrometheusConventions(t *testing.T) {
	m, at := memoryCluster(t, "do-not-disrupt-and-pdb")
	a := New(m, Config{Period: time.Hour, Now: func() time.Time { return at }})
	a.evaluate(true)
	problems, err := testutil.GatherAndLint(a.Registry())
	require.NoError(t, err)
	assert.Empty(t, problems)

	srv := httptest.NewServer(a.Handler())
	defer srv.Close()
	text := get(t, srv.URL+"/metrics")
	s := a.Status()
	require.NotNil(t, s.Answer)
	for _, n := range s.Answer.Nodes {
		assert.Contains(t, text, `karpsim_node_not_disrupted{node="`+n.Name+`",nodepool="default",reason="`+n.Blocker+`"} 1`)
	}
	assert.Contains(t, text, `karpsim_node_not_disrupted{node="ip-10-0-1-10.ec2.internal",nodepool="default",reason="do-not-disrupt"} 1`)
	assert.Contains(t, text, `karpsim_node_not_disrupted{node="ip-10-0-2-11.ec2.internal",nodepool="default",reason="pdb"} 1`)
	for _, g := range s.Answer.Cost {
		assert.Contains(t, text, `karpsim_cluster_nodes{capacity_type="`+g.CapacityType+`",instance_type="`+g.InstanceType+`",nodepool="`+g.NodePool+`"}`)
	}
	assert.Contains(t, text, `karpsim_evaluations_total{kind="changes",result="ok"} 1`)
	assert.Contains(t, text, `karpsim_evaluations_total{kind="repack",result="ok"} 1`)
	assert.True(t, strings.Contains(text, "karpsim_repack_lower_bound_dollars_per_hour "), "the bound is exported")

	ready := get(t, srv.URL+"/readyz")
	assert.Equal(t, "ok\n", ready)
}
