package conformance

import (
	"fmt"
	"slices"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// Upstream's consolidation spec with a device published cluster-wide: the
// device a candidate's pod holds is freed only when every pod holding it
// moves. The cluster comes in as YAML through snapshot.ForDisruption with
// DRA on, as `karpsim disrupt --dra` reads it.

// draPlainNode is a managed, initialized m5.large node named node-<name>
// with its NodeClaim, running pod <name>-pod (annotated do-not-disrupt
// when pinned), which claims <claim> when it is not empty.
func draPlainNode(name, claim string, pinned bool) string {
	node := "node-" + name
	annotations, claims, claimRefs := "{}", "", ""
	if pinned {
		annotations = `{karpenter.sh/do-not-disrupt: "true"}`
	}
	if claim != "" {
		claims = fmt.Sprintf("\n  resourceClaims: [{name: gpu, resourceClaimName: %s}]", claim)
		claimRefs = "\n        claims: [{name: gpu}]"
	}
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
    node.kubernetes.io/instance-type: m5.large
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
  name: claim-%[2]s
  creationTimestamp: "2026-03-01T08:00:00Z"
  labels:
    karpenter.sh/nodepool: default
    karpenter.sh/capacity-type: on-demand
    node.kubernetes.io/instance-type: m5.large
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
apiVersion: v1
kind: Pod
metadata:
  name: %[2]s-pod
  namespace: default
  uid: uid-%[2]s-pod
  creationTimestamp: "2026-03-03T09:00:00Z"
  annotations: %[3]s
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs-%[2]s, uid: rs-%[2]s-uid, controller: true}]
spec:
  nodeName: %[1]s%[4]s
  containers:
    - name: app
      image: app
      resources:
        requests: {cpu: 100m, memory: 128Mi}%[5]s
status:
  phase: Running
  startTime: "2026-03-03T09:00:00Z"
`, node, name, annotations, claims, claimRefs)
}

// draHeldClaim is a claim allocated the cluster-wide device shared-gpu-0,
// reserved for pod.
func draHeldClaim(name, pod string) string {
	return fmt.Sprintf(`---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: %[1]s, namespace: default}
spec:
  devices:
    requests: [{name: req, exactly: {deviceClassName: gpu, allocationMode: ExactCount, count: 1}}]
status:
  allocation:
    devices:
      results: [{request: req, driver: gpu.nvidia.com, pool: shared-gpu-pool, device: shared-gpu-0}]
  reservedFor: [{resource: pods, name: %[2]s, uid: uid-%[2]s}]
`, name, pod)
}

const draSharedGPUSlice = `---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: shared-gpu-pool}
spec:
  driver: gpu.nvidia.com
  allNodes: true
  pool: {name: shared-gpu-pool, generation: 1, resourceSliceCount: 1}
  devices: [{name: shared-gpu-0}]
`

var _ = register("consolidation-dra",
	conformanceCase{Name: "device-held-elsewhere-not-freed", Run: func(t *T) {
		// No type the pool launches has a GPU; the one cluster-wide GPU
		// is held by the live pod's claim and, by a second claim, by the
		// candidate's pod. Moving the candidate's pod reallocates its
		// claim, and the device stays held by the live pod.
		doc := fmt.Sprintf(draDisruptHead, "m5.large, m5.xlarge") + draSharedGPUSlice +
			draPlainNode("live", "", true) + draHeldClaim("held-claim", "live-pod") +
			draPlainNode("candidate", "candidate-claim", false) + draHeldClaim("candidate-claim", "candidate-pod")
		set, err := manifests.Decode("consolidation-dra-slices.yaml", []byte(doc))
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		d, err := snapshot.ForDisruption(set, snapshot.Options{DRA: true}, draNow)
		if err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		dec := consolidation.Evaluate(d.Cluster, draNow, consolidation.Options{Scheduling: scheduling.Options{DRA: d.DRA}})
		for _, c := range dec.Commands {
			if slices.Contains(c.Delete, "node-candidate") {
				t.Fatalf("the candidate was disrupted although its pod's device is held elsewhere: %s", describeDecision(dec))
			}
		}
		// Control: without the live pod's claim the device is the
		// candidate's alone, goes with its pod, and the candidate goes.
		doc = fmt.Sprintf(draDisruptHead, "m5.large, m5.xlarge") + draSharedGPUSlice +
			draPlainNode("live", "", true) + draPlainNode("candidate", "candidate-claim", false) + draHeldClaim("candidate-claim", "candidate-pod")
		if set, err = manifests.Decode("consolidation-dra-slices.yaml", []byte(doc)); err != nil {
			t.Fatalf("decode: %v", err)
		}
		if d, err = snapshot.ForDisruption(set, snapshot.Options{DRA: true}, draNow); err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		dec = consolidation.Evaluate(d.Cluster, draNow, consolidation.Options{Scheduling: scheduling.Options{DRA: d.DRA}})
		if !slices.ContainsFunc(dec.Commands, func(c consolidation.Command) bool { return slices.Contains(c.Delete, "node-candidate") }) {
			t.Fatalf("control: the candidate holding its device alone was not consolidated: %s", describeDecision(dec))
		}
	}},
)
