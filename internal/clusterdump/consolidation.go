package clusterdump

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"
)

// The consolidation benchmark's cluster is the one karpsim's and
// Karpenter's disruption benchmarks both read (consolidation's
// BenchmarkKarpenterShape in this module, upstream/differential/disruption's
// BenchmarkKarpenterConsolidation against Karpenter v1.15.0): the same YAML,
// over the instance types of the differential disruption harness, which
// Karpenter's fake cloud provider offers there and ConsolidationCatalog
// gives karpsim here.

// ConsolidationNow is the time both sides evaluate the cluster at: three
// hours after the pods' last events, so that consolidateAfter (0s) has
// passed.
var ConsolidationNow = time.Date(2026, 11, 2, 12, 0, 0, 0, time.UTC)

// benchMachine is one type of the catalog: cpu cores, memory GiB, pods.
type benchMachine struct {
	name              string
	cpu, memGiB, pods int64
}

// benchMachines are the differential harness's 15 types: 1 to 16 cores
// with 2, 4 or 8 GiB a core, named like "4c16g", 10 + 6 a core pods.
func benchMachines() []benchMachine {
	var out []benchMachine
	for _, cpu := range []int64{1, 2, 4, 8, 16} {
		for _, perCore := range []int64{2, 4, 8} {
			out = append(out, benchMachine{fmt.Sprintf("%dc%dg", cpu, cpu*perCore), cpu, cpu * perCore, 10 + 6*cpu})
		}
	}
	return out
}

// The kubelet's reservation and eviction threshold of every type.
const (
	benchReservedCPUMilli = 100
	benchReservedMemMi    = 200
	benchEvictionMemMi    = 100
)

var benchZones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// benchSpotFactor makes spot prices differ by zone.
var benchSpotFactor = map[string]float64{"us-east-1a": 1.00, "us-east-1b": 0.94, "us-east-1c": 1.07}

// price is a type's hourly price: per core and per GiB, spot at 40% times
// the zone's factor, rounded to a hundredth of a cent.
func (m benchMachine) price(capacityType, zone string) float64 {
	p := 0.025*float64(m.cpu) + 0.005*float64(m.memGiB)
	if capacityType == "spot" {
		p *= 0.4 * benchSpotFactor[zone]
	}
	return math.Round(p*10000) / 10000
}

func (m benchMachine) allocatableCPUMilli() int64 { return m.cpu*1000 - benchReservedCPUMilli }
func (m benchMachine) allocatableMemMi() int64 {
	return m.memGiB*1024 - benchReservedMemMi - benchEvictionMemMi
}

// ConsolidationCatalog is the consolidation benchmark's catalog in
// karpsim's JSON catalog format (what --catalog reads): the differential
// harness's 15 types, on-demand and spot in three zones.
func ConsolidationCatalog() []byte {
	var out []CatalogEntry
	for _, m := range benchMachines() {
		var offerings []CatalogOffering
		for _, zone := range benchZones {
			for _, ct := range []string{"spot", "on-demand"} {
				offerings = append(offerings, CatalogOffering{Zone: zone, CapacityType: ct, Price: m.price(ct, zone), Available: true})
			}
		}
		out = append(out, CatalogEntry{
			Name:     m.name,
			Labels:   map[string]string{"node.kubernetes.io/instance-type": m.name, "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"},
			Capacity: map[string]string{"cpu": fmt.Sprint(m.cpu), "memory": fmt.Sprintf("%dGi", m.memGiB), "pods": fmt.Sprint(m.pods)},
			Overhead: map[string]any{
				"kubeReserved":      map[string]string{"cpu": fmt.Sprintf("%dm", benchReservedCPUMilli), "memory": fmt.Sprintf("%dMi", benchReservedMemMi)},
				"systemReserved":    map[string]string{},
				"evictionThreshold": map[string]string{"memory": fmt.Sprintf("%dMi", benchEvictionMemMi)},
			},
			Allocatable: map[string]string{"cpu": fmt.Sprintf("%dm", m.allocatableCPUMilli()), "memory": fmt.Sprintf("%dMi", m.allocatableMemMi()), "pods": fmt.Sprint(m.pods)},
			Offerings:   offerings,
		})
	}
	data, err := MarshalCatalog(out)
	if err != nil {
		panic(err) // strings, numbers and maps of them always marshal
	}
	return data
}

// CatalogEntry and CatalogOffering are an instance type and one of its
// offerings in karpsim's JSON catalog format (what --catalog reads), for
// the generators here and the differential harness in upstream/, which
// write catalogs of their own machines in it.
type CatalogEntry struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels"`
	Capacity    map[string]string `json:"capacity"`
	Overhead    map[string]any    `json:"overhead"`
	Allocatable map[string]string `json:"allocatable"`
	Offerings   []CatalogOffering `json:"offerings"`
}

// CatalogOffering is one offering of a CatalogEntry.
type CatalogOffering struct {
	Zone         string  `json:"zone"`
	CapacityType string  `json:"capacityType"`
	Price        float64 `json:"price"`
	Available    bool    `json:"available"`
}

// MarshalCatalog writes entries as a JSON catalog, indented.
func MarshalCatalog(entries []CatalogEntry) ([]byte, error) {
	return json.MarshalIndent(entries, "", "  ")
}

