package simulator

import (
	"cmp"
	"math"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/clusterautoscaler"
	"github.com/karpsim/karpsim/controller"
	"github.com/karpsim/karpsim/resources"
)

// Decision kinds, as they appear in Result.Timeline: the controller's, and
// the simulator's own (steps, workloads, the kube-scheduler).
const (
	KindScale             = "scale"
	KindLaunch            = controller.KindLaunch
	KindLaunchFailed      = controller.KindLaunchFailed
	KindReady             = controller.KindReady
	KindBind              = "bind"
	KindUnschedulable     = controller.KindUnschedulable
	KindDelete            = controller.KindDelete
	KindReplace           = controller.KindReplace
	KindValidationFailed  = controller.KindValidationFailed
	KindDisruptionAborted = controller.KindDisruptionAborted
	KindDeleteFailed      = controller.KindDeleteFailed
	KindExpire            = controller.KindExpire
	KindDrifted           = controller.KindDrifted
	KindInterruption      = controller.KindInterruption
	KindPlannerFailed     = controller.KindPlannerFailed
	KindDrainBlocked      = controller.KindDrainBlocked
	KindDrained           = controller.KindDrained
	KindNodePoolChanged   = "nodepool-changed"
	KindNodeClassChanged  = "nodeclass-changed"
	KindAMIReleased       = "ami-released"
	KindKubernetesVersion = "kubernetes-version"
	KindStepFailed        = "step-failed"
	KindArrive            = "arrive"
	KindDepart            = "depart"
	KindBuffer            = "buffer"
	KindNodeCondition     = "node-condition"
)

// Disruption methods the controller adds to consolidation's Method*
// constants in Result.DisruptionsByMethod.
const (
	MethodExpiration   = controller.MethodExpiration
	MethodInterruption = controller.MethodInterruption
)

// Decision is one thing that happened, and why; At is the offset from the
// start of the run.
type Decision = controller.Decision

// Sample is the cluster at one moment.
type Sample struct {
	At metav1.Duration `json:"at"`
	// Nodes counts every node by lifecycle, as Karpenter's NodeClaim
	// conditions do: Nodes all of them (launched), Registered those whose
	// kubelet joined the cluster, Ready those initialized.
	Nodes       int     `json:"nodes"`
	Registered  int     `json:"registered"`
	Ready       int     `json:"ready"`
	Pods        int     `json:"pods"`
	PendingPods int     `json:"pendingPods"`
	CostPerHour float64 `json:"costPerHour"`
}

// Percentiles summarise how long pods waited from becoming pending (created
// or evicted) to being bound, nearest-rank.
type Percentiles struct {
	// Count is how many waits ended in a binding; pods still pending at
	// the end are in StillPending instead.
	Count        int             `json:"count"`
	StillPending int             `json:"stillPending"`
	P50          metav1.Duration `json:"p50"`
	P90          metav1.Duration `json:"p90"`
	P99          metav1.Duration `json:"p99"`
	Max          metav1.Duration `json:"max"`
}

// Result is what a run did. It marshals to JSON deterministically: maps
// marshal with sorted keys and every list is in event order.
type Result struct {
	Scenario string          `json:"scenario,omitempty"`
	Seed     uint64          `json:"seed"`
	Start    metav1.Time     `json:"start"`
	Duration metav1.Duration `json:"duration"`
	// Timeline is every decision, in the order made.
	Timeline []Decision `json:"timeline"`
	// Samples are taken every Scenario.SampleEvery from the start; Final
	// is the cluster at the end.
	Samples []Sample `json:"samples"`
	// TotalCost is what every node cost, in USD, from launch to deletion or
	// the end of the run.
	TotalCost   float64     `json:"totalCost"`
	PendingTime Percentiles `json:"pendingTime"`
	// DisruptionsByMethod counts deleted nodes by disruption method.
	DisruptionsByMethod map[string]int `json:"disruptionsByMethod"`
	Launches            int            `json:"launches"`
	LaunchFailures      int            `json:"launchFailures"`
	ValidationFailures  int            `json:"validationFailures"`
	Evictions           int            `json:"evictions"`
	Final               Sample         `json:"final"`
	Warnings            []string       `json:"warnings,omitempty"`
	// Autoscaler is the autoscaler that ran, left out for Karpenter.
	Autoscaler string `json:"autoscaler,omitempty"`
	// StillPending are the pods pending at the end, each with why the
	// autoscaler left it so; only the Cluster Autoscaler keeps reasons.
	StillPending []PendingPod `json:"stillPending,omitempty"`
	// Utilization is set when Config.MeasureUtilization asked for it.
	Utilization *Utilization `json:"utilization,omitempty"`
	// Violations are the invariants the run broke, each when first seen;
	// only checked with Config.CheckInvariants (see InvariantError).
	Violations []Violation `json:"violations,omitempty"`
	// Buffers, for a Karpenter run with CapacityBuffers, compares it with
	// the same run without them.
	Buffers *BufferReport `json:"buffers,omitempty"`
	// Nodes is every node of the run from launch to deletion, and Pending
	// the number of pending pods after every instant it changed: exact
	// step functions of the run's events where Samples are snapshots.
	// Reports draw their charts from them.
	Nodes   []NodeLife     `json:"nodes,omitempty"`
	Pending []PendingLevel `json:"pending,omitempty"`
}

