package invariants

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/budgets"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/scheduling"
)

// CheckDisruption checks a disruption decision against the cluster it was
// made on, at now: every deleted node a managed node not already being
// deleted and without do-not-disrupt, none of its pods do-not-disrupt or
// protected by a PodDisruptionBudget that allows no disruption (drift of a
// NodeClaim with a terminationGracePeriod excepted); node repair's nodes,
// deleted or rebooted, may carry do-not-disrupt but not do-not-repair, and
// their pods may block a drain that has a deadline; no NodePool's budget
// for the reason exceeded by the commands together; no consolidation replacement as expensive as what
// it replaces; and every evicted pod's move a valid placement (as
// CheckPlan checks one) on the cluster the commands leave. It returns
// every violation, sorted; nil when there is none.
func CheckDisruption(c consolidation.Cluster, d consolidation.Decision, now time.Time) []Violation {
	if len(d.Commands) == 0 {
		return nil
	}
	byName := map[string]*consolidation.Node{}
	for _, n := range c.Nodes {
		if n != nil && n.Node != nil {
			byName[n.Node.Name] = n
		}
	}
	var out []Violation
	deleted := map[string]*consolidation.Node{}
	perPool := map[string]map[apis.DisruptionReason]int{}
	for _, cmd := range d.Commands {
		reason := reasonOf(cmd.Method)
		for _, name := range disrupted(cmd) {
			n := byName[name]
			vs := checkCandidate(name, n, cmd, now)
			out = append(out, vs...)
			if n == nil {
				continue
			}
			if deleted[name] != nil {
				out = append(out, Violation{Rule: RuleDisruptionCandidate, Node: name, Detail: "deleted by two commands"})
			}
			deleted[name] = n
			if slices.ContainsFunc(vs, func(v Violation) bool { return v.Rule == RuleDisruptionCandidate }) {
				continue // not a node budgets count
			}
			if cmd.Method == consolidation.MethodRepair && !n.Node.Initialized {
				continue // repairing an uninitialized node takes no budget
			}
			pool := n.Node.NodePool
			if perPool[pool] == nil {
				perPool[pool] = map[apis.DisruptionReason]int{}
			}
			perPool[pool][reason]++
		}
		out = append(out, checkPrice(c, cmd, byName)...)
	}
	out = append(out, checkBudgets(c, perPool, now)...)
	out = append(out, checkPDBCandidates(c, d, byName)...)
	out = append(out, checkMoves(c, d, deleted)...)
	return sorted(out)
}

// reasonOf is the disruption reason budgets count a method's commands
// under.
func reasonOf(method string) apis.DisruptionReason {
	switch method {
	case consolidation.MethodEmptiness:
		return apis.DisruptionReasonEmpty
	case consolidation.MethodDrift, consolidation.MethodStaticDrift:
		return apis.DisruptionReasonDrifted
	case consolidation.MethodRepair:
		return apis.DisruptionReasonUnhealthy
	}
	return apis.DisruptionReasonUnderutilized
}

// disrupted are the nodes a command deletes, or reboots in place.
func disrupted(cmd consolidation.Command) []string {
	if cmd.Reboot != "" {
		return append(slices.Clip(cmd.Delete), cmd.Reboot)
	}
	return cmd.Delete
}

// boundedRepair reports a node repair command whose drain has a deadline:
// only such a command may take a node whose pods would block a graceful
// drain.
func boundedRepair(cmd consolidation.Command) bool {
	return cmd.Method == consolidation.MethodRepair && cmd.TerminationGracePeriod != nil
}

func isDrift(method string) bool {
	return method == consolidation.MethodDrift || method == consolidation.MethodStaticDrift
}

