package conformance

import (
	"slices"
	"strings"
	"testing"
)

// TestDoor runs every case that passes (Fails unset) a second time through
// the door (see solveCase): each decision read back from YAML must equal
// the direct one, and the case's assertions must hold on it. A case whose
// input no object can state is listed in doorInexpressible with why.
func TestDoor(t *testing.T) {
	res := doorResults()
	counts := map[string]int{}
	for _, id := range slices.Sorted(func(yield func(string) bool) {
		for id := range res {
			if !yield(id) {
				return
			}
		}
	}) {
		got := res[id].summary()
		verdict, _, _ := strings.Cut(got, ":")
		counts[verdict]++
		t.Run(id, func(t *testing.T) {
			switch want, listed := doorInexpressible[id]; {
			case listed && verdict != "inexpressible" && verdict != "refused" && verdict != "reasons differ":
				t.Errorf("listed (%s), but through the door: %s", want, got)
			case listed && !strings.Contains(got, want):
				t.Errorf("listed because %s, but: %s", want, got)
			case !listed && verdict != "pass" && verdict != "no decision" && verdict != "inexpressible":
				t.Error(got)
			}
		})
	}
	t.Logf("through the door: %d cases pass, %d pass with other reasons, %d make no decision call, %d are inexpressible, %d refused, %d diverge, %d fail",
		counts["pass"], counts["reasons differ"], counts["no decision"], counts["inexpressible"], counts["refused"], counts["diverged"], counts["fail"])
}

// doorInexpressible are the cases whose input no object states, or whose
// objects the loader refuses as the API server would, with why.
var doorInexpressible = map[string]string{
	// Upstream skips the spec on every Kubernetes it supports: admission
	// refuses the selector.
	"topology/invalid-selector-no-spread": `"{{ zqfmgb }}": a valid label must be`,
	// Karpenter's CRD refuses minValues above the number of In values too
	// (karpenter.sh_nodepools.yaml: "requirements with 'minValues' must
	// have at least that many values").
	"consolidation/best-effort-min-values-not-relaxed": "minValues: 3 is more than the 2 values given",
	// The snapshot leaves NodePools Karpenter does not provision from out,
	// with a warning naming the NodePool and why; the pod is unschedulable
	// either way.
	"provisioning/deleting-pool-launches-nothing": "no NodePool to launch a node from",
	"provisioning/no-usable-pool-unschedulable":   "no NodePool to launch a node from",
	"provisioning/static-pool-no-claims":          "no NodePool to launch a node from",
	// The case names each pass's replacement node default-1; the API
	// server keeps one object of a name.
	"suite/successive-replace-commands": `another Node named "default-1"`,
}
