package controller

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/snapshot"
)

// RunnerConfig are the seams a Runner drives the loop over.
type RunnerConfig struct {
	// Watcher reports the cluster; Writer makes the loop's changes to it.
	// cloud.MemoryCluster is both.
	Watcher cloud.ClusterWatcher
	Writer  cloud.ClusterWriter
	// Launcher creates and terminates instances.
	Launcher cloud.Launcher
	// Clock tells the time; nil means cloud.WallClock. Run sleeps on the
	// wall clock between wake-ups, so a caller with a virtual clock calls
	// Step instead.
	Clock cloud.Clock
	// Snapshot are the options the cluster's objects are read with
	// (region, zones, catalogs).
	Snapshot snapshot.Options
	// Options are the disruption and scheduling options; Timings the
	// loop's intervals.
	Options consolidation.Options
	Timings Timings
	// Record receives every decision, dated from the runner's start.
	Record func(Decision)
	// OnError, when set, receives what a step of Run could not do (the
	// cluster could not be read, a lifecycle write failed), and Run goes on
	// with the next step, as a controller retries; when nil, Run returns
	// the first such error.
	OnError func(error)
}

// Runner drives a Controller against a live cluster: it reads the cluster
// through the watcher (a snapshot whenever changes were reported), does
// Karpenter's NodeClaim lifecycle work (Registered, Initialized,
// lastPodEventTime), triggers provisioning when pods become pending and
// fires the loop's timers when they are due.
//
// The Runner does Karpenter's part only. The host does the rest, as a
// cluster's kubelets and kube-scheduler do: for each NodeClaim the Runner
// creates, a Node named after the claim joins with the claim's
// status.providerID as spec.providerID, its labels, capacity and
// allocatable, and its taints and startup taints; it becomes Ready and its
// startup taints go; pending pods are bound only to nodes the Runner has
// labelled karpenter.sh/initialized=true and that its karpenter.sh/disrupted
// taint does not keep them off. Package controller/hosttest keeps that
// contract in memory, for tests and examples.
type Runner struct {
	cfg     RunnerConfig
	clock   cloud.Clock
	start   time.Time
	cluster *liveCluster
	ctrl    *Controller
	timers  timerQueue

	// What the watcher and Interrupt reported, from any goroutine, since
	// the last step: whether anything changed, whether a NodePool or an
	// EC2NodeClass did, and the notices.
	mu           sync.Mutex
	changed      bool
	classChanged bool
	notices      []cloud.Interruption
	signal       chan struct{}

	// What the last step saw, to tell what is new.
	seen     bool
	ready    map[string]bool
	pending  map[string]bool
	podsOn   map[string]string // claim name → its node's pods, joined
	watching context.CancelFunc
}

// NewRunner builds a runner and starts watching the cluster.
func NewRunner(cfg RunnerConfig) (*Runner, error) {
	switch {
	case cfg.Watcher == nil:
		return nil, errors.Join(ErrConfig, errors.New("RunnerConfig.Watcher is nil"))
	case cfg.Writer == nil:
		return nil, errors.Join(ErrConfig, errors.New("RunnerConfig.Writer is nil"))
	}
	clock := cfg.Clock
	if clock == nil {
		clock = cloud.WallClock{}
	}
	r := &Runner{cfg: cfg, clock: clock, start: clock.Now(), signal: make(chan struct{}, 1),
		ready: map[string]bool{}, pending: map[string]bool{}, podsOn: map[string]string{}}
	r.cluster = newLiveCluster(cfg.Watcher, cfg.Writer, cfg.Snapshot)
	r.cluster.now = r.start
	record := func(d Decision) {
		d.At = metav1.Duration{Duration: r.cluster.now.Sub(r.start)}
		if cfg.Record != nil {
			cfg.Record(d)
		}
	}
	ctrl, err := New(Config{Cluster: r.cluster, Launcher: cfg.Launcher, Timers: &r.timers,
		Record: record, Options: cfg.Options, Timings: cfg.Timings, Providers: cfg.Snapshot.Providers()})
	if err != nil {
		return nil, err
	}
	r.ctrl = ctrl
	ctx, cancel := context.WithCancel(context.Background())
	r.watching = cancel
	cfg.Watcher.Watch(ctx, r.notify)
	ctrl.Start(r.start)
	return r, nil
}

// Close stops watching the cluster.
func (r *Runner) Close() { r.watching() }

// notify notes a change reported by the watcher.
func (r *Runner) notify(c cloud.Change) {
	r.mu.Lock()
	r.changed = true
	r.classChanged = r.classChanged || c.Kind == "NodePool" || c.Kind == "EC2NodeClass" || c.Kind == "AKSNodeClass"
	r.mu.Unlock()
	r.wake()
}

// Interrupt queues a spot interruption notice, as Karpenter's interruption
// controller receives them from its queue, for the next step: the node of
// the notice's instance is cordoned, drained and deleted, and its offering
// marked unavailable. A notice for an instance no node runs on is dropped.
// Interrupt is safe to call from any goroutine, while Run runs.
func (r *Runner) Interrupt(notice cloud.Interruption) {
	r.mu.Lock()
	r.notices = append(r.notices, notice)
	r.mu.Unlock()
	r.wake()
}

func (r *Runner) wake() {
	select {
	case r.signal <- struct{}{}:
	default:
	}
}

// Next returns when the loop next asked to be woken.
func (r *Runner) Next() (time.Time, bool) { return r.timers.peek() }