func checkCandidate(name string, n *consolidation.Node, cmd consolidation.Command, now time.Time) []Violation {
	method := cmd.Method
	bad := func(rule, detail string) Violation {
		v := Violation{Rule: rule, Node: name, Detail: detail}
		if n != nil {
			v.NodePool = n.Node.NodePool
		}
		return v
	}
	switch {
	case n == nil:
		return []Violation{bad(RuleDisruptionCandidate, "deleted by "+method+" but not in the cluster")}
	case n.NodeClaim == nil:
		return []Violation{bad(RuleDisruptionCandidate, "deleted by "+method+" but Karpenter does not manage it")}
	case n.Deleting:
		return []Violation{bad(RuleDisruptionCandidate, "deleted by "+method+" while already being deleted")}
	case rebooting(n):
		return []Violation{bad(RuleDisruptionCandidate, "deleted by "+method+" while its NodeClaim says it is rebooting")}
	}
	var out []Violation
	switch {
	case method == consolidation.MethodRepair && n.Annotations[apis.AnnotationDoNotRepair] == "true":
		// Node repair ignores do-not-disrupt on the node; this is its veto.
		out = append(out, bad(RuleDoNotDisrupt, "repaired although the node is annotated do-not-repair"))
	case method != consolidation.MethodRepair && n.Annotations[apis.AnnotationDoNotDisrupt] == "true":
		out = append(out, bad(RuleDoNotDisrupt, "deleted by "+method+" although the node is annotated do-not-disrupt"))
	}
	if (isDrift(method) && n.NodeClaim.Spec.TerminationGracePeriod != nil) || boundedRepair(cmd) {
		return out
	}
	for _, p := range n.Node.Pods {
		if p == nil || !apis.IsActive(p) {
			continue
		}
		if blocked, why := apis.DoNotDisrupt(p, now); blocked {
			v := bad(RuleDoNotDisrupt, "evicted by "+method+": "+why)
			v.Pod = apis.PodKey(p)
			out = append(out, v)
		}
	}
	return out
}

// rebooting reports a Rebooting condition True on the node's NodeClaim
// (Karpenter v1.15's node repair).
func rebooting(n *consolidation.Node) bool {
	return slices.ContainsFunc(n.NodeClaim.Status.Conditions, func(c metav1.Condition) bool {
		return c.Type == "Rebooting" && c.Status == metav1.ConditionTrue
	})
}

// checkBudgets reports a NodePool whose nodes the decision deletes past
// what its budgets allow for the reason: managed nodes, initialized or
// rebooting, that are not terminating count; those deleting, rebooting or
// NotReady already disrupt.
func checkBudgets(c consolidation.Cluster, perPool map[string]map[apis.DisruptionReason]int, now time.Time) []Violation {
	var out []Violation
	for _, pool := range sortedKeys(perPool) {
		i := slices.IndexFunc(c.NodePools, func(p scheduling.Pool) bool { return p.NodePool != nil && p.NodePool.Name == pool })
		if i < 0 {
			out = append(out, Violation{Rule: RuleBudget, NodePool: pool, Detail: "nodes of a NodePool that is not in the cluster are disrupted"})
			continue
		}
		np := c.NodePools[i].NodePool
		total, disrupting, notReady := 0, 0, 0
		for _, n := range c.Nodes {
			if n == nil || n.NodeClaim == nil || n.Node.NodePool != pool || (!n.Node.Initialized && !rebooting(n)) || n.NodeClaim.DeletionTimestamp != nil {
				continue
			}
			total++
			switch {
			case n.Deleting || rebooting(n):
				disrupting++
			case n.NotReady:
				notReady++
			}
		}
		for reason, count := range perPool[pool] {
			a := budgets.Allowed(np.Spec.Disruption.Budgets, reason, total, now)
			// NotReady nodes do not count against the Unhealthy budget:
			// they are what node repair repairs.
			disrupting := disrupting
			if reason != apis.DisruptionReasonUnhealthy {
				disrupting += notReady
			}
			if left := a.Left(disrupting); left != budgets.Unlimited && count > left {
				out = append(out, Violation{Rule: RuleBudget, NodePool: pool,
					Detail: fmt.Sprintf("%d nodes disrupted for %s, the budgets allow %s of %d nodes with %d already disrupting", count, reason, a, total, disrupting)})
			}
		}
	}
	return out
}

