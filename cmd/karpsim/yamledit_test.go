package main

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/optimize"
)

// editText applies the edits to the NodePool named pool in text, in
// place, as advise --patch does.
func editText(t *testing.T, text, pool string, edits ...optimize.Edit) (string, error) {
	t.Helper()
	set, _ := manifests.Decode("file.yaml", []byte(text))
	if set == nil {
		t.Fatal("the file does not read")
	}
	for _, np := range set.NodePools {
		if np.Name != pool {
			continue
		}
		after := np.DeepCopy()
		for _, e := range edits {
			e.Apply(after)
		}
		out, err := editNodePools("file.yaml", []byte(text), []editedPool{{name: pool, before: np, after: after}})
		return string(out), err
	}
	t.Fatalf("no NodePool %s", pool)
	return "", nil
}

func restrictEdit(key string, op corev1.NodeSelectorOperator, value string) optimize.Edit {
	return optimize.Edit{Op: optimize.EditOp{Action: optimize.ActionRestrict, Key: key, Operator: op, Value: value}}
}

func widenEdit(key, value string) optimize.Edit {
	return optimize.Edit{Op: optimize.EditOp{Action: optimize.ActionWiden, Key: key, Value: value}}
}

const blockPools = `# two pools
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: a
spec:
  weight: 10 # preferred
  template:
    spec:
      nodeClassRef:
        group: karpenter.k8s.aws
        kind: EC2NodeClass
        name: default
      requirements:
        # what to launch
        - key: karpenter.sh/capacity-type
          operator: NotIn
          values:
            - spot   # never spot
        - key: karpenter.k8s.aws/instance-generation
          operator: Lt
          values: ['6']
        - key: kubernetes.io/arch
          operator: In
          values: ["amd64"]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: b
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}`

// Each kind of edit changes only its own lines and keeps the comments,
// quoting and layout around it; the file ends as it did. A new element
// is styled as the list's first one.
func TestEditNodePoolsInPlace(t *testing.T) {
	for _, c := range []struct {
		name, pool string
		edits      []optimize.Edit
		old, new   string // a unique piece of the text and what it becomes
	}{
		{"weight", "a", []optimize.Edit{{Op: optimize.EditOp{Action: optimize.ActionWeight, Weight: 11}}},
			"  weight: 10 # preferred\n", "  weight: 11 # preferred\n"},
		{"new weight", "b", []optimize.Edit{{Op: optimize.EditOp{Action: optimize.ActionWeight, Weight: 11}}},
			"values: [spot, on-demand]}", "values: [spot, on-demand]}\n  weight: 11"},
		{"widen a flow list", "a", []optimize.Edit{widenEdit(apis.LabelArch, "arm64")},
			`values: ["amd64"]`, `values: ["amd64", "arm64"]`},
		{"widen removes an emptied NotIn", "a", []optimize.Edit{widenEdit(apis.LabelCapacityType, "spot")},
			"        - key: karpenter.sh/capacity-type\n          operator: NotIn\n          values:\n            - spot   # never spot\n", ""},
		{"restrict a NotIn", "a", []optimize.Edit{restrictEdit(apis.LabelCapacityType, corev1.NodeSelectorOpNotIn, "reserved")},
			"            - spot   # never spot\n", "            - spot   # never spot\n            - reserved\n"},
		{"tighten a bound", "a", []optimize.Edit{restrictEdit(apis.LabelInstanceGeneration, corev1.NodeSelectorOpLt, "5")},
			"values: ['6']", "values: ['5']"},
		{"add a requirement", "a", []optimize.Edit{restrictEdit(apis.LabelInstanceCPU, corev1.NodeSelectorOpLt, "9")},
			"values: [\"amd64\"]\n", "values: [\"amd64\"]\n        - key: karpenter.k8s.aws/instance-cpu\n          operator: Lt\n          values:\n            - \"9\"\n"},
		{"add a flow requirement at the end of the file", "b", []optimize.Edit{restrictEdit(apis.LabelInstanceCPU, corev1.NodeSelectorOpLt, "9")},
			"values: [spot, on-demand]}", "values: [spot, on-demand]}\n        - {key: karpenter.k8s.aws/instance-cpu, operator: Lt, values: [\"9\"]}"},
		{"drop upper bounds", "a", []optimize.Edit{{Op: optimize.EditOp{Action: optimize.ActionDropUpperBounds, Key: apis.LabelInstanceGeneration}}},
			"        - key: karpenter.k8s.aws/instance-generation\n          operator: Lt\n          values: ['6']\n", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if strings.Count(blockPools, c.old) != 1 {
				t.Fatalf("%q is not a unique piece of the file", c.old)
			}
			got, err := editText(t, blockPools, c.pool, c.edits...)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.Replace(blockPools, c.old, c.new, 1); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// What the editor cannot change in place it refuses, with a reason,
// rather than write something else: advise then prints the diff of the
// manifest as karpsim writes it.
func TestEditNodePoolsRefuses(t *testing.T) {
	anchored := strings.Replace(blockPools, "      requirements:\n        # what", "      requirements: &reqs\n        # what", 1)
	if _, err := editText(t, anchored, "a", widenEdit(apis.LabelArch, "arm64")); err == nil {
		t.Error("an anchored list is edited")
	}
	flowSpec := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: c}
spec: {template: {spec: {nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}, requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]}}}
`
	if _, err := editText(t, flowSpec, "c", optimize.Edit{Op: optimize.EditOp{Action: optimize.ActionWeight, Weight: 3}}); err == nil {
		t.Error("a key is added to a flow mapping")
	}
}
