package invariants

import (
	"testing"
	"time"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/scheduling"
)

// Node repair replaces an unhealthy node whatever the replacement costs, as
// drift does: the replacement-price rule holds only consolidation to a
// saving. The same command from single-node consolidation breaks it.
func TestCheckPriceLeavesRepairAlone(t *testing.T) {
	c := cluster(newPool("default"), managed(node("a", "default", "test-zone-1", 2, newPod("web-a", "100m"))))
	for _, tc := range []struct {
		method string
		want   bool
	}{{consolidation.MethodSingleNode, true}, {consolidation.MethodRepair, false}} {
		d := consolidation.Decision{Commands: []consolidation.Command{{Method: tc.method, Delete: []string{"a"},
			Replacements: []scheduling.NodeClaim{claim("default-1", "default", "test-zone-1", 4)},
			Moves:        []consolidation.Move{{Pod: "default/web-a", To: "default-1"}}}}}
		got := false
		for _, v := range CheckDisruption(c, d, time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)) {
			got = got || v.Rule == RuleReplacementPrice
		}
		if got != tc.want {
			t.Errorf("%s replacing a with a dearer node: replacement-price violation %v, want %v", tc.method, got, tc.want)
		}
	}
}