// pdbState is a PodDisruptionBudget of a cluster at one instant: the pods
// it selects and how many of them it allows evicted.
type pdbState struct {
	key            string
	selected       []*corev1.Pod
	allows         int32
	evictUnhealthy bool
}

// readPDBs reads the cluster's PDBs, in the cluster's order; one whose
// selector cannot be read selects nothing.
func readPDBs(c consolidation.Cluster) []pdbState {
	var all []*corev1.Pod
	bound := map[*corev1.Pod]bool{}
	for _, n := range c.Nodes {
		if n == nil || n.Node == nil {
			continue
		}
		for _, p := range n.Node.Pods {
			all = append(all, p)
			bound[p] = true
		}
	}
	all = append(all, c.Pending...)
	var out []pdbState
	for _, b := range c.PDBs {
		if b == nil {
			continue
		}
		sel, err := metav1.LabelSelectorAsSelector(b.Spec.Selector)
		if err != nil {
			continue
		}
		st := pdbState{key: apis.NamespaceOf(b.Namespace) + "/" + b.Name,
			evictUnhealthy: b.Spec.UnhealthyPodEvictionPolicy != nil && *b.Spec.UnhealthyPodEvictionPolicy == policyv1.AlwaysAllow}
		for _, p := range all {
			if p != nil && apis.NamespaceOf(p.Namespace) == apis.NamespaceOf(b.Namespace) && !apis.IsTerminal(p) && sel.Matches(labels.Set(p.Labels)) {
				st.selected = append(st.selected, p)
			}
		}
		st.allows = pdbAllows(b, st.selected, bound)
		out = append(out, st)
	}
	return out
}

// evictable says whether evicting the pod is the PDB's business: an active
// pod a drain evicts (not a DaemonSet or mirror pod, not tolerating the
// karpenter.sh/disrupted taint, which stays with its node), and not an
// unready pod the PDB lets go regardless.
func (b pdbState) evictable(p *corev1.Pod) bool {
	if p == nil || !apis.IsActive(p) || apis.IsDaemonSetPod(p) || apis.IsMirrorPod(p) || !slices.Contains(b.selected, p) {
		return false
	}
	taint := apis.DisruptedTaint()
	if slices.ContainsFunc(p.Spec.Tolerations, func(t corev1.Toleration) bool { return tolerated(t, taint) }) {
		return false
	}
	return !(b.evictUnhealthy && unready(p))
}

// checkPDBCandidates reports a deleted node with a pod whose PDB allows no
// disruption now: Karpenter takes no such node as a candidate (drift of a
// NodeClaim with a terminationGracePeriod excepted), for its drain would
// wait on the PDB. A PDB that allows some but fewer than the node's pods is
// no reason to refuse the node: the drain evicts them as the PDB allows,
// which CheckEvictions checks one instant at a time.
func checkPDBCandidates(c consolidation.Cluster, d consolidation.Decision, byName map[string]*consolidation.Node) []Violation {
	pdbs := readPDBs(c)
	var out []Violation
	for _, cmd := range d.Commands {
		for _, name := range disrupted(cmd) {
			n := byName[name]
			if n == nil || (isDrift(cmd.Method) && n.NodeClaim != nil && n.NodeClaim.Spec.TerminationGracePeriod != nil) || boundedRepair(cmd) {
				continue
			}
			for _, p := range n.Node.Pods {
				for _, b := range pdbs {
					if b.evictable(p) && b.allows <= 0 {
						out = append(out, Violation{Rule: RulePDB, PDB: b.key, Pod: apis.PodKey(p), Node: name,
							Detail: fmt.Sprintf("%s takes node %s although its pod is protected by a PDB that allows no disruption now", cmd.Method, name)})
					}
				}
			}
		}
	}
	return out
}

