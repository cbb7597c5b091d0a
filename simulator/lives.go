package simulator

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/resources"
)

// NodeLife is one node of a run from its launch to its deletion, as the
// run's events made it: the nodes a run started with are launched, registered
// and ready at 0. Offsets are from the start of the run; Registered, Ready
// and Deleted are absent for a node that never got there.
type NodeLife struct {
	Name string `json:"name"`
	// NodePool is the node's NodePool, or for the Cluster Autoscaler its
	// node group; "" for a node neither manages.
	NodePool     string           `json:"nodePool,omitempty"`
	InstanceType string           `json:"instanceType"`
	Zone         string           `json:"zone"`
	CapacityType string           `json:"capacityType"`
	PricePerHour float64          `json:"pricePerHour"`
	Launched     metav1.Duration  `json:"launched"`
	Registered   *metav1.Duration `json:"registered,omitempty"`
	Ready        *metav1.Duration `json:"ready,omitempty"`
	Deleted      *metav1.Duration `json:"deleted,omitempty"`
	// Method is the disruption method of the decision that removed the
	// node (RemovedNodes), "" for a node still running at the end or
	// deleted by no such decision.
	Method string `json:"method,omitempty"`
	// Allocatable is what pods may request of the node: millicores of cpu
	// and bytes of memory.
	AllocatableMilliCPU int64 `json:"allocatableMilliCPU"`
	AllocatableMemory   int64 `json:"allocatableMemory"`
	// The requests of the pods bound to it (DaemonSets' left out, as in
	// Utilization), from ready to deleted (or the end of the run): the
	// mean over that time and the peak.
	MeanRequestedMilliCPU float64 `json:"meanRequestedMilliCPU"`
	MeanRequestedMemory   float64 `json:"meanRequestedMemory"`
	PeakRequestedMilliCPU int64   `json:"peakRequestedMilliCPU"`
	PeakRequestedMemory   int64   `json:"peakRequestedMemory"`
	// Pods counts the bindings to the node over its life.
	Pods int `json:"pods"`
}

// PendingLevel is how many pods are pending from At until the next level
// of Result.Pending.
type PendingLevel struct {
	At   metav1.Duration `json:"at"`
	Pods int             `json:"pods"`
}

// lifeBook follows every node's life and the pending pods as the run goes.
type lifeBook struct {
	lives map[string]*nodeLife
	// order is the nodes' names as they appeared.
	order []string
	// removedBy is the method of the last decision that removed each node.
	removedBy map[string]string
	pending   []PendingLevel
}

// nodeLife is a NodeLife being written, with the current requests and
// their sums over time.
type nodeLife struct {
	NodeLife
	cpu, memory       int64
	since             time.Time
	cpuSum, memorySum float64 // request × seconds since ready
	readyAt           time.Time
	ready, done       bool
}

func (s *sim) offset(t time.Time) metav1.Duration { return metav1.Duration{Duration: t.Sub(s.start)} }

// lifeBegins starts a node's record, when it is added to the cluster.
func (s *sim) lifeBegins(n *simNode) {
	if s.book.lives == nil {
		s.book.lives, s.book.removedBy = map[string]*nodeLife{}, map[string]string{}
	}
	alloc := resources.FromList(n.Node.Node.Allocatable)
	l := &nodeLife{NodeLife: NodeLife{Name: n.Name(), NodePool: n.Node.Node.NodePool, InstanceType: n.Instance.InstanceType,
		Zone: n.Instance.Zone, CapacityType: n.Instance.CapacityType, PricePerHour: n.PricePerHour,
		Launched: s.offset(s.now), AllocatableMilliCPU: alloc.CPU(), AllocatableMemory: alloc.Memory()}}
	if n.ca != nil {
		l.NodePool = n.ca.Group
	}
	s.book.lives[l.Name] = l
	s.book.order = append(s.book.order, l.Name)
}

