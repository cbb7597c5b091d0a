package clusterdump

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
)

// nodeShape is an instance type as its Node reports it.
type nodeShape struct {
	name, capacity, allocatable string
	cpuMilli, memMi             int
}

var nodeShapes = []nodeShape{
	{"m5.xlarge", `{cpu: "4", memory: 15583Mi, pods: "58", ephemeral-storage: 20Gi}`, `{cpu: 3920m, memory: 14257Mi, pods: "58", ephemeral-storage: 17Gi}`, 3920, 14257},
	{"m5.2xlarge", `{cpu: "8", memory: 31612Mi, pods: "58", ephemeral-storage: 20Gi}`, `{cpu: 7910m, memory: 30237Mi, pods: "58", ephemeral-storage: 17Gi}`, 7910, 30237},
	{"c5.2xlarge", `{cpu: "8", memory: 15583Mi, pods: "58", ephemeral-storage: 20Gi}`, `{cpu: 7910m, memory: 14257Mi, pods: "58", ephemeral-storage: 17Gi}`, 7910, 14257},
	{"r5.xlarge", `{cpu: "4", memory: 31612Mi, pods: "58", ephemeral-storage: 20Gi}`, `{cpu: 3920m, memory: 30237Mi, pods: "58", ephemeral-storage: 17Gi}`, 3920, 30237},
}

// DisruptionCluster writes a compact Karpenter cluster for `karpsim
// disrupt`: an EC2NodeClass, a NodePool that consolidates underutilized
// nodes under a 10% budget, and the given number of nodes (a Node and its
// NodeClaim each) with seven bound pods on each, owned by ReplicaSets of 50
// apps. Most nodes are well used; one in ten holds a single small pod. It is
// written the way people write manifests by hand (flow style, no status
// karpsim does not read), about 5.8 KB a node.
func DisruptionCluster(w io.Writer, nodes int) error { return DisruptionClusterOf(w, nodes, 7) }

// DisruptionClusterOf writes the cluster DisruptionCluster writes with
// podsPerNode bound pods on each well-used node instead of seven (the
// under-used tenth still holds one), sharing each node's fill among them.
func DisruptionClusterOf(w io.Writer, nodes, podsPerNode int) error {
	if podsPerNode < 1 {
		return fmt.Errorf("clusterdump: %d pods a node: give at least 1", podsPerNode)
	}
	rng := rand.New(rand.NewPCG(uint64(nodes), 7))
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(nodeClass)
	bw.WriteString(`apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.xlarge, m5.2xlarge, c5.2xlarge, r5.xlarge]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 1m
    budgets:
      - {nodes: "10%"}
`)
	apps := make([]string, 50)
	for i := range apps {
		apps[i] = fmt.Sprintf("svc-%02d-%08x", i, rng.Uint32())
	}
	zones := []string{"us-east-1a", "us-east-1b", "us-east-1c"}
	for i := range nodes {
		shape := nodeShapes[rng.IntN(len(nodeShapes))]
		zone := zones[rng.IntN(len(zones))]
		node := fmt.Sprintf("ip-10-%d-%d-%d.ec2.internal", i/65536, i/256%256, i%256)
		claim := fmt.Sprintf("default-%05d", i)
		provider := fmt.Sprintf("aws:///%s/i-%017x", zone, 0xabc000+i)
		created := fmt.Sprintf("2026-03-02T%02d:%02d:00Z", 6+i/60%12, i%60)
		labels := fmt.Sprintf(`    karpenter.sh/nodepool: default
    karpenter.sh/capacity-type: on-demand
    node.kubernetes.io/instance-type: %s
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    topology.kubernetes.io/zone: %s
    topology.kubernetes.io/region: us-east-1
    karpenter.k8s.aws/ec2nodeclass: default
`, shape.name, zone)
		managedNode{name: node, claim: claim, created: created, provider: provider, labels: labels,
			capacity: shape.capacity, allocatable: shape.allocatable, heartbeat: "2026-03-03T12:00:00Z",
			lastPodEvent: "2026-03-03T09:00:00Z", requirements: []string{
				"{key: karpenter.sh/nodepool, operator: In, values: [default]}",
				"{key: node.kubernetes.io/instance-type, operator: In, values: [" + shape.name + "]}",
				"{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}",
			}}.write(bw)
		pods := podsPerNode
		fill := 0.55 + 0.4*rng.Float64()
		if i%10 == 9 {
			pods, fill = 1, 0.05
		}
		for p := range pods {
			a := apps[rng.IntN(len(apps))]
			cpu := int(float64(shape.cpuMilli) * fill / float64(podsPerNode))
			mem := int(float64(shape.memMi) * fill / float64(podsPerNode))
			fmt.Fprintf(bw, `---
apiVersion: v1
kind: Pod
metadata:
  name: %[1]s-%[2]s
  namespace: team-%[3]d
  creationTimestamp: "2026-03-03T09:00:00Z"
  labels: {app: %[4]s}
  ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: %[1]s, uid: %[1]s-uid, controller: true}
spec:
  nodeName: %[5]s
  containers:
    - name: app
      image: registry.example.com/%[4]s:1.0
      resources:
        requests: {cpu: %[6]dm, memory: %[7]dMi}
status:
  phase: Running
  startTime: "2026-03-03T09:00:00Z"
`, a, fmt.Sprintf("%05d-%d", i, p), len(a)%10, a[:6], node, cpu, mem)
		}
	}
	return bw.Flush()
}
