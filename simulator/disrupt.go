package simulator

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/drift"
)

var disruptedTaint = corev1.Taint{Key: apis.Group + "/disrupted", Effect: corev1.TaintEffectNoSchedule}

// disruptState is the disruption controller's memory between polls.
type disruptState struct {
	// validating is a command found by the last poll and waiting out the
	// validation delay, which holds up the polls as Karpenter's controller
	// waits; executing are the commands whose replacements are launching,
	// as in Karpenter's orchestration queue: polls go on meanwhile, and
	// their candidates, cordoned, count against the budgets.
	validating *consolidation.Command
	executing  []*inFlight
	// lastGeneration and nextEval let a poll skip an evaluation that
	// cannot find anything new: nothing changed since the last empty one
	// and no time-based window has ended.
	lastGeneration uint64
	nextEval       time.Time
}

// inFlight is a command being executed.
type inFlight struct {
	cmd          consolidation.Command
	replacements []string
}

// disruptPoll is one pass of the disruption controller, every 10 s:
// expiration first (no budgets), then drift detection, then — unless a
// command is being validated — Karpenter's methods through
// consolidation.Evaluate.
func (s *sim) disruptPoll() {
	s.expire()
	s.detectDrift()
	if s.disrupt.validating != nil {
		return
	}
	if s.generation == s.disrupt.lastGeneration && s.now.Before(s.disrupt.nextEval) {
		return
	}
	d := consolidation.Evaluate(s.consolidationCluster(), s.now, s.cfg.Consolidation)
	if len(d.Commands) == 0 {
		s.disrupt.lastGeneration = s.generation
		s.disrupt.nextEval = s.nextTimedChange()
		return
	}
	cmd := d.Commands[0]
	switch cmd.Method {
	case consolidation.MethodDrift, consolidation.MethodStaticDrift:
		s.execute(cmd)
	default:
		// Consolidation is validated: the same decision must come out of a
		// fresh evaluation ValidationDelay later.
		s.disrupt.validating = &cmd
		s.q.schedule(event{at: s.now.Add(ValidationDelay), kind: evValidate})
	}
}

// nextTimedChange is the earliest moment an unchanged cluster may still get
// a different decision: a consolidateAfter window or a nomination ending,
// or disruptionRecheck from now.
func (s *sim) nextTimedChange() time.Time {
	next := s.now.Add(disruptionRecheck)
	consider := func(t time.Time) {
		if t.After(s.now) && t.Before(next) {
			next = t
		}
	}
	for _, n := range s.nodes {
		consider(n.nominatedAt.Add(consolidation.NominationWindow))
		np := s.pools[n.pool]
		if np == nil || np.Spec.Disruption.ConsolidateAfter.Duration == nil {
			continue
		}
		last := n.initializedAt
		if n.lastPodEventAt.After(last) {
			last = n.lastPodEventAt
		}
		consider(last.Add(*np.Spec.Disruption.ConsolidateAfter.Duration))
	}
	return next
}

// validate re-evaluates a consolidation command after the validation delay
// and executes the fresh command when it deletes the same nodes by the same
// method.
func (s *sim) validate() {
	want := s.disrupt.validating
	s.disrupt.validating = nil
	if want == nil {
		return
	}
	d := consolidation.Evaluate(s.consolidationCluster(), s.now, s.cfg.Consolidation)
	if len(d.Commands) > 0 && d.Commands[0].Method == want.Method && slices.Equal(d.Commands[0].Delete, want.Delete) {
		s.execute(d.Commands[0])
		return
	}
	s.decide(Decision{Kind: KindValidationFailed, Method: want.Method, Nodes: want.Delete,
		Reason: "the command no longer holds " + ValidationDelay.String() + " later: " + want.Reason})
	s.res.ValidationFailures++
}

// execute carries out a command: cordon the candidates, launch the
// replacements, and delete the candidates once every replacement is
// initialized (at once when there are none). A replacement that cannot be
// launched aborts the command and lifts the cordons.
func (s *sim) execute(cmd consolidation.Command) {
	var cands []*simNode
	for _, name := range cmd.Delete {
		if n := s.nodes[name]; n != nil {
			cands = append(cands, n)
		}
	}
	for _, n := range cands {
		s.cordon(n, true)
	}
	f := &inFlight{cmd: cmd}
	s.disrupt.executing = append(s.disrupt.executing, f)
	for _, r := range cmd.Replacements {
		n, err := s.launch(r, "replacement for "+cmd.Method, "replaces "+joinNames(cmd.Delete))
		if err != nil {
			s.abort(f, "a replacement could not be launched: "+err.Error())
			return
		}
		f.replacements = append(f.replacements, n.node.Name)
	}
	s.continueCommand()
}

