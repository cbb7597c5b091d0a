// Package controller is Karpenter's control loop as a state machine: it
// batches pending pods (1 s idle, 10 s max) and provisions for them, marks
// launched NodeClaims ready, polls disruption every 10 s (expiration, drift
// detection, then Karpenter's methods, consolidation validated 15 s later),
// executes commands (cordon, launch replacements, delete the candidates once
// the replacements are initialized), handles spot interruptions (cordon,
// drain, delete, offering marked unavailable) and, as Karpenter's
// termination controller, drains every node it deletes through the
// Eviction API: pods in priority groups, evictions a PodDisruptionBudget
// refuses retried with backoff, the node deleted once drained or when its
// NodeClaim's terminationGracePeriod is over.
//
// The loop keeps what Karpenter keeps in memory — the open batch, the
// command being validated and those executing, nominations, drift status,
// the unavailable-offering cache — and nothing else. It reads and changes
// the cluster through a Cluster, launches and terminates instances through a
// cloud.Launcher, takes the time from its host with every call (it reads no
// clock: one step of the host is one moment) and asks its host to wake it
// through Timers. Either way the decisions come out the same.
//
// Two hosts drive it. Package simulator runs it over a virtual cluster in
// virtual time. Runner drives it against a live cluster: build one with
// NewRunner from a cloud.ClusterWatcher, a cloud.ClusterWriter (such as
// cloud.MemoryCluster, or package kube's Watcher and Writer for a real API
// server) and a cloud.Launcher, then call Run on the wall clock or Step on a
// clock of your own. Runner's documentation states what the cluster's
// kubelets and kube-scheduler must do for it; package controller/hosttest
// does it in memory for tests.
//
// A Controller is not safe for concurrent use: its host calls it from one
// goroutine.
package controller

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/provider"
	"github.com/karpsim/karpsim/scheduling"
)

// Karpenter's timings, the defaults of Timings.
const (
	BatchIdleDuration  = time.Second
	BatchMaxDuration   = 10 * time.Second
	DisruptionInterval = 10 * time.Second
	ValidationDelay    = 15 * time.Second
	// UnschedulableRetry is how long pods that fit nowhere wait before
	// another provisioning pass is opened for them alone.
	UnschedulableRetry = time.Minute
	// DisruptionRecheck bounds how long an unchanged cluster goes without
	// a disruption evaluation (budget schedules, drift age).
	DisruptionRecheck = 5 * time.Minute
	// BufferResync is how often Karpenter's CapacityBuffer controller
	// reconciles each buffer and triggers a provisioning pass, which
	// refills a buffer real pods have taken.
	BufferResync = 30 * time.Second
)

// Timings are the loop's intervals. Zero fields take Karpenter's values;
// BatchIdle and BatchMax are Karpenter's BATCH_IDLE_DURATION and
// BATCH_MAX_DURATION settings, the others are fixed in Karpenter and worth
// changing only to run the loop faster in a test.
type Timings struct {
	BatchIdle, BatchMax, DisruptionInterval, ValidationDelay, UnschedulableRetry, DisruptionRecheck, BufferResync time.Duration
	// NominationWindow is how long a node chosen for pending pods is no
	// disruption candidate; zero means Karpenter's
	// max(2 × BatchMax, 10s).
	NominationWindow time.Duration
}

func (t Timings) withDefaults() Timings {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.BatchIdle, BatchIdleDuration)
	def(&t.BatchMax, BatchMaxDuration)
	def(&t.DisruptionInterval, DisruptionInterval)
	def(&t.ValidationDelay, ValidationDelay)
	def(&t.UnschedulableRetry, UnschedulableRetry)
	def(&t.DisruptionRecheck, DisruptionRecheck)
	def(&t.BufferResync, BufferResync)
	def(&t.NominationWindow, max(2*t.BatchMax, 10*time.Second))
	return t
}

// StateNode is a node as Karpenter's cluster state holds it and its
// disruption controller reads it: the node as scheduling sees it (name,
// NodePool, labels, taints, resources and, when Cluster.Nodes is asked for
// them, the pods bound to it), its NodeClaim, whether it is being deleted
// or is NotReady, and the times consolidateAfter counts from. It is
// consolidation.Node itself: the loop hands it to consolidation.Evaluate
// as it is.
type StateNode = consolidation.Node