// benchApp is a Deployment's pod shape.
type benchApp struct {
	name             string
	cpuMilli, memMi  int64
	replicaSetSuffix string
}

var benchApps = []benchApp{
	{"web", 250, 512, "7c9f8d6b5"},
	{"api", 500, 1024, "6b8d7c9f4"},
	{"worker", 1000, 2048, "5d8f9c7b6"},
	{"cache", 750, 3072, "8f7b6c5d9"},
	{"sidecar", 100, 256, "9c6d5b8f7"},
}

// ConsolidationCluster writes the consolidation benchmark's cluster of the
// given number of nodes as one YAML stream: an EC2NodeClass, one on-demand
// NodePool over every type (WhenEmptyOrUnderutilized, consolidateAfter 0s,
// expireAfter Never, a 10% budget), and the nodes, a Node and its
// NodeClaim each, of the types with 2 to 16 cores in three zones, each
// running pods of five Deployments (ReplicaSet-owned) up to 15–55% of its
// cpu and memory. Every node is under-used and the others have room for
// its pods, so multi-node consolidation deletes as many as the budget
// allows: one pass binary-searches up to 100 candidates. The same number
// of nodes always gives the same bytes.
func ConsolidationCluster(w io.Writer, nodes int) error {
	if nodes < 1 {
		return fmt.Errorf("clusterdump: %d nodes: give at least 1", nodes)
	}
	rng := rand.New(rand.NewPCG(uint64(nodes), 29))
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
      expireAfter: Never
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
    budgets:
      - {nodes: "10%"}
`)
	var types []benchMachine
	for _, m := range benchMachines() {
		if m.cpu >= 2 {
			types = append(types, m)
		}
	}
	stamp := ConsolidationNow.Add(-3 * time.Hour).Format(time.RFC3339)
	created := ConsolidationNow.Add(-48 * time.Hour).Format(time.RFC3339)
	for i := range nodes {
		m := types[rng.IntN(len(types))]
		zone := benchZones[rng.IntN(len(benchZones))]
		node := fmt.Sprintf("node-%04d", i)
		provider := fmt.Sprintf("aws:///%s/i-%017x", zone, 0xb000+i)
		capacity := fmt.Sprintf(`{cpu: "%d", memory: %dGi, pods: "%d"}`, m.cpu, m.memGiB, m.pods)
		allocatable := fmt.Sprintf(`{cpu: %dm, memory: %dMi, pods: "%d"}`, m.allocatableCPUMilli(), m.allocatableMemMi(), m.pods)
		labels := fmt.Sprintf(`    karpenter.sh/nodepool: default
    karpenter.sh/capacity-type: on-demand
    node.kubernetes.io/instance-type: %s
    topology.kubernetes.io/zone: %s
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
`, m.name, zone)
		managedNode{name: node, claim: fmt.Sprintf("default-%04d", i), created: created, provider: provider, labels: labels,
			capacity: capacity, allocatable: allocatable, readyReason: "KubeletReady", heartbeat: ConsolidationNow.Format(time.RFC3339),
			expireNever: true, lastPodEvent: stamp, requirements: []string{
				"{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}",
				"{key: karpenter.sh/nodepool, operator: In, values: [default]}",
			}}.write(bw)
		share := 0.15 + 0.4*rng.Float64()
		cpuRoom := int64(float64(m.allocatableCPUMilli()) * share)
		memRoom := int64(float64(m.allocatableMemMi()) * share)
		pods := 0
		for tries := 0; tries < 40 && int64(pods) < m.pods; tries++ {
			a := rng.IntN(len(benchApps))
			if benchApps[a].cpuMilli > cpuRoom || benchApps[a].memMi > memRoom {
				continue
			}
			cpuRoom -= benchApps[a].cpuMilli
			memRoom -= benchApps[a].memMi
			writeBenchPod(bw, a, node, pods, stamp)
			pods++
		}
		if pods == 0 {
			// No node is empty, so that emptiness never decides.
			writeBenchPod(bw, len(benchApps)-1, node, 0, stamp)
		}
	}
	return bw.Flush()
}

// writeBenchPod writes the k-th pod of benchApps[app] on node.
func writeBenchPod(w io.Writer, app int, node string, k int, stamp string) {
	a := benchApps[app]
	fmt.Fprintf(w, `---
apiVersion: v1
kind: Pod
metadata:
  name: %[1]s-%[2]s-%[3]d
  namespace: default
  labels: {app: %[1]s}
  ownerReferences:
    - {apiVersion: apps/v1, kind: ReplicaSet, name: %[1]s-%[4]s, uid: 00000000-0000-0000-0000-00000000000%[5]d, controller: true, blockOwnerDeletion: true}
spec:
  nodeName: %[2]s
  containers:
    - name: app
      image: registry.example.com/%[1]s:1
      resources:
        requests: {cpu: %[6]dm, memory: %[7]dMi}
status:
  phase: Running
  startTime: "%[8]s"
  conditions:
    - {type: Ready, status: "True", lastTransitionTime: "%[8]s"}
`, a.name, node, k, a.replicaSetSuffix, app+1, a.cpuMilli, a.memMi, stamp)
}
