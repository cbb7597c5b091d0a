package consolidation

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/scheduling"
)

// Builders for test clusters. In Fake(20), type fake-it-(k-1) has k CPUs and
// 2k Gi (100m and 10Mi reserved) and costs 0.3147483648·k per hour, spot in
// test-zone-1 and -2, on-demand in test-zone-1, -2 and -3.

var (
	fake = instancetypes.Fake(20)
	// now is a Monday, 12:00 UTC.
	now = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
)

// price is the hourly price of a Fake type with cpus CPUs.
func price(cpus int) float64 { return 0.3147483648 * float64(cpus) }

type poolOption func(*apis.NodePool)

func newPool(name string, opts ...poolOption) *apis.NodePool {
	np := &apis.NodePool{ObjectMeta: metav1.ObjectMeta{Name: name}}
	np.Spec.Template.Spec.NodeClassRef = &apis.NodeClassReference{Group: apis.AWSGroup, Kind: apis.KindEC2NodeClass, Name: "default"}
	np.Spec.Disruption.Budgets = []apis.Budget{{Nodes: "100%"}}
	for _, o := range opts {
		o(np)
	}
	np.SetDefaults()
	return np
}

func withBudgets(b ...apis.Budget) poolOption {
	return func(np *apis.NodePool) { np.Spec.Disruption.Budgets = b }
}

func withConsolidateAfter(s string) poolOption {
	return func(np *apis.NodePool) {
		d, err := apis.ParseNillableDuration(s)
		if err != nil {
			panic(err)
		}
		np.Spec.Disruption.ConsolidateAfter = d
	}
}

func withPolicy(p apis.ConsolidationPolicy) poolOption {
	return func(np *apis.NodePool) { np.Spec.Disruption.ConsolidationPolicy = p }
}

func withRequirement(key string, op corev1.NodeSelectorOperator, values ...string) poolOption {
	return func(np *apis.NodePool) {
		np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements,
			apis.NodeSelectorRequirementWithMinValues{Key: key, Operator: op, Values: values})
	}
}

func withReplicas(n int64) poolOption { return func(np *apis.NodePool) { np.Spec.Replicas = &n } }

func pools(nps ...*apis.NodePool) []scheduling.Pool {
	out := make([]scheduling.Pool, len(nps))
	for i, np := range nps {
		out[i] = scheduling.Pool{NodePool: np, InstanceTypes: fake}
	}
	return out
}

type podOption func(*corev1.Pod)

// newPod is a running ReplicaSet pod.
func newPod(name, cpu string, opts ...podOption) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: map[string]string{"app": "web"},
			CreationTimestamp: metav1.NewTime(now.Add(-24 * time.Hour)),
			OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web"}}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse("128Mi"),
		}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &metav1.Time{Time: now.Add(-24 * time.Hour)}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func withAnnotation(k, v string) podOption {
	return func(p *corev1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
}

func withLabel(k, v string) podOption { return func(p *corev1.Pod) { p.Labels[k] = v } }

func withOwner(kind string) podOption {
	return func(p *corev1.Pod) {
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: "owner"}}
	}
}

func terminatingPod(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: now.Add(-time.Second)} }

func startedAgo(d time.Duration) podOption {
	return func(p *corev1.Pod) { p.Status.StartTime = &metav1.Time{Time: now.Add(-d)} }
}

func withPriority(v int32) podOption { return func(p *corev1.Pod) { p.Spec.Priority = &v } }

func withSelector(k, v string) podOption {
	return func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{k: v} }
}

type nodeOption func(*Node)

// newNode is an initialized node of Fake type fake-it-(cpus-1) in pool,
// initialized an hour ago, with the pods bound to it.
func newNode(name, pool string, cpus int, capacityType string, pods []*corev1.Pod, opts ...nodeOption) *Node {
	it, ok := fake.Get(fmt.Sprintf("fake-it-%d", cpus-1))
	if !ok {
		panic(cpus)
	}
	labels := map[string]string{
		apis.LabelHostname: name, apis.LabelNodePool: pool, apis.LabelInstanceType: it.Name, apis.LabelCapacityType: capacityType,
		apis.LabelTopologyZone: "test-zone-1", apis.LabelArch: "amd64", apis.LabelOS: "linux", apis.LabelNodeInitialized: "true",
	}
	for k, v := range it.Labels() {
		if _, set := labels[k]; !set && k != apis.LabelCapacityType && k != apis.LabelTopologyZone {
			labels[k] = v
		}
	}
	for _, p := range pods {
		p.Spec.NodeName = name
	}
	n := &Node{
		Node: &scheduling.Node{Name: name, NodePool: pool, Labels: labels, Capacity: it.Capacity.List(), Allocatable: it.Allocatable().List(),
			Pods: pods, Initialized: true},
		NodeClaim:     &apis.NodeClaim{ObjectMeta: metav1.ObjectMeta{Name: name + "-claim"}},
		InitializedAt: now.Add(-time.Hour),
	}
	for _, o := range opts {
		o(n)
	}
	return n
}

func unmanaged(n *Node) {
	n.NodeClaim, n.Node.NodePool = nil, ""
	delete(n.Node.Labels, apis.LabelNodePool)
}
func uninitialized(n *Node) { n.Node.Initialized = false }
func deleting(n *Node)      { n.Deleting = true }
func markNotReady(n *Node)  { n.NotReady = true }

func drifted(since time.Duration) nodeOption {
	return func(n *Node) { n.Drift = &DriftStatus{Reason: "NodePoolDrifted", Since: now.Add(-since)} }
}

func lastPodEvent(ago time.Duration) nodeOption {
	return func(n *Node) { n.LastPodEventAt = now.Add(-ago) }
}

func newPDB(name string, minAvailable, maxUnavailable *intstr.IntOrString, match map[string]string) *policyv1.PodDisruptionBudget {
	return &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: minAvailable, MaxUnavailable: maxUnavailable, Selector: &metav1.LabelSelector{MatchLabels: match}},
	}
}

func pods(n int, prefix, cpu string, opts ...podOption) []*corev1.Pod {
	out := make([]*corev1.Pod, n)
	for i := range out {
		out[i] = newPod(fmt.Sprintf("%s-%d", prefix, i), cpu, opts...)
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// verdict returns the verdict of the named node.
func verdict(t *testing.T, d Decision, node string) CandidateVerdict {
	t.Helper()
	for _, v := range d.Candidates {
		if v.Node == node {
			return v
		}
	}
	t.Fatalf("no verdict for %s in %v", node, d.Candidates)
	return CandidateVerdict{}
}

// summary prints the commands as "method delete=[...] replace=[type capacity] savings" lines.
func summary(d Decision) []string {
	var out []string
	for _, c := range d.Commands {
		var repl []string
		for _, r := range c.Replacements {
			repl = append(repl, r.InstanceType+" "+r.CapacityType)
		}
		out = append(out, fmt.Sprintf("%s delete=[%s] replace=[%s]", c.Method, strings.Join(c.Delete, " "), strings.Join(repl, ", ")))
	}
	return out
}

func requireNoCommand(t *testing.T, d Decision) {
	t.Helper()
	require.Empty(t, d.Commands, "commands: %v\nverdicts: %v", summary(d), d.Candidates)
}

// names lists node names, comma-separated.
func names(nodes []*nodeInfo) string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.name
	}
	return strings.Join(out, ", ")
}