// Node is a node, launched or in flight, as the loop sees it: its
// StateNode, and what the loop adds. The Cluster owns it; the loop reads it
// and changes it only through the Cluster, except NominatedAt, BufferPods
// and Drift, which are the loop's own memory: it sets them before each disruption
// evaluation, and a Cluster leaves them alone.
//
// Deleting is set while the node carries the karpenter.sh/disrupted taint
// or is being deleted: it takes no new pods, is no disruption candidate and
// counts against its NodePool's budgets.
type Node struct {
	StateNode
	// Instance is the machine behind the node; PricePerHour what it costs.
	Instance     cloud.Instance
	PricePerHour float64
	// Registered and Initialized follow the node's lifecycle;
	// StateNode.InitializedAt is when it became initialized.
	Registered, Initialized bool
	// KubeletVersion is the node's status.nodeInfo.kubeletVersion, which
	// a provider's drift may compare with its node class; "" when
	// unknown.
	KubeletVersion string
}

// Name is the node's name (its NodeClaim's, for a launched node).
func (n *Node) Name() string { return n.Node.Name }

// Cluster is the cluster as the loop reads and changes it. Lists are sorted
// (nodes by name, pods by namespace/name) so that decisions are
// deterministic.
type Cluster interface {
	// NodePools returns the NodePools, sorted by name.
	NodePools() []*apis.NodePool
	// NodeClass returns the named node class (an EC2NodeClass or an
	// AKSNodeClass, by the provider of the NodePools that name it), nil
	// if there is none.
	NodeClass(name string) provider.NodeClass
	// Catalog returns the instance types of the named node class.
	Catalog(nodeClass string) instancetypes.Catalog
	// DaemonSets returns one pod per DaemonSet, for overhead.
	DaemonSets() []*corev1.Pod
	// PDBs returns the PodDisruptionBudgets.
	PDBs() []*policyv1.PodDisruptionBudget
	// Pending returns the pods waiting for a node.
	Pending() []*corev1.Pod
	// Nodes returns every node. With withPods, each Node.Node.Pods lists
	// the pods bound to it now and Node.Node.Initialized agrees with
	// Node.Initialized.
	Nodes(withPods bool) []*Node
	// Node returns the named node, nil if there is none.
	Node(name string) *Node
	// Generation changes whenever the cluster changes in a way that can
	// alter a disruption decision (a pod bound, pending or gone, a node
	// added, cordoned, initialized or removed, a NodePool or EC2NodeClass
	// changed).
	Generation() uint64

	// AddNode records the node of a NodeClaim the loop launched: in flight
	// until its instance registers and initializes.
	AddNode(ctx context.Context, n *Node) error
	// Cordon adds the karpenter.sh/disrupted:NoSchedule taint to a node,
	// or lifts it.
	Cordon(ctx context.Context, n *Node, on bool) error
	// Drain is one step of a node's drain, as Karpenter's terminator takes
	// it: the pods still waiting eviction (AwaitsEviction) of the first
	// non-empty group of EvictionGroups are evicted through the Eviction
	// API, which refuses those a PodDisruptionBudget protects now; those
	// with an active do-not-disrupt annotation are not asked for. Evicted
	// pods become pending. When no pod waits eviction any more, the node
	// and its NodeClaim are deleted, with the pods left on it. With force
	// (the NodeClaim's terminationGracePeriod is over) every pod is
	// deleted at once, past PDBs and do-not-disrupt, and so is the node.
	// The loop calls Drain again, with backoff, until the status says the
	// node is deleted, then terminates the instance.
	Drain(ctx context.Context, n *Node, force bool) (DrainStatus, error)
}

// Wake says why the loop asked to be woken.
type Wake uint8

const (
	// WakeBatch checks whether the provisioning batch is due.
	WakeBatch Wake = iota
	// WakeDisrupt is the disruption poll.
	WakeDisrupt
	// WakeValidate validates the consolidation command found earlier.
	WakeValidate
	// WakeBuffers is the CapacityBuffer controller's resync: it triggers
	// a provisioning pass while any buffer has virtual pods.
	WakeBuffers
	// WakeDrain retries the drains whose evictions were refused.
	WakeDrain
)