// lifeRegistered and lifeReady date a node's registration and readiness.
func (s *sim) lifeRegistered(name string) {
	if l := s.book.lives[name]; l != nil && l.Registered == nil {
		at := s.offset(s.now)
		l.Registered = &at
	}
}

func (s *sim) lifeReady(name string) {
	if l := s.book.lives[name]; l != nil && !l.ready {
		at := s.offset(s.now)
		l.Ready, l.ready, l.readyAt, l.since = &at, true, s.now, s.now
	}
}

// lifePod counts a pod's requests on its node from now: sign 1 when it is
// bound there, -1 when it leaves.
func (s *sim) lifePod(node string, p *simPod, sign int64) {
	l := s.book.lives[node]
	if l == nil || l.done {
		return
	}
	l.accrue(s.now)
	// Pods whose requests cannot be read were refused at load.
	r, _ := resources.BoundRequests(p.pod)
	l.cpu += sign * r.CPU()
	l.memory += sign * r.Memory()
	if sign > 0 {
		l.Pods++
	}
	l.PeakRequestedMilliCPU, l.PeakRequestedMemory = max(l.PeakRequestedMilliCPU, l.cpu), max(l.PeakRequestedMemory, l.memory)
}

// accrue adds the current requests over the time since the last change.
func (l *nodeLife) accrue(now time.Time) {
	if !l.ready {
		return
	}
	secs := now.Sub(l.since).Seconds()
	l.cpuSum += float64(l.cpu) * secs
	l.memorySum += float64(l.memory) * secs
	l.since = now
}

// lifeEnds closes a node's record, at its deletion or at the end of the
// run (deleted false).
func (s *sim) lifeEnds(name string, deleted bool) {
	l := s.book.lives[name]
	if l == nil || l.done {
		return
	}
	l.accrue(s.now)
	l.done = true
	if deleted {
		at := s.offset(s.now)
		l.Deleted, l.Method = &at, s.book.removedBy[name]
	}
	if life := s.now.Sub(l.readyAt).Seconds(); l.ready && life > 0 {
		l.MeanRequestedMilliCPU = round4(l.cpuSum / life)
		l.MeanRequestedMemory = math.Round(l.memorySum / life)
	}
}

// lifeDecided notes the method of a decision that removes nodes, for their
// records.
func (s *sim) lifeDecided(d Decision) {
	if method, n := RemovedNodes(d); n > 0 {
		if s.book.removedBy == nil {
			s.book.removedBy = map[string]string{}
		}
		for _, name := range d.Nodes {
			s.book.removedBy[name] = method
			// A node deleted just before the decision was recorded.
			if l := s.book.lives[name]; l != nil && l.Deleted != nil && l.Method == "" && l.Deleted.Duration == s.now.Sub(s.start) {
				l.Method = method
			}
		}
	}
}

// notePending records the number of pending pods after an event, when it
// changed: a later change at the same instant replaces the earlier one.
func (s *sim) notePending() {
	b := &s.book
	at, n := s.offset(s.now), len(s.pending)
	if k := len(b.pending); k > 0 && b.pending[k-1].At == at {
		b.pending = b.pending[:k-1]
	}
	if k := len(b.pending); k > 0 && b.pending[k-1].Pods == n {
		return
	}
	b.pending = append(b.pending, PendingLevel{At: at, Pods: n})
}

// lives closes the records of the nodes still running and returns every
// node's, in order of appearance (the nodes a run started with by name).
func (s *sim) lives() []NodeLife {
	out := make([]NodeLife, 0, len(s.book.order))
	for _, name := range slices.Sorted(maps.Keys(s.nodes)) {
		s.lifeEnds(name, false)
	}
	for _, name := range s.book.order {
		out = append(out, s.book.lives[name].NodeLife)
	}
	slices.SortStableFunc(out, func(a, b NodeLife) int { return cmp.Compare(a.Launched.Duration, b.Launched.Duration) })
	return out
}
