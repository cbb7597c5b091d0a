package advisor

import "strings"

// The classes of reason a node is not disrupted, as the metric
// karpsim_node_not_disrupted labels them.
const (
	BlockerDoNotDisrupt      = "do-not-disrupt"
	BlockerPDB               = "pdb"
	BlockerBudget            = "budget"
	BlockerConsolidateAfter  = "consolidate-after"
	BlockerPolicy            = "policy"
	BlockerNoCheaper         = "no-cheaper-replacement"
	BlockerPodsDoNotFit      = "pods-do-not-fit"
	BlockerNodeLimit         = "nodepool-limit"
	BlockerCapacityBuffer    = "capacity-buffer"
	BlockerNotManaged        = "not-managed"
	BlockerLifecycle         = "lifecycle"
	BlockerOtherCommandFirst = "other-command-first"
	BlockerTimeout           = "timeout"
	BlockerRepair            = "repair"
	BlockerEmpty             = "empty"
	BlockerNone              = "none"
	BlockerOther             = "other"
)

// blockerRules map a verdict's first reason to its class, first match
// wins: the phrases package consolidation writes.
var blockerRules = []struct{ phrase, class string }{
	{"not evaluated:", BlockerOtherCommandFirst},
	{"repair: ", BlockerRepair},
	{"timeout (", BlockerTimeout},
	{"stopped at its", BlockerTimeout},
	{"do-not-disrupt", BlockerDoNotDisrupt},
	{"PDB", BlockerPDB},
	{"budget of NodePool", BlockerBudget},
	{"consolidateAfter: Never", BlockerPolicy},
	{"is static", BlockerPolicy},
	{"WhenEmpty", BlockerPolicy},
	{"Balanced NodePool", BlockerPolicy},
	{"consolidateAfter", BlockerConsolidateAfter},
	{"capacity-buffer", BlockerCapacityBuffer},
	{"node limit", BlockerNodeLimit},
	{"not managed by Karpenter", BlockerNotManaged},
	{"has no karpenter.sh/nodepool label", BlockerNotManaged},
	{"not found", BlockerNotManaged},
	{"has no instance types", BlockerNotManaged},
	{"has no ", BlockerNotManaged},
	{"not initialized", BlockerLifecycle},
	{"being deleted", BlockerLifecycle},
	{"being rebooted", BlockerLifecycle},
	{"nominated for a pending pod", BlockerLifecycle},
	{"inside its consolidateAfter window", BlockerConsolidateAfter},
	{"uninitialized node", BlockerLifecycle},
	{"cheaper", BlockerNoCheaper},
	{"would need", BlockerNoCheaper},
	{"same type", BlockerNoCheaper},
	{"minValues", BlockerNoCheaper},
	{"spot-to-spot", BlockerNoCheaper},
	{"would not schedule", BlockerPodsDoNotFit},
	{"fit on no", BlockerPodsDoNotFit},
	{"empty: left to emptiness", BlockerEmpty},
	{"no method applies", BlockerNone},
}

// blockerOf classifies the first reason of a verdict that disrupts nothing.
func blockerOf(reason string) string {
	first, _, _ := strings.Cut(reason, "; ")
	for _, r := range blockerRules {
		if strings.Contains(first, r.phrase) {
			return r.class
		}
	}
	return BlockerOther
}