// BufferReport is what a run's CapacityBuffers did: the pending times and
// cost of the run beside those of the same scenario and seed run with
// Karpenter's CapacityBuffer feature gate off.
type BufferReport struct {
	// PendingTime and TotalCost are the run's; WithoutPendingTime and
	// WithoutTotalCost those of the run without buffers.
	PendingTime        Percentiles `json:"pendingTime"`
	WithoutPendingTime Percentiles `json:"withoutPendingTime"`
	TotalCost          float64     `json:"totalCost"`
	WithoutTotalCost   float64     `json:"withoutTotalCost"`
	// Cost is what the buffers cost over the run: TotalCost less
	// WithoutTotalCost.
	Cost float64 `json:"cost"`
	// Skipped says why there is no run without buffers to compare with
	// (a launcher, clock or cluster of the caller's cannot be run twice);
	// the Without fields are then zero.
	Skipped string `json:"skipped,omitempty"`
}

// PendingPod is a pod still pending at the end of a run, and why.
type PendingPod struct {
	Pod    string `json:"pod"`
	Reason string `json:"reason"`
}

// Utilization is how much of the ready nodes' allocatable the bound pods
// requested, averaged over the samples (which are evenly spaced, so over
// time); samples without a ready node count as 0.
type Utilization struct {
	CPU     float64 `json:"cpu"`
	Memory  float64 `json:"memory"`
	Samples int     `json:"samples"`
}

// utilizationSums add up the samples' utilization.
type utilizationSums struct {
	cpu, memory float64
	n           int
}

func newResult(sc Scenario) *Result {
	return &Result{Scenario: sc.Name, Seed: sc.Seed, Duration: sc.Duration, Timeline: []Decision{},
		Samples: []Sample{}, DisruptionsByMethod: map[string]int{}}
}

// decide appends a decision to the timeline, dated now, and counts it.
func (s *sim) decide(d Decision) {
	d.At = metav1.Duration{Duration: s.now.Sub(s.start)}
	d.PricePerHour, d.SavingsPerHour = round4(d.PricePerHour), round4(d.SavingsPerHour)
	s.res.Timeline = append(s.res.Timeline, d)
	switch d.Kind {
	case KindLaunch:
		s.res.Launches++
	case KindLaunchFailed:
		s.res.LaunchFailures++
	case KindValidationFailed:
		s.res.ValidationFailures++
	}
	if method, nodes := RemovedNodes(d); nodes > 0 {
		s.res.DisruptionsByMethod[method] += nodes
	}
	s.lifeDecided(d)
}

// RemovedNodes returns the method by which a decision removed nodes and how
// many: Karpenter's disruption commands, expirations and interruptions, and
// the Cluster Autoscaler's scale-downs; "" and 0 for a decision that removed
// none. DisruptionsByMethod counts them, and reports mark them.
func RemovedNodes(d Decision) (method string, nodes int) {
	if d.Kind == clusterautoscaler.KindScaleDown {
		return d.Method, len(d.Nodes)
	}
	return d.Disrupted()
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

func (s *sim) snapshotSample() Sample {
	out := Sample{At: metav1.Duration{Duration: s.now.Sub(s.start)}, Nodes: len(s.nodes), Pods: len(s.pods), PendingPods: len(s.pending)}
	for _, n := range s.sortedNodes() {
		if n.Registered {
			out.Registered++
		}
		if n.Initialized {
			out.Ready++
		}
		out.CostPerHour += n.PricePerHour
	}
	out.CostPerHour = round4(out.CostPerHour)
	return out
}

func (s *sim) sample() {
	s.res.Samples = append(s.res.Samples, s.snapshotSample())
	if s.cfg.MeasureUtilization {
		s.measureUtilization()
	}
}

// measureUtilization adds the requests of bound pods over the allocatable
// of ready nodes now.
func (s *sim) measureUtilization() {
	var req, alloc resources.Vector
	for _, n := range s.sortedNodes() {
		if !n.Initialized {
			continue
		}
		alloc = alloc.Add(resources.FromList(n.Node.Node.Allocatable))
		for _, p := range n.pods {
			// Pods whose requests cannot be read were refused at load.
			r, _ := resources.BoundRequests(p.pod)
			req = req.Add(r)
		}
	}
	if c := alloc.CPU(); c > 0 {
		s.util.cpu += float64(req.CPU()) / float64(c)
	}
	if m := alloc.Memory(); m > 0 {
		s.util.memory += float64(req.Memory()) / float64(m)
	}
	s.util.n++
}

// finish closes the books at the end of the run.
func (s *sim) finish() *Result {
	r := s.res
	r.Start = metav1.NewTime(s.start)
	cost := s.costSoFar
	for _, n := range s.sortedNodes() {
		cost += n.PricePerHour * s.end.Sub(n.Instance.LaunchedAt).Hours()
	}
	r.TotalCost = round4(cost)
	r.Final = s.snapshotSample()
	r.Nodes, r.Pending = s.lives(), s.book.pending
	r.PendingTime = percentiles(s.pendingTimes)
	r.PendingTime.StillPending = len(s.pending)
	for _, p := range sortedPods(s.pending) {
		if why := s.auto.explain(p.key); why != "" {
			r.StillPending = append(r.StillPending, PendingPod{Pod: p.key, Reason: why})
		}
	}
	if s.cfg.MeasureUtilization && s.util.n > 0 {
		n := float64(s.util.n)
		r.Utilization = &Utilization{CPU: round4(s.util.cpu / n), Memory: round4(s.util.memory / n), Samples: s.util.n}
	}
	return r
}

func percentiles(ds []time.Duration) Percentiles {
	if len(ds) == 0 {
		return Percentiles{}
	}
	sorted := slices.Clone(ds)
	slices.SortFunc(sorted, cmp.Compare[time.Duration])
	at := func(p float64) metav1.Duration {
		i := int(math.Ceil(p*float64(len(sorted)))) - 1
		return metav1.Duration{Duration: sorted[max(i, 0)]}
	}
	return Percentiles{Count: len(sorted), P50: at(0.5), P90: at(0.9), P99: at(0.99), Max: at(1)}
}
