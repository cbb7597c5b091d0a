package simulator

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/consolidation"
)

// registeredHealth is a node object as it registers at now: created then,
// and Ready since then.
func registeredHealth(now time.Time) *consolidation.NodeHealth {
	return &consolidation.NodeHealth{Created: now, Conditions: []corev1.NodeCondition{{
		Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
		LastTransitionTime: metav1.NewTime(now),
	}}}
}

// setNodeCondition sets a nodeCondition step's condition on its nodes: a
// condition whose status changes gets the step's time as its transition
// time, one whose status holds keeps its own. A node's Health is replaced,
// never changed in place: evaluations may hold the old one.
func (s *sim) setNodeCondition(st *nodeConditionStep) error {
	var targets []*simNode
	if st.node != "" {
		n := s.nodes[st.node]
		switch {
		case n == nil:
			return fmt.Errorf("nodeCondition: no node %s", st.node)
		case n.Health == nil:
			return fmt.Errorf("nodeCondition: node %s has not registered yet", st.node)
		}
		targets = []*simNode{n}
	} else {
		for _, n := range s.sortedNodes() {
			if n.Node.Node.NodePool == st.nodePool && n.Health != nil && !n.Deleting && len(targets) < st.count {
				targets = append(targets, n)
			}
		}
		if len(targets) == 0 {
			return fmt.Errorf("nodeCondition: NodePool %s has no registered node that is not being deleted", st.nodePool)
		}
	}
	names := make([]string, len(targets))
	for i, n := range targets {
		names[i] = n.Name()
		n.Health = withCondition(n.Health, st.condition, s.now)
	}
	s.generation++
	c := st.condition
	why := fmt.Sprintf("condition %s=%s", c.Type, c.Status)
	if c.Reason != "" {
		why += " (" + c.Reason + ")"
	}
	if st.nodePool != "" && len(targets) < st.count {
		why += fmt.Sprintf(" on %d of the %d nodes asked: NodePool %s has no more", len(targets), st.count, st.nodePool)
	}
	s.decide(Decision{Kind: KindNodeCondition, Nodes: names, Reason: why + " set on " + strings.Join(names, ", ")})
	return nil
}

// withCondition is h with c set at now.
func withCondition(h *consolidation.NodeHealth, c corev1.NodeCondition, now time.Time) *consolidation.NodeHealth {
	out := &consolidation.NodeHealth{Created: h.Created, Conditions: slices.Clone(h.Conditions)}
	c.LastTransitionTime = metav1.NewTime(now)
	i := slices.IndexFunc(out.Conditions, func(o corev1.NodeCondition) bool { return o.Type == c.Type })
	switch {
	case i < 0:
		out.Conditions = append(out.Conditions, c)
	case out.Conditions[i].Status == c.Status:
		c.LastTransitionTime = out.Conditions[i].LastTransitionTime
		out.Conditions[i] = c
	default:
		out.Conditions[i] = c
	}
	return out
}

// loadNodeObjects gives the nodes the run starts with what disruption
// reads of their Node objects, as snapshot does for disrupt: their
// annotations (karpenter.sh/do-not-disrupt, karpenter.sh/do-not-repair)
// and their Health, the conditions and creation time the manifests give
// (a condition's lastTransitionTime may be before the start), Ready since
// the start for a node object with no conditions, created at the start
// when it has no creationTimestamp.
func (s *sim) loadNodeObjects(objects []*corev1.Node) {
	for _, obj := range objects {
		n := s.nodes[obj.Name]
		if n == nil {
			continue
		}
		h := registeredHealth(s.start)
		if !obj.CreationTimestamp.IsZero() {
			h.Created = obj.CreationTimestamp.UTC()
		}
		if len(obj.Status.Conditions) > 0 {
			h.Conditions = slices.Clone(obj.Status.Conditions)
		}
		n.Health = h
		n.Annotations = maps.Clone(obj.Annotations)
	}
}