// Timers wakes the loop: the host calls Controller.Wake(w) at, or after,
// the time asked for. Wake-ups due at the same time come in the order they
// were asked for.
type Timers interface {
	WakeAt(at time.Time, w Wake)
}

// Config is what a Controller works with.
type Config struct {
	Cluster  Cluster
	Launcher cloud.Launcher
	Timers   Timers
	// Record receives every decision, in order, with At left zero for
	// the host to date. Nil drops them.
	Record func(Decision)
	// Options are the disruption options, and through them the
	// scheduling options provisioning uses. Their NominationWindow is
	// Timings'.
	Options consolidation.Options
	Timings Timings
	// Planned and Evaluated, when set, see each provisioning solve and
	// each disruption evaluation with the input it was computed from,
	// before the loop acts on it, and the time of the decision: the
	// simulator checks invariants on them. They must change neither.
	Planned   func(in scheduling.Input, r scheduling.Result, now time.Time)
	Evaluated func(c consolidation.Cluster, d consolidation.Decision, now time.Time)
	// Planner makes each provisioning plan; nil is Karpenter's,
	// scheduling.Solve. Another planner (optimize.Solve) must keep
	// scheduling.Solve's contract: the same constraints, the input
	// unchanged. When it fails, the pass records a planner-failed
	// decision and uses scheduling.Solve's plan. It also plans
	// consolidation's replacements (consolidation.Options.Planner) unless
	// Options has a planner of its own; drift's are always Karpenter's.
	Planner func(in scheduling.Input) (scheduling.Result, error)
	// BufferPods, when set, returns the CapacityBuffers' virtual pods now
	// (snapshot.BufferPods): Karpenter's CapacityBuffer feature gate.
	// Provisioning places them after the pending pods, consolidation
	// simulations place them as pending pods, and emptiness leaves alone
	// the nodes the last provisioning pass put them on. They are never
	// bound, launched for as pods or counted among the cluster's pods.
	BufferPods func() []*corev1.Pod
	// Providers pick the provider of each NodePool by its nodeClassRef's
	// group: it stamps the NodeClaims the loop launches and runs its drift
	// checks. The default cloud's provider keeps the cache of offerings
	// launches found without capacity (Karpenter's on AWS, the Azure
	// provider's on Azure). The zero value has the defaults of both clouds,
	// AWS the default.
	Providers provider.Providers
	// NodeOverlays are applied to every NodePool's catalog before each
	// provisioning and disruption pass (Karpenter's NodeOverlay feature,
	// on when any is given).
	NodeOverlays []*apis.NodeOverlay
}

// Controller is Karpenter's loop. Build it with New, call Start once, then
// Trigger when pods become pending, Wake when a timer is due, NodeReady when
// a node initializes, Interrupted on a spot interruption notice and
// NodeClassChanged after a NodePool or EC2NodeClass changes. Each entry
// point takes the time of the call: the controller reads no clock.
type Controller struct {
	cfg         Config
	t           Timings
	unavailable provider.UnavailableOfferings
	// cleared are the catalogs made with unavailable offerings cleared.
	cleared []clearedCatalog
	// overlays is the last application of Config.NodeOverlays.
	overlays *overlaid
	claimNo  map[string]int // per NodePool

	// The open provisioning batch; batchStart is zero when none is open.
	batchStart, batchLast time.Time
	// lastUnschedulable is the last unschedulable decision's reason.
	lastUnschedulable string

	// nominated is when a provisioning pass last chose each node, drift
	// each node's drift status: Karpenter's in-memory cluster state.
	nominated map[string]time.Time
	drift     map[string]*consolidation.DriftStatus
	// bufferNodes counts the virtual pods the last provisioning pass
	// placed on each existing node.
	bufferNodes map[string]int
	// draining are the nodes being drained and deleted, by name.
	draining map[string]*termination
	// driftDirty asks the next poll to check every node for drift.
	driftDirty bool
	// generation counts the loop's own changes that alter a disruption
	// decision (drift found or cleared).
	generation uint64
	disrupt    disruptState
	// timedOutPools are the NodePools single-node consolidation ran out of
	// time on in the last evaluation (with Options.Timeouts), tried first
	// in the next: Karpenter's memory of them.
	timedOutPools []string
	// at is the time the host passed to the entry point being handled.
	at time.Time
}

