package plantest

import (
	"strings"
	"testing"

	"github.com/karpsim/karpsim/simulator"
)

const ownPool = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
      - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
`

// A name no NodePool has stops the test; the scenario passed in is not
// changed; a patch reaches the scenario's inline NodePool and Replace
// drops it for the file's.
func TestPatchNodePools(t *testing.T) {
	sc := simulator.Scenario{Name: "own", Inline: ownPool}
	var f fakeTB
	PatchNodePools(&f, sc, map[string]map[string]any{"nope": {"spec": map[string]any{"weight": 3.0}}})
	if len(f.fatals) != 1 || !strings.Contains(f.fatals[0], `no NodePool "nope"`) {
		t.Errorf("an unknown NodePool: %v", f.fatals)
	}
	var ok fakeTB
	out := PatchNodePools(&ok, sc, map[string]map[string]any{"default": {"spec": map[string]any{"weight": 3.0}}})
	if len(ok.fatals) != 0 || !strings.Contains(out.Inline, "weight: 3") || sc.Inline != ownPool {
		t.Errorf("the patch: %v\n%s", ok.fatals, out.Inline)
	}
	replaced := Replace(&ok, sc, "testdata/nodepool-gen7.yaml")
	if len(ok.fatals) != 0 || strings.Contains(replaced.Inline, "kind: NodePool") || len(replaced.Manifests) != 1 {
		t.Errorf("Replace keeps the scenario's NodePool: %v\n%s %v", ok.fatals, replaced.Inline, replaced.Manifests)
	}
}
