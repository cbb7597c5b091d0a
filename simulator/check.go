package simulator

import (
	"cmp"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/invariants"
	"github.com/karpsim/karpsim/scheduling"
)

// Violation is an invariant a run broke (package invariants), dated as an
// offset from the start of the run.
type Violation struct {
	At metav1.Duration `json:"at"`
	invariants.Violation
}

// maxViolations bounds what a run records: the first ones explain it.
const maxViolations = 1000

// InvariantError is nil when the run broke no invariant (or was not
// checked: Config.CheckInvariants), and otherwise an error wrapping
// invariants.ErrViolated that lists every violation with its time.
func (r *Result) InvariantError() error {
	if len(r.Violations) == 0 {
		return nil
	}
	vs := make([]invariants.Violation, len(r.Violations))
	for i, v := range r.Violations {
		vs[i] = v.Violation
		vs[i].Detail = "at +" + v.At.Duration.String() + ": " + v.Detail
	}
	return invariants.Err(vs)
}

// checker runs the invariant checks of a run with Config.CheckInvariants:
// on every provisioning solve and disruption evaluation of the loop, on
// every binding of the kube-scheduler, and on the cluster after every
// event that changed it. Checking reads the run's state and changes none
// of it, so a checked run decides exactly as an unchecked one.
type checker struct {
	s *sim
	// seen are the violations recorded, by canonical form: one that
	// persists over many events is recorded once, when first seen.
	seen       map[string]bool
	generation uint64
	// held are the pods the run held at the last check; gone those a
	// scale-down or a departure deleted since: a pod of held that is
	// neither held now nor gone was lost.
	held, gone map[string]bool
}

func newChecker(s *sim) *checker {
	return &checker{s: s, seen: map[string]bool{}, held: map[string]bool{}, gone: map[string]bool{}}
}

// deleted notes a pod the run deletes for a reason (scale-down,
// departure).
func (c *checker) deleted(key string) { c.gone[key] = true }

func (c *checker) record(vs []invariants.Violation) {
	for _, v := range vs {
		key := v.String()
		if c.seen[key] || len(c.s.res.Violations) >= maxViolations {
			continue
		}
		c.seen[key] = true
		c.s.res.Violations = append(c.s.res.Violations, Violation{At: metav1.Duration{Duration: c.s.now.Sub(c.s.start)}, Violation: v})
	}
}

func (c *checker) planned(in scheduling.Input, r scheduling.Result, _ time.Time) {
	c.record(invariants.CheckPlan(in, r))
}

func (c *checker) evaluated(cl consolidation.Cluster, d consolidation.Decision, now time.Time) {
	c.record(invariants.CheckDisruption(cl, d, now))
}

// evicted checks evictions about to be granted together, on the cluster
// as it is before them: no PDB's allowance exceeded, no do-not-disrupt pod
// among them. Pods deleted with a node past its drain deadline are not
// evictions and are not checked.
func (c *checker) evicted(pods []*corev1.Pod) {
	s := c.s
	cl := consolidation.Cluster{Pending: s.pendingPods(), DaemonSets: s.daemonSets, PDBs: s.pdbs}
	for _, n := range s.Nodes(true) {
		cl.Nodes = append(cl.Nodes, &n.StateNode)
	}
	c.record(invariants.CheckEvictions(cl, pods, s.now))
}

// cluster checks the cluster after an event, when anything changed: no
// node overcommitted, and every pod the run holds (created, not deleted
// by a step or a departure) bound to one node or pending.
func (c *checker) cluster() {
	s := c.s
	if s.generation == c.generation {
		return
	}
	c.generation = s.generation
	cl := consolidation.Cluster{Pending: s.pendingPods(), DaemonSets: s.daemonSets}
	for _, n := range s.Nodes(true) {
		cl.Nodes = append(cl.Nodes, &n.StateNode)
	}
	keys := make([]string, 0, len(s.pods))
	held := make(map[string]bool, len(s.pods))
	for key, p := range s.pods {
		if !apis.IsDaemonSetPod(p.pod) && !apis.IsMirrorPod(p.pod) {
			keys = append(keys, key)
			held[key] = true
		}
	}
	var vs []invariants.Violation
	for key := range c.held {
		if !held[key] && !c.gone[key] {
			vs = append(vs, invariants.Violation{Rule: invariants.RuleConservation, Pod: key,
				Detail: "left the run without a scale-down or a departure deleting it"})
		}
	}
	slices.SortFunc(vs, func(a, b invariants.Violation) int { return cmp.Compare(a.Pod, b.Pod) })
	c.held, c.gone = held, map[string]bool{}
	c.record(append(vs, invariants.CheckCluster(cl, keys)...))
}
