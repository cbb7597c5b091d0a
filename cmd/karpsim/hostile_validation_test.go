package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileSpecPod is hostilePod with more lines at the top of its spec
// (indented two spaces).
func hostileSpecPod(requests, spec string) string {
	return strings.Replace(hostilePod(requests, ""), "spec:\n", "spec:\n"+spec, 1)
}

// validationHostileCases are objects the API server would refuse, each
// refused by karpsim as the API server would, naming the file, the object
// and the field (package apis, the table in README's "Limits on input").
func validationHostileCases() []hostileCase {
	plan := func(file string) []string { return []string{"plan", "-f", "DIR/" + file, "-o", "json"} }
	return []hostileCase{
		// Extended resources are counted in whole units.
		{name: "nvidia.com/gpu 1.5", files: map[string]string{"gpu.yaml": hostilePod(`{nvidia.com/gpu: "1.5"}`, "")}, args: plan("gpu.yaml"),
			want: []string{"DIR/gpu.yaml: Pod/default/p: spec.containers[0] (c).resources.requests[nvidia.com/gpu]: 1500m: nvidia.com/gpu is an extended resource, counted in whole units: use an integer"}},
		// Extended resources cannot be overcommitted: a request needs an
		// equal limit.
		{name: "GPU request below its limit", files: map[string]string{"gpu.yaml": hostilePod("{nvidia.com/gpu: \"1\"}\n      limits: {nvidia.com/gpu: \"2\"}", "")}, args: plan("gpu.yaml"),
			want: []string{"DIR/gpu.yaml: Pod/default/p: spec.containers[0] (c).resources.requests[nvidia.com/gpu]: 1 must equal its limit 2"}},
		// A request above its limit.
		{name: "requests exceeding limits", files: map[string]string{"r.yaml": hostilePod("{cpu: \"4\", memory: 1Gi}\n      limits: {cpu: \"2\", memory: 1Gi}", "")}, args: plan("r.yaml"),
			want: []string{"DIR/r.yaml: Pod/default/p: spec.containers[0] (c).resources.requests[cpu]: 4 is more than its limit 2"}},
		// Object names are DNS subdomains: invisible characters are refused
		// and shown escaped.
		{name: "pod name with a zero-width space", files: map[string]string{"n.yaml": strings.Replace(hostilePod(`{cpu: "1"}`, ""), "name: p\n", "name: \"web\\u200b\"\n", 1)}, args: plan("n.yaml"),
			want: []string{`DIR/n.yaml: Pod/default/"web\u200b": metadata.name: "web\u200b" is not a valid Pod name`}},
		{name: "pod name with a right-to-left override", files: map[string]string{"n.yaml": strings.Replace(hostilePod(`{cpu: "1"}`, ""), "name: p\n", "name: \"web\u202egnp.exe\"\n", 1)}, args: plan("n.yaml"),
			want: []string{`DIR/n.yaml: Pod/default/"web\u202egnp.exe": metadata.name: "web\u202egnp.exe" is not a valid Pod name`}},
		// Label values are at most 63 characters; a long one is quoted by
		// its start and length, not in full.
		{name: "nodeSelector value of 100,000 characters", files: map[string]string{"s.yaml": hostileSpecPod(`{cpu: "1"}`, "  nodeSelector: {team: "+strings.Repeat("x", 100_000)+"}\n")}, args: plan("s.yaml"),
			want: []string{`DIR/s.yaml: Pod/default/p: spec.nodeSelector["team"]: "` + strings.Repeat("x", 80) + `"… (100000 bytes) is not a valid label value: must be no more than 63 bytes`}},
		// Label keys are qualified names.
		{name: "nodeSelector key with a space", files: map[string]string{"s.yaml": hostileSpecPod(`{cpu: "1"}`, "  nodeSelector: {\"has space/!!\": x}\n")}, args: plan("s.yaml"),
			want: []string{`DIR/s.yaml: Pod/default/p: spec.nodeSelector["has space/!!"]: "has space/!!" is not a valid label key`}},
		// Topology spread constraints: maxSkew at least 1.
		{name: "maxSkew 0", files: map[string]string{"s.yaml": hostileSpecPod(`{cpu: "1"}`, "  topologySpreadConstraints: [{maxSkew: 0, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]\n")}, args: plan("s.yaml"),
			want: []string{"DIR/s.yaml: Pod/default/p: spec.topologySpreadConstraints[0].maxSkew: 0: must be at least 1"}},
		// The same rules hold in a workload's pod template.
		{name: "maxSkew 0 in a Deployment's template", files: map[string]string{"d.yaml": strings.Replace(hostileDeployment("3"), "    spec:\n", "    spec:\n      topologySpreadConstraints: [{maxSkew: 0, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}]\n", 1)},
			args: plan("d.yaml"), want: []string{"DIR/d.yaml: Deployment/default/web: spec.template.spec.topologySpreadConstraints[0].maxSkew: 0: must be at least 1"}},
		// Tolerations: an empty key tolerates everything only with Exists.
		{name: "toleration without key or Exists", files: map[string]string{"t.yaml": hostileSpecPod(`{cpu: "1"}`, "  tolerations: [{value: x, effect: NoSchedule}]\n")}, args: plan("t.yaml"),
			want: []string{"DIR/t.yaml: Pod/default/p: spec.tolerations[0].operator: must be Exists when key is empty"}},
		// Label selectors: a known operator, with values for In.
		{name: "anti-affinity selector without values", files: map[string]string{"a.yaml": hostileSpecPod(`{cpu: "1"}`, "  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchExpressions: [{key: app, operator: In}]}}]}}\n")},
			args: plan("a.yaml"), want: []string{"DIR/a.yaml: Pod/default/p: spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].values: must be specified"}},
		// Node taints: a value is a label value.
		{name: "node taint value with a space", files: map[string]string{"n.yaml": "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n  taints: [{key: dedicated, value: \"a b\", effect: NoSchedule}]\nstatus: {capacity: {cpu: \"2\"}, allocatable: {cpu: \"2\"}}\n"},
			args: plan("n.yaml"), want: []string{`DIR/n.yaml: Node/n1: spec.taints[0].value: "a b" is not a valid taint value`}},
		// PDBs: a percentage of at most 100%.
		{name: "PDB maxUnavailable 150%", files: map[string]string{"p.yaml": hostilePod(`{cpu: "1"}`, "") + "---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: pdb, namespace: default}\nspec: {maxUnavailable: 150%, selector: {matchLabels: {app: web}}}\n"},
			args: plan("p.yaml"), want: []string{`DIR/p.yaml: PodDisruptionBudget/default/pdb: spec.maxUnavailable: "150%": a percentage may not be more than 100%`}},
	}
}

