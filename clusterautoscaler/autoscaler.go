// Package clusterautoscaler is a model of the Kubernetes Cluster Autoscaler
// (CA) on AWS Auto Scaling Groups, run by the same simulator, cloud and
// kube-scheduler as Karpenter's loop so that only the autoscaler differs.
// Every scan (10 s) it scales up node groups for pods the kube-scheduler
// could not place — each group's template node (its first instance type,
// in its first zone) is tried with CA's binpacking estimator and one option
// is picked by the expander (least-waste by default) — and it removes
// nodes whose requests stay under half their allocatable for ten minutes
// when their pods fit elsewhere. It never replaces a node by a cheaper one:
// CA only adds and removes nodes of the groups it is given.
//
// Most callers reach it through the simulator: simulator.Config.Autoscaler
// set to simulator.AutoscalerClusterAutoscaler runs it over a scenario's
// clusterAutoscaler section, and `karpsim compare` runs it beside
// Karpenter. Like package controller, an Autoscaler is a state machine: it
// reads and changes the cluster through a Cluster, launches and terminates
// instances through a cloud.Launcher, takes the time with every call and
// asks its host to wake it through Timers. It is not safe for concurrent
// use.
package clusterautoscaler

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
	"github.com/karpsim/karpsim/scheduling"
)

// Decision kinds CA makes, in its own words where it has them.
const (
	KindScaleUp        = "scale-up"
	KindNoScaleUp      = "no-scale-up"
	KindLaunch         = "launch"
	KindLaunchFailed   = "launch-failed"
	KindReady          = "ready"
	KindScaleUpTimeout = "scale-up-timeout"
	KindScaleDown      = "scale-down"
	KindInterruption   = "interruption"
	KindDeleteFailed   = "delete-failed"
)

// Scale-down methods, the Method of scale-down decisions: an empty node is
// deleted in bulk, an unneeded one is drained first.
const (
	MethodEmpty        = "empty"
	MethodUnneeded     = "unneeded"
	MethodInterruption = "interruption"
)

// Decision is one thing CA did, and why. It has the fields of
// controller.Decision, so that a host converts one into the other.
type Decision struct {
	// At is left zero for the host to date.
	At             metav1.Duration `json:"at"`
	Kind           string          `json:"kind"`
	Method         string          `json:"method,omitempty"`
	Nodes          []string        `json:"nodes,omitempty"`
	Replacements   []string        `json:"replacements,omitempty"`
	Pods           int             `json:"pods,omitempty"`
	InstanceType   string          `json:"instanceType,omitempty"`
	Zone           string          `json:"zone,omitempty"`
	CapacityType   string          `json:"capacityType,omitempty"`
	PricePerHour   float64         `json:"pricePerHour,omitempty"`
	SavingsPerHour float64         `json:"savingsPerHour,omitempty"`
	Reason         string          `json:"reason"`
}

// Node is a node of a node group, launched or in flight, as CA sees it.
// The Cluster owns it; CA reads it and changes it only through the Cluster.
type Node struct {
	// Node is the node as the kube-scheduler sees it; its Pods are the
	// pods bound to it when Cluster.Nodes lists it.
	Node *scheduling.Node
	// Group is the node group; "" for a node CA does not manage.
	Group        string
	Instance     cloud.Instance
	PricePerHour float64
	// Ready is set once the node is initialized; Deleting once it is being
	// removed.
	Ready, Deleting bool
}

// Name is the node's name.
func (n *Node) Name() string { return n.Node.Name }

// Cluster is the cluster as CA reads and changes it. Lists are sorted
// (nodes by name, pods by namespace/name).
type Cluster interface {
	// Pending returns the pods the kube-scheduler could not place.
	Pending() []*corev1.Pod
	// Nodes returns every node with the pods bound to it.
	Nodes() []*Node
	// DaemonSets returns one pod per DaemonSet.
	DaemonSets() []*corev1.Pod
	// PDBs returns the PodDisruptionBudgets.
	PDBs() []*policyv1.PodDisruptionBudget
	// Generation changes whenever a pod or node changes.
	Generation() uint64
	// AddNode records a node an Auto Scaling Group launched: in flight
	// until its instance registers and initializes.
	AddNode(ctx context.Context, n *Node) error
	// Drain evicts a node's pods, which become pending, and deletes the
	// node; it returns how many pods were evicted. CA terminates the
	// instance afterwards.
	Drain(ctx context.Context, n *Node) (int, error)
}

