package patch

import (
	"strings"
	"testing"
)

const stream = `# kept as written
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: keep}
spec: {weight: 1}
---
apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: a}
  spec: {weight: 2}
- apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: old}
  spec: {role: r}
`

// Patches reach List items, "*" applies before a named patch, dropped
// objects go, documents no rule touches keep their bytes, and the rules'
// maps are not shared with the output.
func TestStream(t *testing.T) {
	weight := map[string]any{"spec": map[string]any{"weight": 50.0}}
	r := Rules{
		Patches: map[string]map[string]map[string]any{"NodePool": {"*": {"metadata": map[string]any{"labels": map[string]any{"all": "yes"}}}, "a": weight}},
		Drop:    map[string]bool{"EC2NodeClass/old": true},
	}
	touched := map[string]bool{}
	out, err := Stream([]byte(stream), r, touched)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{"weight: 50", "all: \"yes\""} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "EC2NodeClass") || strings.Contains(got, "# kept as written") {
		t.Errorf("the dropped class stays, or the patched first document keeps its bytes:\n%s", got)
	}
	for _, k := range []string{"NodePool/keep", "NodePool/a", "EC2NodeClass/old"} {
		if !touched[k] {
			t.Errorf("%s not noted as touched: %v", k, touched)
		}
	}
	if weight["spec"].(map[string]any)["weight"] != 50.0 {
		t.Error("the rule's patch was changed")
	}
	same, err := Stream([]byte(stream), Rules{Drop: map[string]bool{"NodePool/none": true}}, map[string]bool{})
	if err != nil || string(same) != stream {
		t.Errorf("a stream no rule touches changes: %v\n%s", err, same)
	}
}
