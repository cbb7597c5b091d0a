package conformance

import (
	"strings"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// The suite's specs that turn on how the cluster is read, translated
// through the snapshot: below, the in-flight node whose kubelet reports an
// extended resource as zero; first, the pods of a node being deleted, which Karpenter
// provisions for (or not) in its next pass. In karpsim that choice is the
// snapshot's: the pods it makes pending are those a solve places. Each case
// is a cluster read from manifests: karpsim's default NodePool, a node
// "gone" being deleted, and one pod bound to it.

const goneNodeYAML = `apiVersion: v1
kind: Node
metadata:
  name: gone
  deletionTimestamp: "2026-03-02T11:00:00Z"
  finalizers: [karpenter.sh/termination]
  labels:
    karpenter.sh/nodepool: default
    karpenter.sh/initialized: "true"
    node.kubernetes.io/instance-type: m5.large
    topology.kubernetes.io/zone: us-east-1a
    karpenter.sh/capacity-type: on-demand
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: gone
status:
  capacity: {cpu: "2", memory: 8Gi, pods: "29"}
  allocatable: {cpu: 1930m, memory: 7Gi, pods: "29"}
  conditions: [{type: Ready, status: "True"}]
`

// boundPodYAML is pod p on node gone asking for 100M of memory; meta is
// added to its metadata and status replaces its running status.
func boundPodYAML(meta, status string) string {
	if status == "" {
		status = "{phase: Running}"
	}
	return `apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: default
  labels: {pdb-test: value}
` + meta + `spec:
  nodeName: gone
  containers: [{name: app, image: app, resources: {requests: {memory: 100M}}}]
status: ` + status + "\n"
}

func pdbYAML(name, spec string) string {
	return `apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: ` + name + `, namespace: default}
spec:
  selector: {matchLabels: {pdb-test: value}}
  ` + spec + "\n"
}

// rescheduled: whether the snapshot provisions for pod p, and if it does,
// that a solve places it on a new node.
func rescheduled(name, fails string, want bool, docs ...string) conformanceCase {
	return conformanceCase{Name: name, Fails: fails, Run: func(t *T) {
		set, err := manifests.Decode("deleting.yaml", []byte(strings.Join(append([]string{goneNodeYAML}, docs...), "\n---\n")))
		if err != nil {
			t.Fatalf("decode: %v", err)
		}
		snap, err := snapshot.FromSet(set, snapshot.Options{})
		if err != nil {
			t.Fatalf("snapshot: %v", err)
		}
		got := false
		for _, p := range snap.Pending {
			got = got || p.Name == "p"
		}
		if got != want {
			t.Fatalf("pod p provisioned for: %v, want %v", got, want)
		}
		if want {
			res := solveRead(scheduling.Input{Pods: snap.Pending, Nodes: snap.Nodes, NodePools: snap.NodePools, DaemonSets: snap.DaemonSets})
			if len(res.NodeClaims) != 1 || len(res.Unschedulable) != 0 {
				t.Fatalf("want one new node for the pod: %s", describe(res))
			}
		}
	}}
}

const terminatingMeta = "  deletionTimestamp: \"2026-03-02T11:30:00Z\"\n  finalizers: [example.com/hold]\n"

var _ = register("scheduling",
	rescheduled("deleting-node-active-pod-rescheduled", "", true, boundPodYAML("", "")),
	rescheduled("deleting-node-finished-pod-not-rescheduled", "", false, boundPodYAML("", "{phase: Succeeded}")),
	rescheduled("deleting-node-daemon-pod-not-rescheduled", "", false,
		boundPodYAML("  ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: ds-uid, controller: true}]\n", "")),
	rescheduled("deleting-node-terminating-replicaset-pod-not-rescheduled", "", false,
		boundPodYAML("  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: rs-uid, controller: true}]\n"+terminatingMeta, "")),
	rescheduled("deleting-node-terminating-statefulset-pod-rescheduled", "", true,
		boundPodYAML("  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: ss, uid: ss-uid, controller: true}]\n"+terminatingMeta, "")),
	rescheduled("deleting-node-pdb-max-unavailable-zero", "", false, boundPodYAML("", ""), pdbYAML("pdb", "maxUnavailable: 0")),
	rescheduled("deleting-node-pdb-max-unavailable-zero-percent", "", false, boundPodYAML("", ""), pdbYAML("pdb", `maxUnavailable: "0%"`)),
	rescheduled("deleting-node-pdb-min-available-all", "", false, boundPodYAML("", ""), pdbYAML("pdb", `minAvailable: "100%"`)),
	rescheduled("deleting-node-several-pdbs", "", false, boundPodYAML("", ""),
		pdbYAML("pdb-1", `minAvailable: "100%"`), pdbYAML("pdb-2", `minAvailable: "100%"`)),
)

// An in-flight node whose kubelet still reports an extended resource as
// zero (its device plugin not registered yet) offers what its NodeClaim
// says it will have.
const zeroedNodeYAML = `apiVersion: v1
kind: Node
metadata:
  name: starting
  labels:
    karpenter.sh/nodepool: default
    node.kubernetes.io/instance-type: m5.large
    topology.kubernetes.io/zone: us-east-1a
    karpenter.sh/capacity-type: on-demand
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: starting
status:
  capacity: {cpu: "2", memory: 8Gi, pods: "29", fake.com/vendor-a: "0"}
  allocatable: {cpu: 1930m, memory: 7Gi, pods: "29", fake.com/vendor-b: "0"}
  conditions: [{type: Ready, status: "True"}]
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: default-abc12
  labels: {karpenter.sh/nodepool: default}
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
status:
  nodeName: starting
  capacity: {cpu: "2", memory: 8Gi, pods: "29", fake.com/vendor-a: "2"}
  allocatable: {cpu: 1930m, memory: 7Gi, pods: "29", fake.com/vendor-a: "2"}
---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec:
  containers: [{name: app, image: app, resources: {requests: {cpu: 10m, fake.com/vendor-a: "1"}, limits: {fake.com/vendor-a: "1"}}}]
`

var _ = register("scheduling", conformanceCase{Name: "zeroed-extended-resource-uses-nodeclaim", Run: func(t *T) {
	set, err := manifests.Decode("zeroed.yaml", []byte(zeroedNodeYAML))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	snap, err := snapshot.FromSet(set, snapshot.Options{})
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	res := solveRead(scheduling.Input{Pods: snap.Pending, Nodes: snap.Nodes, NodePools: snap.NodePools, DaemonSets: snap.DaemonSets})
	if len(res.Bindings) != 1 || res.Bindings[0].Node != "starting" || len(res.NodeClaims) != 0 {
		t.Fatalf("want the pod on the starting node and no new node: %s", describe(res))
	}
}})
