package controller

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/cloud"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/drift"
	"github.com/karpsim/karpsim/scheduling"
)

// disruptState is the disruption controller's memory between polls.
type disruptState struct {
	// validating is a command found by a poll and waiting out the
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
	// started is when the command was executed: its candidates cordoned
	// and its replacements launched.
	started time.Time
}

// Karpenter's orchestration queue gives up a command whose replacements
// are not all initialized within its retry duration: 80 ms for every
// candidate in the queue, at least 10 minutes and at most an hour.
const (
	CommandTimeoutMin          = 10 * time.Minute
	CommandTimeoutMax          = time.Hour
	commandTimeoutPerCandidate = 80 * time.Millisecond
)

// CommandTimeout is how long the queue waits for a command's replacements
// to initialize while it holds queued candidates, all commands together.
func CommandTimeout(queued int) time.Duration {
	if queued >= int(CommandTimeoutMax/commandTimeoutPerCandidate) {
		return CommandTimeoutMax
	}
	return max(time.Duration(queued)*commandTimeoutPerCandidate, CommandTimeoutMin)
}

// timeOut aborts, as Karpenter's queue does, every executing command whose
// replacements are not all initialized CommandTimeout after it started:
// its candidates are uncordoned and stay, its replacements stay too.
func (c *Controller) timeOut(ctx context.Context) {
	queued := 0
	for _, f := range c.disrupt.executing {
		queued += len(f.cmd.Delete)
	}
	limit := CommandTimeout(queued)
	now := c.now()
	for _, f := range slices.Clone(c.disrupt.executing) {
		if now.Sub(f.started) > limit {
			c.abort(ctx, f, fmt.Sprintf("the replacements were not initialized within %v, the queue's timeout", limit))
		}
	}
}

// poll is one pass of the disruption controller: expiration first (no
// budgets), then drift detection, then — unless a command is being
// validated — Karpenter's methods through consolidation.Evaluate.
func (c *Controller) poll(ctx context.Context) {
	c.forgetGone()
	c.timeOut(ctx)
	c.expire(ctx)
	c.detectDrift()
	if c.disrupt.validating != nil {
		return
	}
	now := c.now()
	if c.generationNow() == c.disrupt.lastGeneration && now.Before(c.disrupt.nextEval) {
		return
	}
	c.decide(ctx, c.evaluate(c.consolidationCluster(), c.cfg.Options, now), now)
}

// decide acts on an evaluation: drift and repair commands at once (as
// Karpenter, which validates only consolidation), consolidation commands
// after validation.
func (c *Controller) decide(ctx context.Context, d consolidation.Decision, now time.Time) {
	if len(d.Commands) == 0 {
		c.disrupt.lastGeneration = c.generationNow()
		c.disrupt.nextEval = c.nextTimedChange(now)
		return
	}
	cmd := d.Commands[0]
	if cmd.Reboot != "" {
		// A reboot (the AWS provider's RebootForRepair gate) restarts the
		// node in place, which the loop does not model: it says so, and
		// evaluates again as after an evaluation that found nothing (when
		// the cluster changes, or DisruptionRecheck later).
		c.record(Decision{Kind: KindDisruptionAborted, Method: cmd.Method, Nodes: []string{cmd.Reboot},
			Reason: "node repair would reboot the node in place, which karpsim's loop does not model: " + cmd.Reason})
		c.disrupt.lastGeneration = c.generationNow()
		c.disrupt.nextEval = c.nextTimedChange(now)
		return
	}
	switch cmd.Method {
	case consolidation.MethodDrift, consolidation.MethodStaticDrift, consolidation.MethodRepair:
		c.execute(ctx, cmd)
	default:
		// Consolidation is validated: the same decision must come out of a
		// fresh evaluation ValidationDelay later.
		c.disrupt.validating = &cmd
		c.cfg.Timers.WakeAt(now.Add(c.t.ValidationDelay), WakeValidate)
	}
}

// forgetGone drops what the loop remembers of nodes that left the cluster
// other than through it.
func (c *Controller) forgetGone() {
	for name := range c.nominated {
		if c.cfg.Cluster.Node(name) == nil {
			delete(c.nominated, name)
		}
	}
	for name := range c.drift {
		if c.cfg.Cluster.Node(name) == nil {
			delete(c.drift, name)
		}
	}
	for name := range c.draining {
		if c.cfg.Cluster.Node(name) == nil {
			delete(c.draining, name)
		}
	}
}

