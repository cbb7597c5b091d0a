package simulator

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/snapshot"
)

// buffers are the run's CapacityBuffers and what they refer to: Karpenter's
// CapacityBuffer controller, which resolves each buffer's chunk and count,
// and its store of virtual pods, which the loop reads
// (controller.Config.BufferPods).
type buffers struct {
	list []*apis.CapacityBuffer // sorted by namespace/name
	// templates are the PodTemplates by namespace/name; others are the
	// chunks of buffers referring to a StatefulSet or ReplicaSet, which
	// the run does not scale, resolved from the manifests by buffer key.
	templates map[string]*corev1.PodTemplate
	others    map[string]snapshot.BufferChunk
	// pods are the virtual pods last built, for the counts in key.
	pods []*corev1.Pod
	key  string
}

func bufferKey(b *apis.CapacityBuffer) string { return objectKey(b.Namespace, b.Name) }

// loadBuffers keeps the manifests' buffers and the objects they refer to.
func (s *sim) loadBuffers(set *manifests.Set) {
	s.buffers = buffers{templates: map[string]*corev1.PodTemplate{}, others: map[string]snapshot.BufferChunk{}}
	for _, t := range set.PodTemplates {
		s.buffers.templates[objectKey(t.Namespace, t.Name)] = t.DeepCopy()
	}
	for _, b := range set.CapacityBuffers {
		s.putBuffer(b.DeepCopy(), set)
	}
}

// putBuffer adds b or replaces the buffer of its key.
func (s *sim) putBuffer(b *apis.CapacityBuffer, set *manifests.Set) {
	key := bufferKey(b)
	if r := b.Spec.ScalableRef; r != nil && r.Kind != "Deployment" && set != nil {
		if chunk, ok := snapshot.ResolveBuffer(set, b); ok {
			s.buffers.others[key] = chunk
		}
	}
	s.buffers.list = slices.DeleteFunc(s.buffers.list, func(o *apis.CapacityBuffer) bool { return bufferKey(o) == key })
	s.buffers.list = append(s.buffers.list, b)
	slices.SortFunc(s.buffers.list, func(a, c *apis.CapacityBuffer) int { return cmp.Compare(bufferKey(a), bufferKey(c)) })
}

// hasBuffers says whether the run ever has a buffer: in its manifests or
// added by a step. Runs without one leave the loop's buffer resync off.
func (s *sim) hasBuffers() bool {
	return len(s.buffers.list) > 0 || slices.ContainsFunc(s.steps, func(st step) bool { return st.buffer != nil })
}

// buffersOn says whether the run acts on its buffers: a Karpenter run
// with the feature gate on.
func (s *sim) buffersOn() bool {
	return !s.cfg.IgnoreBuffers && s.cfg.Autoscaler != AutoscalerClusterAutoscaler && s.hasBuffers()
}

// chunk resolves what a buffer refers to now: a Deployment's template and
// the replicas it has in the run, a PodTemplate, or a StatefulSet or
// ReplicaSet as the manifests gave it.
func (s *sim) chunk(b *apis.CapacityBuffer) (snapshot.BufferChunk, bool) {
	ns := apis.NamespaceOf(b.Namespace)
	if r := b.Spec.PodTemplateRef; r != nil {
		t := s.buffers.templates[ns+"/"+r.Name]
		if t == nil {
			return snapshot.BufferChunk{}, false
		}
		return snapshot.BufferChunk{Template: t.Template}, true
	}
	r := b.Spec.ScalableRef
	if r == nil {
		return snapshot.BufferChunk{}, false
	}
	if r.Kind != "Deployment" {
		c, ok := s.buffers.others[bufferKey(b)]
		return c, ok
	}
	key := ns + "/" + r.Name
	d := s.deployments[key]
	if d == nil {
		return snapshot.BufferChunk{}, false
	}
	var replicas int32
	for _, p := range s.pods {
		if p.owner == key {
			replicas++
		}
	}
	return snapshot.BufferChunk{Template: d.Spec.Template, ScalableReplicas: replicas}, true
}