// CheckEvictions checks pods evicted together at now through the Eviction
// API, on the cluster c as it was just before: none with an active
// do-not-disrupt annotation, none selected by more than one PDB, and no
// PodDisruptionBudget's allowance exceeded by the pods it selects. Pods
// deleted because a drain's deadline passed are not evictions and are not
// to be checked here. It returns every violation, sorted; nil when there is
// none.
func CheckEvictions(c consolidation.Cluster, evicted []*corev1.Pod, now time.Time) []Violation {
	var out []Violation
	for _, p := range evicted {
		if p == nil {
			continue
		}
		if blocked, why := apis.DoNotDisrupt(p, now); blocked {
			out = append(out, Violation{Rule: RuleDoNotDisrupt, Pod: apis.PodKey(p), Node: p.Spec.NodeName, Detail: "evicted by a drain although its " + apis.AnnotationDoNotDisrupt + " annotation is " + why})
		}
	}
	pdbs := readPDBs(c)
	covering := map[*corev1.Pod][]string{}
	for _, b := range pdbs {
		var keys []string
		for _, p := range evicted {
			if b.evictable(p) {
				keys = append(keys, apis.PodKey(p))
				covering[p] = append(covering[p], b.key)
			}
		}
		if int32(len(keys)) > b.allows {
			slices.Sort(keys)
			out = append(out, Violation{Rule: RulePDB, PDB: b.key, Pod: keys[0],
				Detail: fmt.Sprintf("%d of its pods evicted at once (%s), it allows %d", len(keys), strings.Join(keys, ", "), b.allows)})
		}
	}
	for _, p := range evicted {
		if keys := covering[p]; len(keys) > 1 {
			out = append(out, Violation{Rule: RulePDB, Pod: apis.PodKey(p), PDB: keys[0],
				Detail: "evicted although selected by several PDBs (" + strings.Join(keys, ", ") + "), which the Eviction API refuses"})
		}
	}
	return sorted(out)
}

// pdbAllows is how many of a PDB's pods may be evicted: its status when the
// disruption controller wrote one, else healthy less desired, where healthy
// pods are bound, not terminating and not unready, and desired comes from
// minAvailable or maxUnavailable over the pods it selects (percentages
// rounded up).
func pdbAllows(b *policyv1.PodDisruptionBudget, selected []*corev1.Pod, bound map[*corev1.Pod]bool) int32 {
	if b.Status.ObservedGeneration != 0 {
		return b.Status.DisruptionsAllowed
	}
	expected := len(selected)
	healthy := 0
	for _, p := range selected {
		if bound[p] && !apis.IsTerminating(p) && !unready(p) {
			healthy++
		}
	}
	var desired int
	switch s := b.Spec; {
	case s.MaxUnavailable != nil:
		n, err := intstr.GetScaledValueFromIntOrPercent(s.MaxUnavailable, expected, true)
		if err != nil {
			return 0
		}
		desired = max(expected-n, 0)
	case s.MinAvailable != nil:
		n, err := intstr.GetScaledValueFromIntOrPercent(s.MinAvailable, expected, true)
		if err != nil {
			return 0
		}
		desired = n
	default:
		return 0
	}
	return int32(max(healthy-desired, 0))
}

func unready(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status != corev1.ConditionTrue
		}
	}
	return false
}

// checkPrice reports a consolidation replacement that does not save: its
// launch price is not below what the deleted nodes cost. Drift and node
// repair may cost more; a node whose price is unknown is not checked.
func checkPrice(c consolidation.Cluster, cmd consolidation.Command, byName map[string]*consolidation.Node) []Violation {
	if isDrift(cmd.Method) || cmd.Method == consolidation.MethodRepair || len(cmd.Replacements) == 0 {
		return nil
	}
	source := 0.0
	for _, name := range cmd.Delete {
		n := byName[name]
		if n == nil {
			return nil
		}
		price, ok := nodePrice(c, n)
		if !ok {
			return nil
		}
		source += price
	}
	launch := 0.0
	var names []string
	for _, r := range cmd.Replacements {
		launch += r.PricePerHour
		names = append(names, r.Name)
	}
	if launch >= source {
		return []Violation{{Rule: RuleReplacementPrice, Node: strings.Join(names, ","), NodePool: cmd.Replacements[0].NodePool,
			Detail: fmt.Sprintf("%s replaces %s ($%.4f/h) with $%.4f/h", cmd.Method, strings.Join(cmd.Delete, ", "), source, launch)}}
	}
	return nil
}

