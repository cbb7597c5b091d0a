package invariants

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The rules a Violation can name.
const (
	// RuleOvercommit: a node's or NodeClaim's pods (DaemonSet overhead
	// included) request more of a resource than it has allocatable, or
	// more pods than its max pods.
	RuleOvercommit = "overcommit"
	// RuleNodeSelector: a pod is placed on a node its nodeSelector does not
	// match.
	RuleNodeSelector = "node-selector"
	// RuleNodeAffinity: a pod is placed on a node none of its required node
	// affinity terms matches.
	RuleNodeAffinity = "node-affinity"
	// RuleTaints: a pod is placed on a node with a NoSchedule or NoExecute
	// taint it does not tolerate.
	RuleTaints = "taints"
	// RulePodAffinity: a pod is placed where no pod its required pod
	// affinity selects runs in the same topology domain.
	RulePodAffinity = "pod-affinity"
	// RulePodAntiAffinity: two pods share a topology domain against a
	// required anti-affinity term of either.
	RulePodAntiAffinity = "pod-anti-affinity"
	// RuleTopologySpread: a DoNotSchedule topology spread constraint's
	// skew exceeds maxSkew after a placement.
	RuleTopologySpread = "topology-spread"
	// RuleNodePoolRequirements: a NodeClaim's launch choice breaks its
	// NodePool's requirements or minValues.
	RuleNodePoolRequirements = "nodepool-requirements"
	// RuleInstanceType: a launched instance type is not one the claim
	// allows, or its offering is not available or does not exist.
	RuleInstanceType = "instance-type"
	// RuleNodePoolLimits: a NodePool's nodes have more capacity than its
	// limits allow.
	RuleNodePoolLimits = "nodepool-limits"
	// RuleBudget: a disruption deletes more of a NodePool's nodes than its
	// disruption budgets allow.
	RuleBudget = "disruption-budget"
	// RulePDB: evictions granted at one instant exceed what a
	// PodDisruptionBudget allows then, or a disruption takes a node whose
	// pod a PDB allowing no disruption protects.
	RulePDB = "pdb"
	// RuleDoNotDisrupt: a voluntary disruption evicts a do-not-disrupt pod
	// or deletes a do-not-disrupt node.
	RuleDoNotDisrupt = "do-not-disrupt"
	// RuleReplacementPrice: a consolidation replacement costs at least as
	// much as the nodes it replaces.
	RuleReplacementPrice = "replacement-price"
	// RuleDisruptionCandidate: a disruption deletes a node that is no
	// candidate: unknown, unmanaged or already being deleted.
	RuleDisruptionCandidate = "disruption-candidate"
	// RuleConservation: a pod is lost, duplicated or in two places: every
	// pod of a decision is placed once or refused once, and every pod of a
	// simulation is bound, pending, or gone for a reason.
	RuleConservation = "conservation"
)

// Violation is one broken rule.
type Violation struct {
	// Rule is one of the Rule* constants.
	Rule string `json:"rule"`
	// Pod, Node, NodePool and PDB name the objects concerned ("" when the
	// rule concerns none of that kind): pods and PDBs as
	// "namespace/name", a node or NodeClaim by name.
	Pod      string `json:"pod,omitempty"`
	Node     string `json:"node,omitempty"`
	NodePool string `json:"nodePool,omitempty"`
	PDB      string `json:"pdb,omitempty"`
	// Detail says what is wrong, with the numbers.
	Detail string `json:"detail"`
}

// String is the canonical one-line form: the rule, the objects, the detail.
func (v Violation) String() string {
	var b strings.Builder
	b.WriteString(v.Rule)
	for _, o := range [...]struct{ kind, name string }{{"pod", v.Pod}, {"node", v.Node}, {"nodepool", v.NodePool}, {"pdb", v.PDB}} {
		if o.name != "" {
			fmt.Fprintf(&b, " %s=%s", o.kind, o.name)
		}
	}
	b.WriteString(": ")
	b.WriteString(v.Detail)
	return b.String()
}

func compareViolations(a, b Violation) int {
	return cmp.Or(cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Node, b.Node), cmp.Compare(a.Pod, b.Pod),
		cmp.Compare(a.NodePool, b.NodePool), cmp.Compare(a.PDB, b.PDB), cmp.Compare(a.Detail, b.Detail))
}

// sorted returns vs in the canonical order, duplicates dropped, nil when
// there are none.
func sorted(vs []Violation) []Violation {
	if len(vs) == 0 {
		return nil
	}
	slices.SortFunc(vs, compareViolations)
	return slices.Compact(vs)
}

// ErrViolated is wrapped by Err's error: a decision broke an invariant.
var ErrViolated = errors.New("invariant violated")

// Err returns nil for no violations, or an error wrapping ErrViolated
// that lists them, one a line.
func Err(vs []Violation) error {
	if len(vs) == 0 {
		return nil
	}
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = v.String()
	}
	return fmt.Errorf("%w: %d violations:\n%s", ErrViolated, len(vs), strings.Join(lines, "\n"))
}
