// Package workloads generates synthetic pods: the workloads of Karpenter's
// own scheduling benchmark, so that karpsim and Karpenter can be compared
// side by side on the same kind of input.
//
// A Generator draws from a math/rand source seeded by the caller, in the
// order Karpenter's benchmark makes them (labels, then selectors, then cpu,
// then memory, pod after pod), so the same seed gives the same pods every
// time. Karpenter's benchmark shares one source across runs, so its exact
// draws depend on what ran before; comparisons are statistical, not pod for
// pod.
package workloads

import (
	"fmt"
	"math/rand"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// DefaultSeed is the seed Karpenter's benchmark uses.
const DefaultSeed = 42

// Generator makes benchmark pods from one seeded source.
type Generator struct {
	rng *rand.Rand
	n   int // pods made so far, for unique names
}

// NewGenerator returns a generator drawing from a source seeded with seed.
func NewGenerator(seed int64) *Generator {
	return &Generator{rng: rand.New(rand.NewSource(seed))} //nolint:gosec // reproducible benchmark draws, not security
}

// Diverse is Karpenter's "diverse" workload: count pods in fifths —
// generic pods, zone spread, hostname spread, zone self-affinity, and
// hostname anti-affinity (every pod of that fifth repels the others) — with
// the remainder of the division added as generic pods.
func (g *Generator) Diverse(count int) []*corev1.Pod {
	fifth := count / 5
	var pods []*corev1.Pod
	pods = append(pods, g.Generic(fifth)...)
	pods = append(pods, g.Spread(fifth, corev1.LabelTopologyZone)...)
	pods = append(pods, g.Spread(fifth, corev1.LabelHostname)...)
	pods = append(pods, g.SelfAffinity(fifth, corev1.LabelTopologyZone)...)
	pods = append(pods, g.AntiAffinity(fifth, corev1.LabelHostname)...)
	return append(pods, g.Generic(count-len(pods))...)
}

// Generic pods have a random label and random requests, nothing else.
func (g *Generator) Generic(count int) []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, count)
	for range count {
		p := g.pod(map[string]string{"my-label": g.labelValue()})
		g.requests(p)
		pods = append(pods, p)
	}
	return pods
}

// Spread pods spread with maxSkew 1 (DoNotSchedule) on key over the pods
// that share an independently drawn label value.
func (g *Generator) Spread(count int, key string) []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, count)
	for range count {
		p := g.pod(map[string]string{"my-label": g.labelValue()})
		p.Spec.TopologySpreadConstraints = []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"my-label": g.labelValue()}},
		}}
		g.requests(p)
		pods = append(pods, p)
	}
	return pods
}

// SelfAffinity pods require to share the key's domain with the pods of
// their own random label value.
func (g *Generator) SelfAffinity(count int, key string) []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, count)
	for range count {
		labels := map[string]string{"my-affininity": g.labelValue()}
		p := g.pod(labels)
		p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: copyLabels(labels)}},
		}}}
		g.requests(p)
		pods = append(pods, p)
	}
	return pods
}

// AntiAffinity pods, all labelled app=nginx, require that no other app=nginx
// pod share the key's domain.
func (g *Generator) AntiAffinity(count int, key string) []*corev1.Pod {
	pods := make([]*corev1.Pod, 0, count)
	for range count {
		p := g.pod(map[string]string{"app": "nginx"})
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{
			{TopologyKey: key, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}},
		}}}
		g.requests(p)
		pods = append(pods, p)
	}
	return pods
}

// Preferences is Karpenter's preference workload: identical app=nginx pods
// with random requests that prefer test-zone-1 (weight 1), prefer no other
// app=nginx pod in their zone (weight 10, which cannot hold past three
// pods) and on their node (weight 1). All requests are drawn once, as
// upstream's pod template is built once.
func (g *Generator) Preferences(count int) []*corev1.Pod {
	template := g.pod(map[string]string{"app": "nginx"})
	nginx := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "nginx"}}
	template.Spec.Affinity = &corev1.Affinity{
		NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
			Weight: 1, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1"}},
			}},
		}}},
		PodAntiAffinity: &corev1.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{
			{Weight: 10, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelTopologyZone, LabelSelector: nginx}},
			{Weight: 1, PodAffinityTerm: corev1.PodAffinityTerm{TopologyKey: corev1.LabelHostname, LabelSelector: nginx}},
		}},
	}
	g.requests(template)
	pods := make([]*corev1.Pod, 0, count)
	for i := range count {
		p := template.DeepCopy()
		p.Name = fmt.Sprintf("%s-%d", template.Name, i)
		p.UID = types.UID(p.Name)
		pods = append(pods, p)
	}
	return pods
}

// epoch is the creation time of the first pod; each later pod is a
// millisecond younger, so the queue breaks ties between pods of equal size
// in the order they were made, as it does for Karpenter's test pods, which
// are stamped with the time they are built.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (g *Generator) pod(labels map[string]string) *corev1.Pod {
	g.n++
	name := fmt.Sprintf("bench-%d", g.n)
	created := metav1.NewTime(epoch.Add(time.Duration(g.n) * time.Millisecond))
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name), Labels: labels, CreationTimestamp: created},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}}
}

// requests draws cpu then memory, in upstream's order.
func (g *Generator) requests(p *corev1.Pod) {
	cpu := []int{100, 250, 500, 1000, 1500}[g.rng.Intn(5)]
	memory := []int{100, 256, 512, 1024, 2048, 4096}[g.rng.Intn(6)]
	p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse(fmt.Sprintf("%dm", cpu)),
		corev1.ResourceMemory: resource.MustParse(fmt.Sprintf("%dMi", memory)),
	}
}

func (g *Generator) labelValue() string {
	return []string{"a", "b", "c", "d", "e", "f", "g"}[g.rng.Intn(7)]
}

func copyLabels(in map[string]string) map[string]string {
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = v
	}
	return out
}