// nextTimedChange is the earliest moment an unchanged cluster may still get
// a different decision: a consolidateAfter window or a nomination ending,
// or DisruptionRecheck from now.
func (c *Controller) nextTimedChange(now time.Time) time.Time {
	next := now.Add(c.t.DisruptionRecheck)
	consider := func(t time.Time) {
		if t.After(now) && t.Before(next) {
			next = t
		}
	}
	after := map[string]time.Duration{}
	for _, np := range c.cfg.Cluster.NodePools() {
		if d := np.Spec.Disruption.ConsolidateAfter.Duration; d != nil {
			after[np.Name] = *d
		}
	}
	for _, n := range c.cfg.Cluster.Nodes(false) {
		consider(c.nominated[n.Name()].Add(c.t.NominationWindow))
		if m := c.cfg.Options.NodeRepair; m != nil && n.Health != nil {
			// A condition's toleration ending makes the node a repair
			// candidate.
			for _, match := range m.Match(n.Health.Conditions, n.Health.Created) {
				consider(match.EligibleAt(time.Time{}))
			}
		}
		d, ok := after[n.Node.NodePool]
		if !ok {
			continue
		}
		last := n.InitializedAt
		if n.LastPodEventAt.After(last) {
			last = n.LastPodEventAt
		}
		consider(last.Add(d))
	}
	return next
}

// validate re-evaluates a consolidation command after the validation delay,
// starting with the command's method, and executes the fresh command when
// it deletes the same nodes by the same method. Emptiness is the exception,
// as in Karpenter's EmptinessValidator: the nodes of the command that are
// still empty and may still go are deleted, the others stay. When the
// command fails, the methods after its own are tried at once.
func (c *Controller) validate(ctx context.Context) {
	want := c.disrupt.validating
	c.disrupt.validating = nil
	if want == nil {
		return
	}
	cl := c.consolidationCluster()
	emptiness := want.Method == consolidation.MethodEmptiness
	if emptiness {
		cl.Nodes = onlyCandidates(cl.Nodes, want.Delete)
	}
	// The command is validated by its own method: earlier methods finding
	// something new does not invalidate it.
	opts := c.cfg.Options
	opts.From = want.Method
	d := c.evaluate(cl, opts, c.now())
	if len(d.Commands) > 0 && d.Commands[0].Method == want.Method && (emptiness || slices.Equal(d.Commands[0].Delete, want.Delete)) {
		c.execute(ctx, d.Commands[0])
		return
	}
	c.record(Decision{Kind: KindValidationFailed, Method: want.Method, Nodes: want.Delete,
		Reason: "the command no longer holds " + c.t.ValidationDelay.String() + " later: " + want.Reason})
	// Karpenter goes on to the methods after the failed one in the same
	// pass, rather than waiting for the next poll.
	if next := consolidation.MethodAfter(want.Method); next != "" {
		opts.From = next
		now := c.now()
		c.decide(ctx, c.evaluate(c.consolidationCluster(), opts, now), now)
	}
}

// execute carries out a command: cordon the candidates, launch the
// replacements, and delete the candidates once every replacement is
// initialized (at once when there are none). A replacement that cannot be
// launched aborts the command and lifts the cordons.
func (c *Controller) execute(ctx context.Context, cmd consolidation.Command) {
	f := &inFlight{cmd: cmd, started: c.now()}
	c.disrupt.executing = append(c.disrupt.executing, f)
	for _, name := range cmd.Delete {
		if n := c.cfg.Cluster.Node(name); n != nil {
			if err := c.cfg.Cluster.Cordon(ctx, n, true); err != nil {
				c.abort(ctx, f, "cordoning "+name+" failed: "+err.Error())
				return
			}
		}
	}
	for _, r := range cmd.Replacements {
		n, err := c.launch(ctx, r, "replacement for "+cmd.Method, "replaces "+strings.Join(cmd.Delete, ", "))
		if err != nil {
			c.abort(ctx, f, "a replacement could not be launched: "+err.Error())
			return
		}
		f.replacements = append(f.replacements, n.Name())
	}
	c.continueCommands(ctx)
}

