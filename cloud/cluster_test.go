package cloud

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
)

func record(c *MemoryCluster, ctx context.Context) *[]string {
	var got []string
	c.Watch(ctx, func(ch Change) {
		got = append(got, fmt.Sprintf("%s %s %s", ch.Type, ch.Kind, joinName(ch.Namespace, ch.Name)))
	})
	return &got
}

func TestMemoryClusterReportsChangesInOrder(t *testing.T) {
	var c MemoryCluster
	pod := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	}
	c.Set(ClusterState{Pods: []*corev1.Pod{pod("a"), pod("b")}})
	ctx, cancel := context.WithCancel(context.Background())
	got := record(&c, ctx)
	if err := c.Apply(pod("a"), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}); err != nil {
		t.Fatal(err)
	}
	c.Set(ClusterState{Pods: []*corev1.Pod{pod("c"), nil}})
	if err := c.Delete("Pod", "default", "c"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"MODIFIED Pod default/a", "ADDED Node n1",
		"DELETED Node n1", "DELETED Pod default/a", "DELETED Pod default/b", "ADDED Pod default/c",
		"DELETED Pod default/c",
	}
	if !slices.Equal(*got, want) {
		t.Errorf("changes\n got %q\nwant %q", *got, want)
	}
	cancel()
	if err := c.Apply(pod("d")); err != nil {
		t.Fatal(err)
	}
	if len(*got) != len(want) {
		t.Errorf("a watcher whose context is done was still called: %q", (*got)[len(want):])
	}
	if err := c.Delete("Pod", "default", "missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting a missing pod: %v", err)
	}
	if err := c.Apply(&corev1.ConfigMap{}); err == nil {
		t.Error("a ConfigMap, which no ClusterState list holds, was accepted")
	}
}

func TestMemoryClusterWriter(t *testing.T) {
	ctx := context.Background()
	var c MemoryCluster
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"a": "1"}}}
	node.Spec.ProviderID = "aws:///z/i-1"
	bound := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: corev1.PodSpec{NodeName: "n1"}}
	bound.Status.Phase = corev1.PodRunning
	daemon := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "agent",
		OwnerReferences: []metav1.OwnerReference{{Kind: "DaemonSet", Name: "agent"}}}, Spec: corev1.PodSpec{NodeName: "n1"}}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db"}, Spec: corev1.PodSpec{NodeName: "n2"}}
	if err := c.Apply(node, bound, daemon, other); err != nil {
		t.Fatal(err)
	}
	claim := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "default-00001"}}
	claim.Status.ProviderID = "aws:///z/i-1"
	if err := c.CreateNodeClaim(ctx, claim); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateNodeClaim(ctx, claim); err == nil {
		t.Error("a second NodeClaim of the same name was created")
	}
	claim.Status.NodeName = "n1"
	claim.Labels = map[string]string{"b": "2"}
	if err := c.UpdateNodeClaim(ctx, claim); err != nil {
		t.Fatal(err)
	}
	if got := c.Snapshot().NodeClaims[0]; got.Status.NodeName != "n1" || got.Labels["b"] != "2" {
		t.Errorf("updated claim %+v", got)
	}
	claim.Status.NodeName = "changed after the update"
	if c.Snapshot().NodeClaims[0].Status.NodeName != "n1" {
		t.Error("the cluster shares memory with the caller's claim")
	}
	node.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
	if err := c.UpdateNode(ctx, node); err != nil {
		t.Fatal(err)
	}
	if got := c.Snapshot().Nodes[0].Spec.Taints; len(got) != 1 {
		t.Errorf("taints %v", got)
	}
	if err := c.UpdateNode(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "nope"}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("updating a missing node: %v", err)
	}
	if err := c.UpdateNodeClaim(ctx, &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: "nope"}}); !errors.Is(err, ErrNotFound) {
		t.Errorf("updating a missing claim: %v", err)
	}

	evicted, err := c.DeleteNode(ctx, "n1")
	if err != nil || evicted != 1 {
		t.Fatalf("DeleteNode: %d evicted, %v", evicted, err)
	}
	st := c.Snapshot()
	if len(st.Nodes) != 0 || len(st.NodeClaims) != 0 {
		t.Errorf("left %d nodes, %d claims", len(st.Nodes), len(st.NodeClaims))
	}
	var names []string
	for _, p := range st.Pods {
		names = append(names, p.Name+"@"+p.Spec.NodeName+":"+string(p.Status.Phase))
	}
	if want := []string{"db@n2:", "web@:Pending"}; !slices.Equal(names, want) {
		t.Errorf("pods %q, want %q (the DaemonSet pod deleted, web pending again)", names, want)
	}
	if _, err := c.DeleteNode(ctx, "n1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("deleting a missing node: %v", err)
	}
}

// TestMemoryClusterHoldsEveryKind sets one object of every list a
// ClusterState has and reads each back: a kind added to ClusterState and
// not to the cluster's kinds fails here.
func TestMemoryClusterHoldsEveryKind(t *testing.T) {
	var in ClusterState
	v := reflect.ValueOf(&in).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		obj := reflect.New(f.Type().Elem().Elem())
		obj.Interface().(metav1.Object).SetName(strings.ToLower(v.Type().Field(i).Name))
		obj.Interface().(metav1.Object).SetNamespace("ns")
		f.Set(reflect.Append(f, obj))
	}
	var m MemoryCluster
	var changes []Change
	m.Watch(context.Background(), func(c Change) { changes = append(changes, c) })
	m.Set(in)
	require.Len(t, changes, v.NumField(), "one change a kind")
	out := reflect.ValueOf(m.Snapshot())
	for i := range v.NumField() {
		field := v.Type().Field(i).Name
		require.Equal(t, 1, out.Field(i).Len(), "ClusterState.%s", field)
		assert.Equal(t, strings.ToLower(field), out.Field(i).Index(0).Interface().(metav1.Object).GetName())
	}
	require.NoError(t, m.Delete("Deployment", "ns", "deployments"))
	assert.Empty(t, m.Snapshot().Deployments)
}