// A node whose status.allocatable exceeds its capacity is stored by the API
// server (it does not compare them), so karpsim does not refuse it: it
// warns, naming the node, and uses the capacity. A 16-cpu pod no longer
// lands on an m5.large (2 cpu) claiming 64 allocatable cpu.
func TestAllocatableAboveCapacityIsClamped(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "node.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`apiVersion: v1
kind: Node
metadata:
  name: liar
  labels: {node.kubernetes.io/instance-type: m5.large, kubernetes.io/arch: amd64, kubernetes.io/os: linux, topology.kubernetes.io/zone: us-east-1a, karpenter.sh/capacity-type: on-demand}
status:
  capacity: {cpu: "2", memory: 8Gi, pods: "29"}
  allocatable: {cpu: "64", memory: 7Gi, pods: "29"}
  conditions: [{type: Ready, status: "True"}]
---
`+hostilePod(`{cpu: "16"}`, "")), 0o644))
	code, stdout, stderr := runCmd("plan", "-f", file, "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "Node/liar: status.allocatable.cpu 64 is more than status.capacity.cpu 2: karpsim uses the capacity")
	var plan struct {
		Bindings []struct {
			Pod, Node string
		} `json:"bindings"`
		NodeClaims []struct {
			Pods []string `json:"pods"`
		} `json:"nodeClaims"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &plan))
	assert.Empty(t, plan.Bindings, "the pod is bound to the node that cannot hold it")
	require.Len(t, plan.NodeClaims, 1)
	assert.Equal(t, []string{"default/p"}, plan.NodeClaims[0].Pods)
}