// abort gives up a command: its candidates are uncordoned and stay.
// Replacements already launched stay too, for consolidation to reclaim.
func (c *Controller) abort(ctx context.Context, f *inFlight, why string) {
	cmd := f.cmd
	c.disrupt.executing = slices.DeleteFunc(c.disrupt.executing, func(g *inFlight) bool { return g == f })
	for _, name := range cmd.Delete {
		// A candidate being drained meanwhile (a spot interruption) keeps
		// its taint.
		if n := c.cfg.Cluster.Node(name); n != nil && n.Deleting && c.draining[name] == nil {
			// A failed uncordon leaves the taint for the next command.
			_ = c.cfg.Cluster.Cordon(ctx, n, false)
		}
	}
	c.record(Decision{Kind: KindDisruptionAborted, Method: cmd.Method, Nodes: cmd.Delete, Reason: why})
}

// continueCommands finishes, in the order they started, the executing
// commands whose replacements are all initialized.
func (c *Controller) continueCommands(ctx context.Context) {
	for _, f := range slices.Clone(c.disrupt.executing) {
		c.continueOne(ctx, f)
	}
}

// continueOne deletes a command's candidates once all its replacements are
// initialized.
func (c *Controller) continueOne(ctx context.Context, f *inFlight) {
	for _, r := range f.replacements {
		n := c.cfg.Cluster.Node(r)
		if n == nil {
			c.abort(ctx, f, "replacement "+r+" was deleted before it was initialized")
			return
		}
		if !n.Initialized {
			return
		}
	}
	c.disrupt.executing = slices.DeleteFunc(c.disrupt.executing, func(g *inFlight) bool { return g == f })
	kind := KindDelete
	if len(f.replacements) > 0 {
		kind = KindReplace
	}
	evicted := 0
	for _, name := range f.cmd.Delete {
		if n := c.cfg.Cluster.Node(name); n != nil {
			evicted += c.remove(ctx, n, time.Time{})
		}
	}
	c.record(Decision{Kind: kind, Method: f.cmd.Method, Nodes: f.cmd.Delete, Pods: evicted,
		Replacements: f.replacements, SavingsPerHour: f.cmd.SavingsPerHour, Reason: f.cmd.Reason})
}

// expire deletes every managed node whose NodeClaim has expired, budgets
// notwithstanding; its pods go back to pending.
func (c *Controller) expire(ctx context.Context) {
	now := c.now()
	for _, n := range c.cfg.Cluster.Nodes(false) {
		if n.NodeClaim == nil || n.Deleting {
			continue
		}
		expired, at := drift.Expiry(n.NodeClaim, now)
		if !expired {
			continue
		}
		pods := c.remove(ctx, n, time.Time{})
		c.record(Decision{Kind: KindExpire, Method: MethodExpiration, Nodes: []string{n.Name()}, Pods: pods,
			Reason: fmt.Sprintf("NodeClaim expired at %s (expireAfter)", at.UTC().Format(time.RFC3339))})
	}
}

// detectDrift runs Karpenter's drift checks and the provider's
// (provider.Provider.Drift) on every managed node after a NodePool or node
// class changed.
func (c *Controller) detectDrift() {
	if !c.driftDirty {
		return
	}
	c.driftDirty = false
	now := c.now()
	pools := c.cfg.Cluster.NodePools()
	for _, n := range c.cfg.Cluster.Nodes(false) {
		if n.NodeClaim == nil {
			continue
		}
		i := slices.IndexFunc(pools, func(np *apis.NodePool) bool { return np.Name == n.Node.NodePool })
		if i < 0 {
			continue
		}
		np := pools[i]
		className := np.Spec.Template.Spec.NodeClassRef.Name
		in := drift.Input{NodeClaim: n.NodeClaim, NodePool: np, KubeletVersion: n.KubeletVersion,
			InstanceTypes: c.cfg.Cluster.Catalog(className), Now: now}
		var r drift.Result
		if p, ok := c.cfg.Providers.For(np.Spec.Template.Spec.NodeClassRef); ok {
			r = p.Drift(in, c.cfg.Cluster.NodeClass(className))
		} else {
			r = drift.Check(in)
		}
		name := n.Name()
		switch {
		case r.Drifted && c.drift[name] == nil:
			c.drift[name] = &consolidation.DriftStatus{Reason: string(r.Reason), Detail: r.Detail, Since: now}
			c.generation++
			c.record(Decision{Kind: KindDrifted, Nodes: []string{name}, Reason: string(r.Reason) + ": " + r.Detail})
		case !r.Drifted && c.drift[name] != nil:
			delete(c.drift, name)
			c.generation++
		}
	}
}

