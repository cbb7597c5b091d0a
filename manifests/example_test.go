package manifests_test

import (
	"errors"
	"fmt"

	"github.com/karpsim/karpsim/manifests"
)

func ExampleDecode() {
	manifest := `apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      requirements:
        - key: kubernetes.io/hostname
          operator: In
          values: ["a"]
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  disruption:
    consolidateAfter: 30s
    budgets:
      - nodes: "ten"
  limits:
    cpu: lots
`
	set, err := manifests.Decode("nodepool.yaml", []byte(manifest))
	fmt.Println(err)
	fmt.Println(errors.Is(err, manifests.ErrMissingReference), len(set.NodePools))
	// Output:
	// nodepool.yaml: NodePool/default: spec.disruption.budgets[0].nodes: "ten" is not a node count or a percentage (use e.g. "10" or "10%"; percentages go up to 100%)
	// nodepool.yaml: NodePool/default: spec.limits[cpu]: "lots" is not a quantity (use e.g. "500m", "2" or "1.5Gi")
	// nodepool.yaml: NodePool/default: spec.template.spec.requirements[0].key: label "kubernetes.io/hostname" is restricted: Karpenter sets it to each node's own name
	// nodepool.yaml: NodePool/default: spec.template.spec.nodeClassRef.name: EC2NodeClass "default" not found (no EC2NodeClass was given)
	// true 1
}
