package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/karpsim/karpsim/scheduling"
)

// runCmd runs a command line in-process and returns its exit code and
// output.
func runCmd(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// scenario is the input of a golden scenario.
func scenario(name string) string {
	return filepath.Join("..", "..", "testdata", "plan", name, "input.yaml")
}

// writeFile writes a manifest into a temporary folder and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	return path
}

func TestPlanWithoutFilesPlansTheInflateExample(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd("plan")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "no -f given: planning the built-in example")
	assert.NotContains(t, stderr, "warning", "the example is karpsim's own: nothing to warn of")
	assert.Contains(t, stdout, "10 pods: 10 scheduled on 1 new node ($")
	assert.Contains(t, stdout, "default ")

	code, stdout, _ = runCmd("plan", "-o", "json")
	require.Equal(t, 0, code)
	var r scheduling.Result
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	assert.Equal(t, 10, r.Summary.ScheduledPods)
	require.Len(t, r.NodeClaims, 1)
	for _, pod := range r.NodeClaims[0].Pods {
		assert.True(t, strings.HasPrefix(pod, "default/inflate-"), pod)
	}
}

func TestPlanExitCodes(t *testing.T) {
	t.Parallel()
	negative := writeFile(t, "neg.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: neg, namespace: team}\nspec:\n  containers: [{name: app, image: app, resources: {requests: {cpu: \"-1\"}}}]\n")
	noClass := writeFile(t, "pool.yaml", "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {name: lonely}\nspec:\n  template:\n    spec:\n      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: missing}\n      requirements: []\n")
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"ok", []string{"plan", "-f", scenario("spot-over-on-demand")}, 0, nil},
		{"unknown output", []string{"plan", "-o", "xml"}, 2, []string{`-o "xml": want table, wide, json or yaml`}},
		{"unknown flag", []string{"plan", "--nope"}, 2, []string{"unknown flag: --nope"}},
		{"stray argument", []string{"plan", "input.yaml"}, 2, []string{`unexpected argument "input.yaml"`}},
		{"empty zones", []string{"plan", "--zones", ","}, 2, []string{"names no zone"}},
		{"missing file", []string{"plan", "-f", "does-not-exist.yaml"}, 1, []string{"does-not-exist.yaml"}},
		{"a NodePool without its EC2NodeClass", []string{"plan", "-f", noClass}, 1,
			[]string{noClass + `: NodePool/lonely: spec.template.spec.nodeClassRef.name: EC2NodeClass "missing" not found`}},
		{"a pod the API server would refuse", []string{"plan", "-f", negative}, 1,
			[]string{negative + ": Pod/team/neg: spec.containers[0] (app).resources.requests.cpu: negative quantity -1"}},
		{"explain an unknown pod", []string{"plan", "-f", scenario("gpu"), "--explain", "ml/nope"}, 1, []string{"--explain ml/nope: no such pending pod (pending pods: ml/inference, ml/notebook)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(tt.args...)
			assert.Equal(t, tt.code, code, stderr)
			for _, want := range tt.stderr {
				assert.Contains(t, stderr, want)
			}
		})
	}
}

func TestPlanTable(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd("plan", "-f", scenario("gpu"))
	require.Equal(t, 0, code, stderr)
	want := []string{
		"NODEPOOL  INSTANCE TYPE  CAPACITY TYPE  NODES  PODS  ZONES       $/HOUR",
		"gpu       g4dn.xlarge    on-demand      1      1     us-east-1a  0.5260",
		"",
		"2 pods: 1 scheduled on 1 new node ($0.5260/hour) and 0 existing nodes; 1 unschedulable",
		"lower bound $0.5260/hour (plan is +0%)",
		"",
		"UNSCHEDULABLE POD  REASON",
	}
	lines := strings.Split(stdout, "\n")
	require.Greater(t, len(lines), len(want))
	assert.Equal(t, want, lines[:len(want)])
	assert.Contains(t, lines[len(want)], `ml/notebook        NodePool "gpu": did not tolerate taint nvidia.com/gpu:NoSchedule`)

	code, stdout, _ = runCmd("plan", "-f", scenario("fits-existing-node"))
	require.Equal(t, 0, code)
	assert.Equal(t, "EXISTING NODE              PODS\nip-10-0-1-17.ec2.internal  1\n\n1 pod: 1 scheduled on 0 new nodes ($0.0000/hour) and 1 existing node; 0 unschedulable\n", stdout)
}

func TestPlanTableGroupsClaims(t *testing.T) {
	code, stdout, _ := runCmd("plan", "-f", scenario("max-pods"))
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "small-pods  c6g.medium     on-demand      3      20    us-east-1a  0.1020\n")
}

func TestPlanJSONAndYAMLAgree(t *testing.T) {
	t.Parallel()
	_, jsonOut, _ := runCmd("plan", "-f", scenario("daemonset-tolerates-all"), "-o", "json")
	_, yamlOut, _ := runCmd("plan", "-f", scenario("daemonset-tolerates-all"), "-o", "yaml")
	var fromJSON, fromYAML scheduling.Result
	require.NoError(t, json.Unmarshal([]byte(jsonOut), &fromJSON))
	require.NoError(t, yaml.Unmarshal([]byte(yamlOut), &fromYAML))
	assert.Equal(t, fromJSON, fromYAML)
	assert.True(t, strings.HasPrefix(jsonOut, "{\n  \"nodeClaims\": [\n"), "two-space indentation, fields in contract order")
}