// Wake says why CA asked to be woken.
type Wake uint8

const (
	// WakeScan is CA's main loop, every scan interval.
	WakeScan Wake = iota
	// WakeLaunch is an Auto Scaling Group launching instances CA asked
	// for.
	WakeLaunch
)

// Timers wakes CA: the host calls Autoscaler.Wake(w) at, or after, the time
// asked for.
type Timers interface {
	WakeAt(at time.Time, w Wake)
}

// Config is what an Autoscaler works with.
type Config struct {
	Spec Spec
	// Catalog has the instance types node groups name, with their
	// allocatable and offerings (zones and prices).
	Catalog  instancetypes.Catalog
	Cluster  Cluster
	Launcher cloud.Launcher
	Timers   Timers
	// Record receives every decision, in order; nil drops them.
	Record func(Decision)
	// Seed seeds the random expander and ties (PCG).
	Seed uint64
	// Scheduling are the options the template and fit checks use.
	Scheduling scheduling.Options
}

// ErrConfig is wrapped by New's error for an incomplete Config.
var ErrConfig = errors.New("clusterautoscaler: incomplete config")

// Autoscaler is the Cluster Autoscaler. Build it with New, call Start
// once, then Wake when a timer is due, NodeReady when a node initializes
// and Interrupted on a spot interruption notice.
type Autoscaler struct {
	cfg    Config
	st     settings
	rng    *rand.Rand
	groups []*group // sorted by name
	byName map[string]*group
	at     time.Time

	lastScaleUp, lastDelete, lastFailure time.Time
	// unneeded is when each node was first found unneeded, in a row.
	unneeded map[string]time.Time
	// unneededGen is the generation the unneeded nodes were found at.
	unneededGen uint64
	removable   []candidate
	// lastNoScaleUp is the last no-scale-up decision's reason; why holds
	// each pending pod's reason, for Explain.
	lastNoScaleUp string
	why           map[string]string
	// podCache holds what CA computes of each live pod (requests,
	// equivalence key), kept between scans and pruned to the pods seen;
	// daemons is the DaemonSet overhead of each node, whose labels and
	// taints never change.
	podCache, seenPods map[*corev1.Pod]*podFacts
	daemons            map[string]resources.Vector
	// fits caches, for one scan, why an equivalence does not fit a
	// group's template ("" when it does), by group and equivalence.
	fits map[string]string
}

// New returns a Cluster Autoscaler over cfg's seams.
func New(cfg Config) (*Autoscaler, error) {
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
	st, err := cfg.Spec.resolve()
	if err != nil {
		return nil, err
	}
	zones := Zones(cfg.Catalog)
	specs := cfg.Spec.NodeGroups
	if len(specs) == 0 {
		specs = DefaultNodeGroups(zones)
	}
	if err := checkGroups(specs, cfg.Catalog, zones); err != nil {
		return nil, err
	}
	a := &Autoscaler{cfg: cfg, st: st, rng: rand.New(rand.NewPCG(cfg.Seed, 0x6361)), byName: map[string]*group{},
		unneeded: map[string]time.Time{}, why: map[string]string{}, fits: map[string]string{},
		podCache: map[*corev1.Pod]*podFacts{}, seenPods: map[*corev1.Pod]*podFacts{}, daemons: map[string]resources.Vector{}}
	for _, spec := range specs {
		g, err := newGroup(spec, cfg.Catalog, zones)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidSpec, err)
		}
		a.groups = append(a.groups, g)
		a.byName[g.spec.Name] = g
	}
	sortGroups(a.groups)
	return a, nil
}

// Start brings every group up to its min size — the Auto Scaling Group's
// desired capacity when CA starts — with nodes ready at now, and schedules
// the first scan.
func (a *Autoscaler) Start(ctx context.Context, now time.Time) {
	a.at = now
	for _, g := range a.groups {
		for range g.spec.Min {
			g.target++
			a.launchOne(ctx, g, true)
		}
	}
	a.cfg.Timers.WakeAt(now.Add(a.st.scanInterval), WakeScan)
}

