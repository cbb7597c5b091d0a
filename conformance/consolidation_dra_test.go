package conformance

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Upstream's consolidation specs with DRA: a candidate's pods hold GPUs of
// the candidate through allocated ResourceClaims, and consolidation's
// simulation must allocate those claims anew on the replacement. Here the
// cluster comes in as YAML through snapshot.ForDisruption with DRA on (what
// `karpsim disrupt --dra` reads), over AWS's NVIDIA types, whose GPUs are
// karpsim's devices: a node's own GPUs stand for the slice it publishes.

var draNow = time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)

const draDisruptHead = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: c}}]
  role: KarpenterNodeRole
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [%s]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
    budgets: [{nodes: "100%%"}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.nvidia.com"'}}]
`

// draGPUNode is a managed, initialized node of instanceType running pod
// <name>-pod, which holds the node's GPU through claim <name>-claim.
func draGPUNode(name, instanceType string) string {
	node := "node-" + name
	return fmt.Sprintf(`---
apiVersion: v1
kind: Node
metadata:
  name: %[1]s
  creationTimestamp: "2026-03-01T08:00:00Z"
  labels:
    karpenter.sh/nodepool: default
    karpenter.sh/initialized: "true"
    karpenter.sh/registered: "true"
    karpenter.sh/capacity-type: on-demand
    node.kubernetes.io/instance-type: %[2]s
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: %[1]s
    topology.kubernetes.io/zone: us-east-1a
    karpenter.k8s.aws/ec2nodeclass: default
spec:
  providerID: aws:///us-east-1a/i-%[1]s
status:
  conditions: [{type: Ready, status: "True", lastTransitionTime: "2026-03-01T08:00:00Z"}]
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: claim-%[3]s
  creationTimestamp: "2026-03-01T08:00:00Z"
  labels:
    karpenter.sh/nodepool: default
    karpenter.sh/capacity-type: on-demand
    node.kubernetes.io/instance-type: %[2]s
    topology.kubernetes.io/zone: us-east-1a
    karpenter.k8s.aws/ec2nodeclass: default
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements: []
status:
  nodeName: %[1]s
  providerID: aws:///us-east-1a/i-%[1]s
  imageID: ami-0123456789abcdef0
  lastPodEventTime: "2026-03-03T09:00:00Z"
  conditions:
    - {type: Initialized, status: "True", reason: Initialized, lastTransitionTime: "2026-03-01T08:03:00Z"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: %[3]s-claim, namespace: default}
spec:
  devices:
    requests: [{name: req, exactly: {deviceClassName: gpu, allocationMode: ExactCount, count: 1}}]
status:
  allocation:
    devices:
      results: [{request: req, driver: gpu.nvidia.com, pool: %[1]s, device: gpu-0}]
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [%[1]s]}]}]
  reservedFor: [{resource: pods, name: %[3]s-pod, uid: uid-%[3]s-pod}]
---
apiVersion: v1
kind: Pod
metadata:
  name: %[3]s-pod
  namespace: default
  uid: uid-%[3]s-pod
  creationTimestamp: "2026-03-03T09:00:00Z"
  labels: {app: gpu}
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: gpu-rs, uid: gpu-rs-uid, controller: true}]
spec:
  nodeName: %[1]s
  resourceClaims: [{name: gpu, resourceClaimName: %[3]s-claim}]
  containers:
    - name: app
      image: app
      resources:
        requests: {cpu: 500m, memory: 1Gi}
        claims: [{name: gpu}]
status:
  phase: Running
  startTime: "2026-03-03T09:00:00Z"
`, node, instanceType, name)
}

// draDisrupt evaluates the cluster of the pool's types and the nodes
// (name → instance type) as `karpsim disrupt --dra` does.
func draDisrupt(t *T, poolTypes []string, nodes ...[2]string) consolidation.Decision {
	t.Helper()
	doc := fmt.Sprintf(draDisruptHead, strings.Join(poolTypes, ", "))
	for _, n := range nodes {
		doc += draGPUNode(n[0], n[1])
	}
	set, err := manifests.Decode("consolidation-dra.yaml", []byte(doc))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	d, err := snapshot.ForDisruption(set, snapshot.Options{DRA: true}, draNow)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return consolidation.Evaluate(d.Cluster, draNow, consolidation.Options{Scheduling: scheduling.Options{DRA: d.DRA}})
}

func describeDecision(d consolidation.Decision) string {
	var b strings.Builder
	for _, c := range d.Commands {
		fmt.Fprintf(&b, "[%s delete %v replace %v] ", c.Method, c.Delete, c.Replacements)
	}
	for _, v := range d.Candidates {
		fmt.Fprintf(&b, "{%s: %s} ", v.Node, v.Reason)
	}
	return b.String()
}

var _ = register("consolidation-dra",
	conformanceCase{Name: "claim-reallocated-on-replacement", Run: func(t *T) {
		// The candidate, a g4dn.2xlarge, holds its pod's GPU; a cheaper
		// g4dn.xlarge can take the pod and a GPU of its own.
		d := draDisrupt(t, []string{"g4dn.xlarge", "g4dn.2xlarge"}, [2]string{"a", "g4dn.2xlarge"})
		if len(d.Commands) != 1 || !slices.Equal(d.Commands[0].Delete, []string{"node-a"}) || len(d.Commands[0].Replacements) != 1 ||
			d.Commands[0].Replacements[0].InstanceType != "g4dn.xlarge" {
			t.Fatalf("want node-a replaced by a g4dn.xlarge: %s", describeDecision(d))
		}
	}},
	conformanceCase{Name: "claim-nowhere-else-no-command", Run: func(t *T) {
		// No type the pool may launch has a GPU: the candidate's pod
		// cannot take its claim anywhere.
		d := draDisrupt(t, []string{"m5.large", "m5.xlarge"}, [2]string{"a", "g4dn.xlarge"})
		if len(d.Commands) != 0 {
			t.Fatalf("want no command: %s", describeDecision(d))
		}
	}},
	conformanceCase{Name: "claims-of-several-candidates-on-one-replacement", Run: func(t *T) {
		// Two g4dn.8xlarge (one T4 each), one GPU pod each: one
		// g4dn.12xlarge (four T4s) costs less than the two.
		d := draDisrupt(t, []string{"g4dn.8xlarge", "g4dn.12xlarge"}, [2]string{"a", "g4dn.8xlarge"}, [2]string{"b", "g4dn.8xlarge"})
		if len(d.Commands) != 1 || len(d.Commands[0].Delete) != 2 || len(d.Commands[0].Replacements) != 1 ||
			d.Commands[0].Replacements[0].InstanceType != "g4dn.12xlarge" {
			t.Fatalf("want the two nodes replaced by one g4dn.12xlarge: %s", describeDecision(d))
		}
	}},
)