// abort gives up a command: its candidates are uncordoned and stay.
// Replacements already launched stay too, for consolidation to reclaim.
func (s *sim) abort(f *inFlight, why string) {
	cmd := f.cmd
	s.disrupt.executing = slices.DeleteFunc(s.disrupt.executing, func(g *inFlight) bool { return g == f })
	for _, name := range cmd.Delete {
		if n := s.nodes[name]; n != nil {
			s.cordon(n, false)
		}
	}
	s.decide(Decision{Kind: KindDisruptionAborted, Method: cmd.Method, Nodes: cmd.Delete, Reason: why})
}

// continueCommand finishes, in the order they started, the executing
// commands whose replacements are all initialized.
func (s *sim) continueCommand() {
	for _, f := range slices.Clone(s.disrupt.executing) {
		s.continueOne(f)
	}
}

// continueOne deletes a command's candidates once all its replacements are
// initialized.
func (s *sim) continueOne(f *inFlight) {
	for _, r := range f.replacements {
		n := s.nodes[r]
		if n == nil {
			s.abort(f, "replacement "+r+" was deleted before it was initialized")
			return
		}
		if !n.initialized {
			return
		}
	}
	s.disrupt.executing = slices.DeleteFunc(s.disrupt.executing, func(g *inFlight) bool { return g == f })
	kind := KindDelete
	if len(f.replacements) > 0 {
		kind = KindReplace
	}
	evicted := 0
	for _, name := range f.cmd.Delete {
		if n := s.nodes[name]; n != nil {
			evicted += len(s.removeNode(n))
		}
	}
	s.res.DisruptionsByMethod[f.cmd.Method] += len(f.cmd.Delete)
	s.decide(Decision{Kind: kind, Method: f.cmd.Method, Nodes: f.cmd.Delete, Pods: evicted,
		Replacements: f.replacements, SavingsPerHour: f.cmd.SavingsPerHour, Reason: f.cmd.Reason})
}

// expire deletes every managed node whose NodeClaim has expired, budgets
// notwithstanding; its pods go back to pending.
func (s *sim) expire() {
	for _, n := range s.sortedNodes() {
		if n.claim == nil || n.cordoned {
			continue
		}
		expired, at := drift.Expiry(n.claim, s.now)
		if !expired {
			continue
		}
		pods := len(s.removeNode(n))
		s.res.DisruptionsByMethod[MethodExpiration]++
		s.decide(Decision{Kind: KindExpire, Method: MethodExpiration, Nodes: []string{n.node.Name}, Pods: pods,
			Reason: fmt.Sprintf("NodeClaim expired at %s (expireAfter)", at.UTC().Format(time.RFC3339))})
	}
}

// detectDrift runs drift.Check on every managed node after a NodePool or
// EC2NodeClass changed, and on nodes launched since.
func (s *sim) detectDrift() {
	if !s.driftDirty {
		return
	}
	s.driftDirty = false
	for _, n := range s.sortedNodes() {
		if n.claim == nil {
			continue
		}
		np := s.pools[n.pool]
		if np == nil {
			continue
		}
		ncName := np.Spec.Template.Spec.NodeClassRef.Name
		r := drift.Check(drift.Input{NodeClaim: n.claim, NodePool: np, NodeClass: s.classes[ncName],
			InstanceTypes: s.catalogs[ncName], Now: s.now})
		switch {
		case r.Drifted && n.drift == nil:
			n.drift = &consolidation.DriftStatus{Reason: string(r.Reason), Detail: r.Detail, Since: s.now}
			s.generation++
			s.decide(Decision{Kind: KindDrifted, Nodes: []string{n.node.Name}, Reason: string(r.Reason) + ": " + r.Detail})
		case !r.Drifted && n.drift != nil:
			n.drift = nil
			s.generation++
		}
	}
}

// stampClaim sets the hash annotations drift compares.
func stampClaim(c *apis.NodeClaim, np *apis.NodePool, nc *apis.EC2NodeClass) *apis.NodeClaim {
	return drift.Stamp(c, np, nc)
}
