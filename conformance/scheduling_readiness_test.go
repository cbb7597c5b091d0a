package conformance

import (
	"strings"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// notReadyPoolYAML is upstream's test NodePool with its Ready condition set
// False, as the NodePool readiness controller sets it while the node class
// is not ready.
const notReadyPoolYAML = `apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
status:
  conditions:
  - {type: Ready, status: "False", reason: NodePoolNotReady, message: Node Pool Not Ready, lastTransitionTime: "2026-03-01T10:00:00Z"}
`

const readinessClassYAML = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: test}}]
  role: KarpenterNodeRole
`

const readinessPodYAML = `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: c, image: c}]
`

var _ = register("scheduling",
	conformanceCase{Name: "nodepool-not-ready", Run: func(t *T) {
		set, err := manifests.Decode("not-ready.yaml", []byte(strings.Join([]string{readinessClassYAML, notReadyPoolYAML, readinessPodYAML}, "\n---\n")))
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		snap, err := snapshot.FromSet(set, snapshot.Options{})
		if err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		res := solveRead(snap.Input(scheduling.Options{}))
		if len(res.NodeClaims) != 0 || len(res.Unschedulable) != 1 {
			t.Fatalf("want pod p pending and no new node: %s", describe(res))
		}
	}},
)