func TestPlanIsDeterministic(t *testing.T) {
	t.Parallel()
	for _, output := range []string{"table", "json", "yaml"} {
		_, a, _ := runCmd("plan", "-f", scenario("nodepool-limits"), "-o", output)
		_, b, _ := runCmd("plan", "-f", scenario("nodepool-limits"), "-o", output)
		assert.Equal(t, a, b, output)
	}
}

func TestPlanReadsFoldersAndSeveralFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	input, err := os.ReadFile(scenario("spot-over-on-demand"))
	require.NoError(t, err)
	docs := strings.Split(string(input), "\n---\n")
	require.Len(t, docs, 3)
	for i, doc := range docs[:2] {
		require.NoError(t, os.WriteFile(filepath.Join(dir, string(rune('a'+i))+".yaml"), []byte(doc), 0o644))
	}
	pod := writeFile(t, "pod.yaml", docs[2])
	_, want, _ := runCmd("plan", "-f", scenario("spot-over-on-demand"), "-o", "json")
	code, got, stderr := runCmd("plan", "-f", dir, "-f", pod, "-o", "json")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, want, got)
}

func TestPlanWarningsGoToStderr(t *testing.T) {
	path := writeFile(t, "odd.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\n---\n"+
		"apiVersion: v1\nkind: Pod\nmetadata: {name: spread}\nspec:\n  affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {a: b}}, namespaceSelector: {matchLabels: {team: x}}}]}}\n  containers: [{name: app, image: app}]\n")
	code, stdout, stderr := runCmd("plan", "-f", path)
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stdout, "warning")
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		assert.True(t, strings.HasPrefix(line, "warning: "), line)
	}
	assert.Contains(t, stderr, "warning: "+path+": ConfigMap/settings: skipped")
	assert.Contains(t, stderr, "warning: no NodePool given")
	assert.Contains(t, stderr, "warning: pod default/spread: namespaceSelector team=x needs Namespace objects")
}

func TestPlanRegionAndZones(t *testing.T) {
	code, stdout, stderr := runCmd("plan", "-f", scenario("spot-over-on-demand"), "--zones", "us-east-1c", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var r scheduling.Result
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	require.Len(t, r.NodeClaims, 1)
	assert.Equal(t, "us-east-1c", r.NodeClaims[0].Zone)
}

func TestPlanIgnorePreferences(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "prefers.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: picky}\nspec:\n"+
		"  affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 1, preference: {matchExpressions: [{key: node.kubernetes.io/instance-type, operator: In, values: [m5.24xlarge]}]}}]}}\n"+
		"  containers: [{name: app, image: app, resources: {requests: {cpu: 100m}}}]\n")
	for _, tt := range []struct {
		args []string
		want string
	}{{nil, "m5.24xlarge"}, {[]string{"--ignore-preferences"}, ""}} {
		code, stdout, stderr := runCmd(append([]string{"plan", "-f", path, "-o", "json"}, tt.args...)...)
		require.Equal(t, 0, code, stderr)
		var r scheduling.Result
		require.NoError(t, json.Unmarshal([]byte(stdout), &r))
		require.Len(t, r.NodeClaims, 1)
		if tt.want != "" {
			assert.Equal(t, tt.want, r.NodeClaims[0].InstanceType)
		} else {
			assert.NotEqual(t, "m5.24xlarge", r.NodeClaims[0].InstanceType)
		}
	}
}

func TestPlanRejectsAnUnknownMinValuesPolicy(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"plan", "--min-values-policy", "Sometimes"}, nil, &stdout, &stderr)
	if code != 2 || !strings.Contains(stderr.String(), `--min-values-policy "Sometimes": want Strict or BestEffort`) {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

// --optimize prints a cheaper plan that schedules at least as many pods,
// says on stderr how the NodePools were narrowed, and keeps the bound
// below it.
func TestPlanOptimize(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "awkward.yaml")
	require.NoError(t, os.WriteFile(file, []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: awkward}
spec:
  replicas: 500
  selector: {matchLabels: {app: awkward}}
  template:
    metadata: {labels: {app: awkward}}
    spec:
      containers: [{name: app, image: nginx, resources: {requests: {cpu: 3500m, memory: 3Gi}}}]
`), 0o644))
	type plan struct {
		Summary struct {
			ScheduledPods     int     `json:"scheduledPods"`
			PricePerHour      float64 `json:"pricePerHour"`
			LowerBoundPerHour float64 `json:"lowerBoundPerHour"`
		} `json:"summary"`
		Optimization *struct {
			KarpenterPerHour float64 `json:"karpenterPerHour"`
			SavingPerHour    float64 `json:"savingPerHour"`
		} `json:"optimization"`
	}
	var karpenter, optimized plan
	code, stdout, stderr := runCmd("plan", "-f", file, "-o", "json")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &karpenter))
	require.Nil(t, karpenter.Optimization)
	code, stdout, stderr = runCmd("plan", "-f", file, "-o", "json", "--optimize")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, json.Unmarshal([]byte(stdout), &optimized))
	require.NotNil(t, optimized.Optimization, stderr)
	assert.Contains(t, stderr, "optimize: NodePool default narrowed to")
	assert.GreaterOrEqual(t, optimized.Summary.ScheduledPods, karpenter.Summary.ScheduledPods)
	assert.Less(t, optimized.Summary.PricePerHour, karpenter.Summary.PricePerHour)
	assert.InDelta(t, karpenter.Summary.PricePerHour, optimized.Optimization.KarpenterPerHour, 1e-4)
	assert.Positive(t, optimized.Optimization.SavingPerHour)
	assert.LessOrEqual(t, optimized.Summary.LowerBoundPerHour, optimized.Summary.PricePerHour)
}
