package hosttest_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/controller/hosttest"
)

var t0 = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

func claim(name string, created time.Time, cpu string) *apis.NodeClaim {
	c := &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(created),
		Labels: map[string]string{apis.LabelNodePool: "default", apis.LabelTopologyZone: "us-east-1a", apis.LabelHostname: name}}}
	c.Spec.Requirements = []apis.NodeSelectorRequirementWithMinValues{}
	c.Spec.StartupTaints = []corev1.Taint{{Key: "agent-not-ready", Effect: corev1.TaintEffectNoSchedule}}
	c.Status.ProviderID = "aws:///us-east-1a/i-" + name
	c.Status.Capacity = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}
	c.Status.Allocatable = c.Status.Capacity.DeepCopy()
	return c
}

func pod(name, cpu string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
	p.Spec.Containers = []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
		corev1.ResourceCPU: resource.MustParse(cpu)}}}}
	return p
}

// initialize labels a node initialized, as the Runner does.
func initialize(t *testing.T, c *cloud.MemoryCluster, name string) {
	t.Helper()
	for _, n := range c.Snapshot().Nodes {
		if n.Name == name {
			n.Labels[apis.LabelNodeInitialized] = "true"
			require.NoError(t, c.Apply(n))
			return
		}
	}
	t.Fatalf("no node %s", name)
}

func node(c *cloud.MemoryCluster, name string) *corev1.Node {
	for _, n := range c.Snapshot().Nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

func TestNodesJoinThenBecomeReady(t *testing.T) {
	var c cloud.MemoryCluster
	require.NoError(t, c.Apply(claim("a", t0, "2")))
	h := hosttest.New(&c, hosttest.Config{RegisterAfter: 30 * time.Second, ReadyAfter: 10 * time.Second})

	r, err := h.Step(t0.Add(29 * time.Second))
	require.NoError(t, err)
	assert.Empty(t, r.Joined, "not before RegisterAfter")

	r, err = h.Step(t0.Add(30 * time.Second))
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, r.Joined)
	n := node(&c, "a")
	require.NotNil(t, n)
	assert.Equal(t, "aws:///us-east-1a/i-a", n.Spec.ProviderID)
	assert.Equal(t, "default", n.Labels[apis.LabelNodePool])
	assert.Equal(t, []corev1.Taint{{Key: "agent-not-ready", Effect: corev1.TaintEffectNoSchedule}}, n.Spec.Taints)
	assert.Equal(t, corev1.ConditionFalse, n.Status.Conditions[0].Status)
	cpu := n.Status.Allocatable[corev1.ResourceCPU]
	assert.Equal(t, "2", cpu.String())

	r, err = h.Step(t0.Add(39 * time.Second))
	require.NoError(t, err)
	assert.Empty(t, r.Ready, "not before ReadyAfter")
	r, err = h.Step(t0.Add(40 * time.Second))
	require.NoError(t, err)
	assert.Equal(t, []string{"a"}, r.Ready)
	n = node(&c, "a")
	assert.Empty(t, n.Spec.Taints, "startup taints removed")
	assert.Equal(t, corev1.ConditionTrue, n.Status.Conditions[0].Status)

	r, err = h.Step(t0.Add(time.Hour))
	require.NoError(t, err)
	assert.Equal(t, hosttest.Report{}, r, "nothing more to do")
}

func TestInstancesDateTheNodes(t *testing.T) {
	var c cloud.MemoryCluster
	require.NoError(t, c.Apply(claim("a", t0, "2")))
	inst := cloud.Instance{NodeClaim: "a", RegisteredAt: t0.Add(time.Minute), InitializedAt: t0.Add(2 * time.Minute)}
	h := hosttest.New(&c, hosttest.Config{Instances: func() []cloud.Instance { return []cloud.Instance{inst} }})
	r, _ := h.Step(t0.Add(59 * time.Second))
	assert.Empty(t, r.Joined)
	r, _ = h.Step(t0.Add(time.Minute))
	assert.Equal(t, []string{"a"}, r.Joined)
	r, _ = h.Step(t0.Add(119 * time.Second))
	assert.Empty(t, r.Ready)
	r, _ = h.Step(t0.Add(2 * time.Minute))
	assert.Equal(t, []string{"a"}, r.Ready)
}

func TestPodsBindOnlyWhereTheyMay(t *testing.T) {
	var c cloud.MemoryCluster
	require.NoError(t, c.Apply(claim("small", t0, "2"), claim("big", t0, "8"), claim("late", t0, "8")))
	h := hosttest.New(&c, hosttest.Config{})
	_, err := h.Step(t0)
	require.NoError(t, err)
	_, err = h.Step(t0)
	require.NoError(t, err)
	initialize(t, &c, "small")
	initialize(t, &c, "big")
	tainted := node(&c, "big")
	tainted.Spec.Taints = []corev1.Taint{{Key: apis.Group + "/disrupted", Effect: corev1.TaintEffectNoSchedule}}
	require.NoError(t, c.Apply(tainted))
	for i := range 3 {
		require.NoError(t, c.Apply(pod(fmt.Sprintf("web-%d", i), "900m")))
	}
	require.NoError(t, c.Apply(pod("huge", "4")))

	r, err := h.Step(t0)
	require.NoError(t, err)
	assert.Equal(t, []string{"default/web-0 → small", "default/web-1 → small"}, r.Bound,
		"two 900m pods fit the 2-CPU node; the disrupted and the uninitialized nodes take none")
	pending := map[string]bool{}
	for _, p := range c.Snapshot().Pods {
		if p.Spec.NodeName == "" {
			pending[p.Name] = true
		}
	}
	assert.Equal(t, map[string]bool{"web-2": true, "huge": true}, pending)

	initialize(t, &c, "late")
	r, err = h.Step(t0)
	require.NoError(t, err)
	assert.Equal(t, []string{"default/huge → late", "default/web-2 → late"}, r.Bound, "the node the Runner initialized takes them")
}