// ErrConfig is wrapped by New's error for an incomplete Config.
var ErrConfig = errors.New("controller: incomplete config")

// New returns a controller over cfg's seams.
func New(cfg Config) (*Controller, error) {
	switch {
	case cfg.Cluster == nil:
		return nil, errors.Join(ErrConfig, errors.New("Config.Cluster is nil"))
	case cfg.Launcher == nil:
		return nil, errors.Join(ErrConfig, errors.New("Config.Launcher is nil"))
	case cfg.Timers == nil:
		return nil, errors.Join(ErrConfig, errors.New("Config.Timers is nil"))
	}
	if cfg.Record == nil {
		cfg.Record = func(Decision) {}
	}
	t := cfg.Timings.withDefaults()
	cfg.Options.NominationWindow = t.NominationWindow
	// Every poll evaluates the same NodePools and catalogs until one is
	// replaced: what they compile to is kept between polls.
	if cfg.Options.Cache == nil {
		cfg.Options.Cache = &consolidation.Cache{}
	}
	if cfg.Options.Planner == nil {
		cfg.Options.Planner = cfg.Planner
	}
	return &Controller{
		cfg: cfg, t: t,
		unavailable: cfg.Providers.DefaultProvider().NewUnavailableOfferings(),
		claimNo:     map[string]int{},
		nominated:   map[string]time.Time{},
		drift:       map[string]*consolidation.DriftStatus{},
		draining:    map[string]*termination{},
	}, nil
}

// Start schedules the first disruption poll, DisruptionInterval after now.
func (c *Controller) Start(now time.Time) {
	c.at = now
	c.cfg.Timers.WakeAt(c.now().Add(c.t.DisruptionInterval), WakeDisrupt)
	if c.cfg.BufferPods != nil {
		c.cfg.Timers.WakeAt(c.now().Add(c.t.BufferResync), WakeBuffers)
	}
}

// Wake runs, at now, what the timer w was set for.
func (c *Controller) Wake(ctx context.Context, w Wake, now time.Time) {
	c.at = now
	switch w {
	case WakeBatch:
		c.batchCheck(ctx)
	case WakeDisrupt:
		c.poll(ctx)
		c.cfg.Timers.WakeAt(c.now().Add(c.t.DisruptionInterval), WakeDisrupt)
	case WakeValidate:
		c.validate(ctx)
	case WakeBuffers:
		if len(c.bufferPods()) > 0 {
			c.Trigger(c.now())
		}
		c.cfg.Timers.WakeAt(c.now().Add(c.t.BufferResync), WakeBuffers)
	case WakeDrain:
		c.continueDrains(ctx)
	}
}

// NodeReady is called when a node the loop launched has initialized, at
// now: a command waiting for it as a replacement may go on.
func (c *Controller) NodeReady(ctx context.Context, n *Node, now time.Time) {
	c.at = now
	c.record(Decision{Kind: KindReady, Nodes: []string{n.Name()}, InstanceType: n.Instance.InstanceType,
		Reason: "node initialized " + c.now().Sub(n.Instance.LaunchedAt).String() + " after launch"})
	c.continueCommands(ctx)
}

// NodeClassChanged asks the next disruption poll to check every node for
// drift: a NodePool or EC2NodeClass changed.
func (c *Controller) NodeClassChanged() { c.driftDirty = true }

// now is the time of the call being handled: the host reads its clock
// once and passes the time to each entry point, so that one step of the
// loop sees one time.
func (c *Controller) now() time.Time { return c.at }

func (c *Controller) record(d Decision) { c.cfg.Record(d) }

// forget drops what the loop remembers of a removed node.
func (c *Controller) forget(name string) {
	delete(c.nominated, name)
	delete(c.drift, name)
	delete(c.bufferNodes, name)
}

// bufferPods are the CapacityBuffers' virtual pods now; none without
// Config.BufferPods.
func (c *Controller) bufferPods() []*corev1.Pod {
	if c.cfg.BufferPods == nil {
		return nil
	}
	return c.cfg.BufferPods()
}

// generationNow is the cluster's generation and the loop's own, together:
// either moving changes it.
func (c *Controller) generationNow() uint64 { return c.cfg.Cluster.Generation() + c.generation }