// Wake runs, at now, what the timer w was set for.
func (a *Autoscaler) Wake(ctx context.Context, w Wake, now time.Time) {
	a.at = now
	switch w {
	case WakeScan:
		a.scan(ctx)
		a.cfg.Timers.WakeAt(now.Add(a.st.scanInterval), WakeScan)
	case WakeLaunch:
		a.launchDueInstances(ctx)
	}
}

// NodeReady is called when a node has initialized, at now.
func (a *Autoscaler) NodeReady(n *Node, now time.Time) {
	a.at = now
	a.record(Decision{Kind: KindReady, Nodes: []string{n.Name()}, InstanceType: n.Instance.InstanceType,
		Reason: fmt.Sprintf("node of group %s initialized %v after launch", n.Group, now.Sub(n.Instance.LaunchedAt))})
}

// Interrupted handles a spot interruption notice: the node is drained and
// deleted and its instance terminated, and its Auto Scaling Group, whose
// desired capacity is unchanged, launches a replacement.
func (a *Autoscaler) Interrupted(ctx context.Context, n *Node, notice cloud.Interruption, now time.Time) {
	a.at = now
	pods := a.remove(ctx, n)
	why := fmt.Sprintf("spot interruption notice, termination at +%v: drained and deleted", notice.TerminateAt.Sub(notice.NoticeAt))
	if g := a.byName[n.Group]; g != nil {
		a.requestLaunches(g, 1)
		why += fmt.Sprintf("; ASG %s launches a replacement (desired capacity stays %d)", g.spec.Name, g.target)
	}
	a.record(Decision{Kind: KindInterruption, Method: MethodInterruption, Nodes: []string{n.Name()}, Pods: pods,
		InstanceType: n.Instance.InstanceType, Zone: n.Instance.Zone, CapacityType: n.Instance.CapacityType, Reason: why})
}

// Explain says why CA left a pending pod pending at its last scan, "" when
// it has nothing to say about it (the pod became pending since).
func (a *Autoscaler) Explain(pod string) string { return a.why[pod] }

func (a *Autoscaler) record(d Decision) { a.cfg.Record(d) }

// podFacts is what CA computes of a pod once: its requests and its
// equivalence key.
type podFacts struct {
	requests resources.Vector
	key      string
}

// facts returns the pod's facts, computed on first sight. A pod object is
// not changed once created (the simulator and a live cluster make a new
// one), so its pointer identifies it.
func (a *Autoscaler) facts(p *corev1.Pod) *podFacts {
	f := a.seenPods[p]
	if f == nil {
		f = a.podCache[p]
		if f == nil {
			f = &podFacts{requests: podRequests(p), key: equivalenceKey(p)}
		}
		a.seenPods[p] = f
	}
	return f
}

func (a *Autoscaler) now() time.Time { return a.at }

// scan is one iteration of CA's main loop: failed scale-ups time out, then
// scale-up; scale-down only in a loop that did not scale up.
func (a *Autoscaler) scan(ctx context.Context) {
	nodes := a.cfg.Cluster.Nodes()
	// Pods not seen in the last scan are gone: their facts are dropped.
	a.podCache, a.seenPods = a.seenPods, a.podCache
	clear(a.seenPods)
	a.timeouts()
	if a.scaleUp(nodes) {
		a.lastScaleUp = a.now()
		return
	}
	if a.st.scaleDown {
		a.scaleDown(ctx, nodes)
	}
}

// remove drains a node and terminates its instance.
func (a *Autoscaler) remove(ctx context.Context, n *Node) int {
	evicted, err := a.cfg.Cluster.Drain(ctx, n)
	delete(a.unneeded, n.Name())
	if err != nil {
		// A failed scale-down holds the next one off
		// (--scale-down-delay-after-failure).
		a.lastFailure = a.now()
		a.record(Decision{Kind: KindDeleteFailed, Nodes: []string{n.Name()}, Reason: "drain: " + err.Error()})
		return evicted
	}
	if err := a.cfg.Launcher.Delete(ctx, n.Instance.ID); err != nil {
		a.record(Decision{Kind: KindDeleteFailed, Nodes: []string{n.Name()}, Reason: "terminate: " + err.Error()})
	}
	return evicted
}