// nodePrice is a node's offering price in its NodePool's catalog.
func nodePrice(c consolidation.Cluster, n *consolidation.Node) (float64, bool) {
	l := n.Node.Labels
	for _, p := range c.NodePools {
		if p.NodePool == nil || p.NodePool.Name != n.Node.NodePool {
			continue
		}
		it, ok := p.InstanceTypes.Get(l[apis.LabelInstanceType])
		if !ok {
			return 0, false
		}
		for _, o := range it.Offerings {
			if o.Zone == l[apis.LabelTopologyZone] && o.CapacityType == l[apis.LabelCapacityType] {
				return o.Price, true
			}
		}
	}
	return 0, false
}

// checkMoves checks the commands' moves as a plan on the cluster they
// leave: the deleted nodes gone, the replacements launched, each moved pod
// bound where its move says, nodes already being deleted left out. A reschedulable pod of a deleted node without
// a move is lost, for the methods that simulate where pods go.
func checkMoves(c consolidation.Cluster, d consolidation.Decision, deleted map[string]*consolidation.Node) []Violation {
	in := scheduling.Input{DaemonSets: c.DaemonSets}
	for _, p := range c.NodePools {
		in.NodePools = append(in.NodePools, scheduling.Pool{NodePool: p.NodePool, InstanceTypes: p.InstanceTypes})
	}
	// Pods of nodes already being deleted are simulated again with the
	// candidates', as pending pods are: where they go is not part of the
	// command.
	unknown := slices.Clone(c.Pending)
	for _, n := range c.Nodes {
		switch {
		case n == nil || n.Node == nil || deleted[n.Node.Name] != nil:
		case n.Deleting:
			unknown = append(unknown, n.Node.Pods...)
		default:
			in.Nodes = append(in.Nodes, n.Node)
		}
	}
	var res scheduling.Result
	var out []Violation
	claims := map[string]int{}
	for _, cmd := range d.Commands {
		for _, r := range cmd.Replacements {
			r.Pods = nil
			claims[r.Name] = len(res.NodeClaims)
			res.NodeClaims = append(res.NodeClaims, r)
		}
	}
	moved := map[string]bool{}
	for _, cmd := range d.Commands {
		pods := map[string]*corev1.Pod{}
		for _, name := range cmd.Delete {
			if n := deleted[name]; n != nil {
				for _, p := range n.Node.Pods {
					if p != nil && apis.IsActive(p) && !apis.IsDaemonSetPod(p) && !apis.IsMirrorPod(p) {
						pods[apis.PodKey(p)] = p
					}
				}
			}
		}
		for _, m := range cmd.Moves {
			p := pods[m.Pod]
			if p == nil {
				out = append(out, Violation{Rule: RuleConservation, Pod: m.Pod, Node: m.To, Detail: "moved by " + cmd.Method + " but not a pod of a node it deletes"})
				continue
			}
			moved[m.Pod] = true
			in.Pods = append(in.Pods, p)
			if i, ok := claims[m.To]; ok {
				res.NodeClaims[i].Pods = append(res.NodeClaims[i].Pods, m.Pod)
			} else {
				res.Bindings = append(res.Bindings, scheduling.Binding{Pod: m.Pod, Node: m.To})
			}
		}
		if cmd.Method == consolidation.MethodEmptiness || cmd.Method == consolidation.MethodStaticDrift {
			continue
		}
		for _, key := range sortedKeys(pods) {
			if !moved[key] && cmd.TerminateFirst {
				// Provisioning places it once the node is gone.
				unknown = append(unknown, pods[key])
				continue
			}
			if !moved[key] {
				out = append(out, Violation{Rule: RuleConservation, Pod: key, Detail: cmd.Method + " evicts it without saying where it goes"})
			}
		}
	}
	return append(out, checkPlan(in, res, unknown)...)
}