// bufferPods are the virtual pods of every buffer now, built anew only
// when a buffer's count changed (a step, or its Deployment scaled).
func (s *sim) bufferPods() []*corev1.Pod {
	var key strings.Builder
	chunks := make([]snapshot.BufferChunk, len(s.buffers.list))
	ok := make([]bool, len(s.buffers.list))
	for i, b := range s.buffers.list {
		chunks[i], ok[i] = s.chunk(b)
		n := int32(0)
		if ok[i] {
			n = snapshot.BufferReplicas(b, chunks[i])
		}
		fmt.Fprintf(&key, "%s=%d/%d;", bufferKey(b), n, b.Generation)
	}
	if key.String() == s.buffers.key {
		return s.buffers.pods
	}
	var pods []*corev1.Pod
	for i, b := range s.buffers.list {
		if ok[i] {
			pods = append(pods, snapshot.BufferPods(b, chunks[i], s.now)...)
		}
	}
	if s.dra != nil {
		// A chunk that claims devices keeps room for them too; one that
		// cannot be translated is left out, as Karpenter's buffer
		// controller leaves a buffer it cannot resolve.
		pods = slices.DeleteFunc(pods, func(p *corev1.Pod) bool {
			out, err := s.dra.Pod(p)
			if err == nil {
				*p = *out
			}
			return err != nil
		})
	}
	s.buffers.pods, s.buffers.key = pods, key.String()
	return pods
}

// changeBuffer runs a buffer step.
func (s *sim) changeBuffer(st *bufferStep) error {
	if st.buffer != nil {
		b := st.buffer.DeepCopy()
		if old := s.buffer(bufferKey(b)); old != nil {
			b.Generation = old.Generation + 1
		}
		s.putBuffer(b, nil)
		if _, ok := s.chunk(b); !ok {
			return fmt.Errorf("CapacityBuffer %s refers to nothing the run has (Deployments and PodTemplates of the manifests)", bufferKey(b))
		}
		s.decide(Decision{Kind: KindBuffer, Reason: fmt.Sprintf("CapacityBuffer %s set", bufferKey(b))})
		s.bufferChanged()
		return nil
	}
	b := s.buffer(st.key)
	if b == nil {
		return fmt.Errorf("no CapacityBuffer %s in the run", st.key)
	}
	if st.delete {
		s.buffers.list = slices.DeleteFunc(s.buffers.list, func(o *apis.CapacityBuffer) bool { return o == b })
		s.decide(Decision{Kind: KindBuffer, Reason: fmt.Sprintf("CapacityBuffer %s deleted", st.key)})
		return nil
	}
	b.Spec.Replicas = st.replicas
	b.Generation++
	s.decide(Decision{Kind: KindBuffer, Reason: fmt.Sprintf("CapacityBuffer %s set to %d replicas", st.key, *st.replicas)})
	s.bufferChanged()
	return nil
}

// bufferChanged: the buffer controller reconciles a changed buffer and
// triggers a provisioning pass; the buffer's room counts in disruption
// decisions from now.
func (s *sim) bufferChanged() {
	s.generation++
	if s.buffersOn() {
		s.auto.trigger(s.now)
	}
}

func (s *sim) buffer(key string) *apis.CapacityBuffer {
	for _, b := range s.buffers.list {
		if bufferKey(b) == key {
			return b
		}
	}
	return nil
}

// compareBuffers runs the scenario again with the buffers ignored and
// reports the two runs side by side in res.Buffers. A world the caller
// owns (launcher, clock, live cluster) is not run twice.
func compareBuffers(ctx context.Context, sc Scenario, cfg Config, res *Result) error {
	rep := &BufferReport{PendingTime: res.PendingTime, TotalCost: res.TotalCost}
	res.Buffers = rep
	if cfg.Launcher != nil || cfg.Clock != nil || cfg.Cluster != nil {
		rep.Skipped = "the run's launcher, clock or cluster is the caller's: not run a second time without buffers"
		return nil
	}
	cfg.IgnoreBuffers, cfg.Progress = true, nil
	without, err := Run(ctx, sc, cfg)
	if err != nil {
		return fmt.Errorf("simulator: the run without CapacityBuffers: %w", err)
	}
	rep.WithoutPendingTime, rep.WithoutTotalCost = without.PendingTime, without.TotalCost
	rep.Cost = round4(res.TotalCost - without.TotalCost)
	return nil
}
