package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
)

// The backoff between attempts to evict pods a PodDisruptionBudget
// protects: Karpenter's eviction queue asks again after 100 ms, doubling up
// to 10 s.
const (
	DrainRetryBase = 100 * time.Millisecond
	DrainRetryMax  = 10 * time.Second
)

// DrainStatus is what one step of a drain (Cluster.Drain) did.
type DrainStatus struct {
	// Evicted counts the pods evicted through the Eviction API; Forced
	// those deleted with the node without an eviction: past the
	// terminationGracePeriod, or pods no eviction is waited for
	// (AwaitsEviction).
	Evicted, Forced int
	// Waiting counts the pods still waiting eviction; Refused says why
	// the first eviction refused was refused, "" when none was.
	Waiting int
	Refused string
	// Deleted is set once the node and its NodeClaim are deleted.
	Deleted bool
}

// AwaitsEviction says whether Karpenter's terminator waits for the pod to
// be evicted before it deletes the pod's node: the pod is active (neither
// finished nor already terminating), is not a mirror pod and does not
// tolerate the karpenter.sh/disrupted taint. The others go with the node.
func AwaitsEviction(p *corev1.Pod) bool {
	return apis.IsActive(p) && !apis.IsMirrorPod(p) && !consolidation.ToleratesDisruptedTaint(p)
}

// EvictionGroups orders a node's pods the way Karpenter's terminator evicts
// them, after Kubernetes' graceful node shutdown: pods that are neither
// critical (priority class system-cluster-critical or
// system-node-critical) nor DaemonSet pods first, then non-critical
// DaemonSet pods, then critical pods, then critical DaemonSet pods. A group
// is evicted only once the groups before it are gone. The pods keep their
// order within a group; empty groups are kept.
func EvictionGroups(pods []*corev1.Pod) [4][]*corev1.Pod {
	var out [4][]*corev1.Pod
	for _, p := range pods {
		i := 0
		if apis.IsDaemonSetPod(p) {
			i = 1
		}
		if c := p.Spec.PriorityClassName; c == "system-cluster-critical" || c == "system-node-critical" {
			i += 2
		}
		out[i] = append(out[i], p)
	}
	return out
}

// termination is a node the loop is draining and deleting, as Karpenter's
// termination controller holds it.
type termination struct {
	started time.Time
	// deadline is when the drain is forced: the NodeClaim's
	// terminationGracePeriod after the drain began, or the end of a spot
	// instance's notice; zero when there is none.
	deadline time.Time
	// retries counts the attempts in a row that evicted nothing; next is
	// when the next attempt is due.
	retries int
	next    time.Time
	// evicted and forced add up the steps; blocked is set once an
	// eviction was refused, which is recorded once.
	evicted, forced int
	blocked         bool
}

// remove begins, or goes on with, draining a node and deleting it, and
// returns how many of its pods this step evicted. deadline, when not zero,
// is when the drain must end whatever it waits for (the instance will be
// gone); the NodeClaim's terminationGracePeriod sets one too, the earlier
// wins. The first step runs at once; a drain that must wait is retried
// with backoff (continueDrains), and the instance is terminated once the
// node is deleted.
func (c *Controller) remove(ctx context.Context, n *Node, deadline time.Time) int {
	now := c.now()
	t := c.draining[n.Name()]
	if t == nil {
		t = &termination{started: now}
		if n.NodeClaim != nil && n.NodeClaim.Spec.TerminationGracePeriod != nil {
			t.deadline = now.Add(n.NodeClaim.Spec.TerminationGracePeriod.Duration)
		}
		c.draining[n.Name()] = t
	}
	if !deadline.IsZero() && (t.deadline.IsZero() || deadline.Before(t.deadline)) {
		t.deadline = deadline
	}
	return c.drainStep(ctx, n, t)
}

// drainStep is one attempt at a node's drain.
func (c *Controller) drainStep(ctx context.Context, n *Node, t *termination) int {
	now, name := c.now(), n.Name()
	force := !t.deadline.IsZero() && !now.Before(t.deadline)
	st, err := c.cfg.Cluster.Drain(ctx, n, force)
	t.evicted += st.Evicted
	t.forced += st.Forced
	if err != nil {
		delete(c.draining, name)
		c.forget(name)
		c.record(Decision{Kind: KindDeleteFailed, Nodes: []string{name}, Reason: "drain: " + err.Error()})
		return st.Evicted
	}
	if st.Deleted {
		delete(c.draining, name)
		c.forget(name)
		c.terminate(ctx, name, n.Instance.ID)
		if t.blocked {
			why := fmt.Sprintf("node deleted %v after its drain began: %d pods evicted", now.Sub(t.started), t.evicted)
			if force {
				why += fmt.Sprintf(", %d deleted when its drain deadline passed", t.forced)
			}
			c.record(Decision{Kind: KindDrained, Nodes: []string{name}, Pods: t.evicted, Reason: why})
		}
		return st.Evicted
	}
	if !n.Deleting {
		// The node waits: it takes no new pods meanwhile.
		if err := c.cfg.Cluster.Cordon(ctx, n, true); err != nil {
			c.record(Decision{Kind: KindDeleteFailed, Nodes: []string{name}, Reason: "cordon: " + err.Error()})
		}
	}
	if st.Evicted > 0 || st.Refused == "" {
		t.retries = 0
	} else {
		t.retries++
	}
	if st.Refused != "" && !t.blocked {
		t.blocked = true
		why := fmt.Sprintf("%d pods wait eviction; %s", st.Waiting, st.Refused)
		if !t.deadline.IsZero() {
			why += fmt.Sprintf("; the drain is forced at +%v", t.deadline.Sub(t.started))
		}
		c.record(Decision{Kind: KindDrainBlocked, Nodes: []string{name}, Pods: st.Waiting, Reason: why})
	}
	delay := DrainRetryMax
	if t.retries < 8 {
		delay = min(DrainRetryBase<<t.retries, DrainRetryMax)
	}
	t.next = now.Add(delay)
	if !t.deadline.IsZero() && t.deadline.After(now) && t.deadline.Before(t.next) {
		t.next = t.deadline
	}
	c.cfg.Timers.WakeAt(t.next, WakeDrain)
	return st.Evicted
}

// continueDrains retries, in name order, the drains that are due.
func (c *Controller) continueDrains(ctx context.Context) {
	now := c.now()
	for _, name := range slices.Sorted(maps.Keys(c.draining)) {
		t := c.draining[name]
		if now.Before(t.next) {
			continue
		}
		n := c.cfg.Cluster.Node(name)
		if n == nil {
			delete(c.draining, name)
			continue
		}
		c.drainStep(ctx, n, t)
	}
}
