package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The rows of issue 25 whose sums passed 2^63: each amount is within what
// karpsim reads (2^53), their sum is not. They are not refusals, so they
// are not cases of TestHostileInputIsRefusedFast (which asserts exit 1):
// the right answer is a plan, and the plan must be the one the true sums
// give, in the same time and memory bounds.
func TestOverflowingSumsGiveTheRightPlan(t *testing.T) {
	for _, tc := range []struct {
		name     string
		manifest func() string
		check    func(t *testing.T, p overflowPlan, stderr string)
	}{
		{
			// 1,025 to 2,048 pods of 2^53 bytes each bound to one 8 GiB
			// node: the node is full, and a 1 GiB pod goes to a new node.
			name: "bound pods summing past 2^63 on one node", manifest: func() string { return overflowBoundPods(1025) },
			check: func(t *testing.T, p overflowPlan, stderr string) {
				assert.Len(t, p.Bindings, 0, "the 1 GiB pod is bound to the full node")
				assert.Len(t, p.NodeClaims, 1)
				assert.Empty(t, p.Unschedulable)
				assert.Contains(t, stderr, "node full: its bound pods request more [memory] than karpsim counts")
			},
		},
		{
			name: "2,048 bound pods summing past 2^64 on one node", manifest: func() string { return overflowBoundPods(2048) },
			check: func(t *testing.T, p overflowPlan, stderr string) {
				assert.Len(t, p.Bindings, 0, "the 1 GiB pod is bound to the full node")
				assert.Len(t, p.NodeClaims, 1)
			},
		},
		{
			// 1,025 nodes of 2^53 millicores in a NodePool limited to
			// 100 cpu: the pool is past its limit, nothing is launched.
			name: "a NodePool's nodes summing past 2^63 millicores", manifest: overflowPoolUsage,
			check: func(t *testing.T, p overflowPlan, stderr string) {
				assert.Len(t, p.NodeClaims, 0, "launched past limits.cpu: 100")
				require.Len(t, p.Unschedulable, 1)
				assert.Contains(t, p.Unschedulable[0].Reason, "limits")
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cluster.yaml")
			require.NoError(t, os.WriteFile(path, []byte(tc.manifest()), 0o644))
			code, stdout, stderr, m := runMeasured(t, "", []string{"plan", "-f", path, "-o", "json"})
			t.Logf("%v, %.1f MiB allocated, heap peak +%.1f MiB", m.took.Round(time.Millisecond), mib(m.allocated), mib(m.peak))
			require.Equal(t, 0, code, stderr)
			var p overflowPlan
			require.NoError(t, json.Unmarshal([]byte(stdout), &p))
			tc.check(t, p, stderr)
			assert.Less(t, m.allocated, uint64(hostileMaxAlloc), "bytes allocated")
		})
	}
}

// overflowHostileCases are the prices that summed to +Inf: bounded now
// (apis.MaxPricePerHour), they are refused at load, naming the field.
// Before, an overlay of +1e306% planned a node at +Inf dollars an hour
// and plan's JSON failed after the plan was made.
func overflowHostileCases() []hostileCase {
	overlay := func(field string) string {
		return hostileNodePool("default", "", "") + `---
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata: {name: dear}
spec:
  ` + field + `
  requirements: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}]
---
` + hostilePod(`{cpu: "1"}`, "")
	}
	plan := []string{"plan", "-f", "DIR/o.yaml", "-o", "json"}
	return []hostileCase{
		{name: "overlay price adjustment of +1e306%", files: map[string]string{"o.yaml": overlay(`priceAdjustment: "+1` + strings.Repeat("0", 306) + `%"`)}, args: plan,
			want: []string{"DIR/o.yaml: NodeOverlay/dear: spec.priceAdjustment: +1000000000000000000… (309 characters) is more than karpsim reads (+10000%)"}},
		{name: "overlay price past a million dollars an hour", files: map[string]string{"o.yaml": overlay(`price: "1` + strings.Repeat("0", 300) + `"`)}, args: plan,
			want: []string{"DIR/o.yaml: NodeOverlay/dear: spec.price: 10000000000000000000… (301 characters) is more than karpsim reads ($1e+06 an hour)"}},
		{name: "catalog price of 1e300", generate: func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "cat.json"), []byte(hostileCatalog(t, "1e300")), 0o644))
		}, args: []string{"plan", "--catalog", "DIR/cat.json", "-o", "json"}, want: []string{"DIR/cat.json", "a1.2xlarge", "price: 1e+300 is more than karpsim reads ($1e+06 an hour)"}},
	}
}

// overflowPlan is the part of plan's JSON these tests read.
type overflowPlan struct {
	NodeClaims []struct {
		Name         string `json:"name"`
		InstanceType string `json:"instanceType"`
	} `json:"nodeClaims"`
	Bindings []struct {
		Pod  string `json:"pod"`
		Node string `json:"node"`
	} `json:"bindings"`
	Unschedulable []struct {
		Pod    string `json:"pod"`
		Reason string `json:"reason"`
	} `json:"unschedulable"`
}

// overflowNode is an initialized Node of the default NodePool.
func overflowNode(name, capacity, allocatable string) string {
	return `---
apiVersion: v1
kind: Node
metadata:
  name: ` + name + `
  labels:
    karpenter.sh/nodepool: default
    karpenter.sh/initialized: "true"
    karpenter.sh/registered: "true"
    karpenter.sh/capacity-type: on-demand
    node.kubernetes.io/instance-type: m5.large
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: ` + name + `
    topology.kubernetes.io/zone: us-east-1a
spec:
  providerID: aws:///us-east-1a/` + name + `
status:
  capacity: ` + capacity + `
  allocatable: ` + allocatable + `
  conditions:
  - {type: Ready, status: "True"}
`
}

// overflowPod is a pod with requests, bound to node unless node is empty.
func overflowPod(name, requests, node string) string {
	bound := ""
	if node != "" {
		bound = "  nodeName: " + node + "\n"
	}
	return `---
apiVersion: v1
kind: Pod
metadata: {name: ` + name + `, namespace: default}
spec:
` + bound + `  containers:
  - {name: c, image: x, resources: {requests: ` + requests + `}}
`
}

func overflowBoundPods(n int) string {
	var b strings.Builder
	b.WriteString(hostileNodePool("default", "", ""))
	b.WriteString(overflowNode("full", `{cpu: "8", memory: 8Gi, pods: "5000"}`, `{cpu: "8", memory: 8Gi, pods: "5000"}`))
	for i := range n {
		b.WriteString(overflowPod(fmt.Sprintf("hog-%04d", i), `{memory: "9007199254740992"}`, "full"))
	}
	b.WriteString(overflowPod("web", `{cpu: 100m, memory: 1Gi}`, ""))
	return b.String()
}

func overflowPoolUsage() string {
	var b strings.Builder
	b.WriteString(hostileNodePool("default", "", "  limits: {cpu: 100}\n"))
	for i := range 1025 {
		// Nothing fits on these nodes: only the pool's limit decides.
		b.WriteString(overflowNode(fmt.Sprintf("big-%04d", i), `{cpu: 9007199254740992m, memory: 8Gi, pods: "0"}`, `{cpu: "0", memory: "0", pods: "0"}`))
	}
	b.WriteString(overflowPod("web", `{cpu: 100m, memory: 1Gi}`, ""))
	return b.String()
}