// Interrupted handles a spot interruption notice for a node as Karpenter's
// interruption controller does: the offering is marked unavailable, the
// node cordoned, drained and deleted. Its pods go pending and are
// provisioned for again. now is when the notice is handled.
func (c *Controller) Interrupted(ctx context.Context, n *Node, notice cloud.Interruption, now time.Time) {
	c.at = now
	c.unavailable.MarkUnavailable(n.Instance.CapacityType, n.Instance.InstanceType, n.Instance.Zone, c.now())
	if err := c.cfg.Cluster.Cordon(ctx, n, true); err != nil {
		c.record(Decision{Kind: KindDeleteFailed, Nodes: []string{n.Name()}, Reason: "cordon: " + err.Error()})
	}
	// The instance is gone at the end of the notice: the drain cannot
	// wait past it.
	pods := c.remove(ctx, n, notice.TerminateAt)
	c.record(Decision{Kind: KindInterruption, Method: MethodInterruption, Nodes: []string{n.Name()}, Pods: pods,
		InstanceType: n.Instance.InstanceType, Zone: n.Instance.Zone, CapacityType: n.Instance.CapacityType,
		Reason: fmt.Sprintf("spot interruption notice, termination at +%v: cordoned, drained and deleted; offering marked unavailable",
			notice.TerminateAt.Sub(notice.NoticeAt))})
}

// evaluate is one disruption evaluation, reported to Config.Evaluated. It
// carries the NodePools single-node consolidation timed out on from one
// evaluation to the next, as Karpenter's controller does.
func (c *Controller) evaluate(cl consolidation.Cluster, opts consolidation.Options, now time.Time) consolidation.Decision {
	if opts.TimedOutNodePools == nil {
		opts.TimedOutNodePools = c.timedOutPools
	}
	d := consolidation.Evaluate(cl, now, opts)
	c.timedOutPools = d.TimedOutNodePools
	if c.cfg.Evaluated != nil {
		c.cfg.Evaluated(cl, d, now)
	}
	return d
}

// consolidationCluster is the cluster as consolidation.Evaluate sees it:
// the nodes' StateNodes as they are, with the loop's nominations and drift
// set on them.
// onlyCandidates returns copies of the nodes in which every node not named
// carries karpenter.sh/do-not-disrupt, so that no method may take it; the
// nodes themselves are not changed.
func onlyCandidates(nodes []*consolidation.Node, names []string) []*consolidation.Node {
	out := make([]*consolidation.Node, len(nodes))
	for i, n := range nodes {
		out[i] = n
		if n.Node == nil || slices.Contains(names, n.Node.Name) {
			continue
		}
		kept := *n
		kept.Annotations = maps.Clone(n.Annotations)
		if kept.Annotations == nil {
			kept.Annotations = map[string]string{}
		}
		kept.Annotations[apis.AnnotationDoNotDisrupt] = "true"
		out[i] = &kept
	}
	return out
}

func (c *Controller) consolidationCluster() consolidation.Cluster {
	cl := c.cfg.Cluster
	nodes := cl.Nodes(true)
	out := consolidation.Cluster{
		Nodes:      make([]*consolidation.Node, 0, len(nodes)),
		Pending:    slices.Concat(cl.Pending(), c.bufferPods()),
		DaemonSets: cl.DaemonSets(),
		PDBs:       cl.PDBs(),
	}
	for _, n := range nodes {
		n.NominatedAt, n.Drift, n.BufferPods = c.nominated[n.Name()], c.drift[n.Name()], c.bufferNodes[n.Name()]
		out.Nodes = append(out.Nodes, &n.StateNode)
	}
	pools := c.nodePools(c.now())
	out.NodePools = make([]scheduling.Pool, 0, len(pools))
	for _, p := range pools {
		out.NodePools = append(out.NodePools, scheduling.Pool{NodePool: p.NodePool, InstanceTypes: p.InstanceTypes})
	}
	return out
}