// Step brings the loop up to the clock's time: it takes the changes
// reported since the last step, does the lifecycle work they call for,
// triggers provisioning for newly pending pods, handles the interruption
// notices queued, fires every wake-up that is due, in order, and finally
// takes in the changes the loop itself made. The error is the cluster's: a snapshot that could
// not be read, or a lifecycle write that failed; the loop's own failures
// are decisions.
func (r *Runner) Step(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// The clock is read once: the whole step, and every decision in it,
	// happens at now.
	now := r.clock.Now()
	r.cluster.now = now
	if err := r.observe(ctx, now); err != nil {
		return err
	}
	r.interruptions(ctx, now)
	for {
		at, ok := r.timers.peek()
		if !ok || at.After(now) {
			break
		}
		w := r.timers.pop()
		r.ctrl.Wake(ctx, w, now)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	// What the loop did itself (pods evicted by a deletion) is seen now,
	// so that provisioning for them is triggered in this step.
	return r.observe(ctx, now)
}

// observe takes the reported changes into the view and reacts to them.
func (r *Runner) observe(ctx context.Context, now time.Time) error {
	r.mu.Lock()
	changed, classChanged := r.changed, r.classChanged
	r.changed, r.classChanged = false, false
	r.mu.Unlock()
	if classChanged {
		r.ctrl.NodeClassChanged()
	}
	if !changed && r.seen {
		return nil
	}
	r.cluster.changed()
	l := r.cluster
	if err := l.lifecycle(ctx, now); err != nil {
		return err
	}
	l.refresh()
	if l.err != nil {
		return l.err
	}
	first := !r.seen
	r.seen = true
	for _, n := range l.nodes {
		if n.NodeClaim != nil && n.Initialized && !r.ready[n.Name()] {
			r.ready[n.Name()] = true
			if !first {
				r.ctrl.NodeReady(ctx, n, now)
			}
		}
	}
	for name := range r.ready {
		if l.byName[name] == nil {
			delete(r.ready, name)
		}
	}
	if err := r.podEvents(ctx, now, first); err != nil {
		return err
	}
	newlyPending := false
	pending := map[string]bool{}
	for _, p := range l.pending {
		key := apis.PodKey(p)
		pending[key] = true
		newlyPending = newlyPending || !r.pending[key]
	}
	r.pending = pending
	if newlyPending {
		r.ctrl.Trigger(now)
	}
	return nil
}

// interruptions hands the queued notices to the loop.
func (r *Runner) interruptions(ctx context.Context, now time.Time) {
	r.mu.Lock()
	notices := r.notices
	r.notices = nil
	r.mu.Unlock()
	for _, notice := range notices {
		for _, n := range r.cluster.Nodes(false) {
			if n.Instance.ID != "" && n.Instance.ID == notice.Instance.ID && !n.Deleting {
				r.ctrl.Interrupted(ctx, n, notice, now)
				break
			}
		}
	}
}

// podEvents stamps lastPodEventTime on the claims whose nodes' pods
// changed since the last step.
func (r *Runner) podEvents(ctx context.Context, now time.Time, first bool) error {
	l := r.cluster
	current := map[string]string{}
	for _, n := range l.nodes {
		if n.NodeClaim == nil || !n.Registered {
			continue
		}
		keys := make([]string, 0, len(n.Node.Pods))
		for _, p := range n.Node.Pods {
			keys = append(keys, apis.PodKey(p))
		}
		current[n.NodeClaim.Name] = strings.Join(keys, ",")
	}
	var touched []string
	for name, pods := range current {
		if before, ok := r.podsOn[name]; ok && before != pods && !first {
			touched = append(touched, name)
		}
	}
	r.podsOn = current
	slices.Sort(touched)
	for _, name := range touched {
		if err := l.touchPodEvent(ctx, name, now); err != nil {
			return err
		}
	}
	return nil
}

// Run steps the loop until ctx is done: at once, then whenever the
// watcher reports a change or a wake-up falls due, sleeping on the wall
// clock in between. It returns ctx's error, or the first error a step
// returns when RunnerConfig.OnError is nil.
func (r *Runner) Run(ctx context.Context) error {
	for {
		wait := time.Duration(-1) // no wake-up: wait for a change
		if err := r.Step(ctx); err != nil {
			if ctx.Err() != nil || r.cfg.OnError == nil {
				return err
			}
			r.cfg.OnError(err)
			wait = stepRetry
		} else if at, ok := r.Next(); ok {
			wait = max(at.Sub(r.clock.Now()), 0)
		}
		var due <-chan time.Time
		var t *time.Timer
		if wait >= 0 {
			t = time.NewTimer(wait)
			due = t.C
		}
		select {
		case <-ctx.Done():
		case <-r.signal:
		case <-due:
		}
		if t != nil {
			t.Stop()
		}
	}
}

// stepRetry is how long Run waits, unless a change comes first, after a
// step failed.
const stepRetry = time.Second

// timerQueue keeps the loop's wake-ups in (time, order asked) order.
type timerQueue struct {
	items []timer
	seq   uint64
}

type timer struct {
	at   time.Time
	seq  uint64
	wake Wake
}

// WakeAt queues a wake-up.
func (q *timerQueue) WakeAt(at time.Time, w Wake) {
	q.seq++
	t := timer{at: at, seq: q.seq, wake: w}
	i, _ := slices.BinarySearchFunc(q.items, t, compareTimers)
	q.items = slices.Insert(q.items, i, t)
}

func (q *timerQueue) peek() (time.Time, bool) {
	if len(q.items) == 0 {
		return time.Time{}, false
	}
	return q.items[0].at, true
}

func (q *timerQueue) pop() Wake {
	t := q.items[0]
	q.items = q.items[1:]
	return t.wake
}

func compareTimers(a, b timer) int {
	return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.seq, b.seq))
}
