package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/apis"
	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/instancetypes"
	"github.com/karpsim/karpsim/resources"
)

// Karpenter v1.15's disruption inputs through `karpsim disrupt`: the
// karpenter.sh/disruption-cost annotation, --feature-gates
// PodDeletionCostManagement, the NodeClaim's Rebooting condition and the
// Unhealthy budget reason.

func TestParseFeatureGates(t *testing.T) {
	for _, s := range []string{"", "PodDeletionCostManagement=false", " SpotToSpotConsolidation = false ,"} {
		g, err := parseFeatureGates(s)
		require.NoError(t, err, s)
		assert.Equal(t, coreFeatureGates{}, g, s)
	}
	g, err := parseFeatureGates("PodDeletionCostManagement=true,SpotToSpotConsolidation=true,TerminateFirstDrift=true")
	require.NoError(t, err)
	assert.Equal(t, coreFeatureGates{podDeletionCostManagement: true, spotToSpot: true, terminateFirstDrift: true}, g)
	var o consolidation.Options
	require.NoError(t, g.apply(&o, "", awsFeatureGates{}))
	assert.Equal(t, consolidation.Options{PodDeletionCostManagement: true, SpotToSpotConsolidation: true, TerminateFirstDrift: true}, o)
	for _, s := range []string{"PodDeletionCostManagement", "PodDeletionCostManagement=maybe", "LegacyNodeRepair=true", "NodeClassCEL=true"} {
		_, err := parseFeatureGates(s)
		assert.ErrorIs(t, err, errUsage, s)
	}
	code, _, stderr := runCmd("disrupt", "-f", disruptScenario("empty-node"), "--feature-gates", "LegacyNodeRepair=true")
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, `unknown gate "LegacyNodeRepair"`)
}

// disruptDeletes runs disrupt -o json on the YAML and returns the nodes its
// commands delete.
func disruptDeletes(t *testing.T, input string, args ...string) ([]string, disruptResult) {
	t.Helper()
	file := writeFile(t, "in.yaml", input)
	code, stdout, stderr := runCmd(append([]string{"disrupt", "-f", file, "-o", "json"}, args...)...)
	require.Zero(t, code, stderr)
	var r disruptResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	var out []string
	for _, c := range r.Commands {
		out = append(out, c.Delete...)
	}
	return out, r
}

// TestDisruptEvictionCostAnnotations: two m5.large each run one 0.5-CPU pod
// (do-not-disrupt-and-pdb without its blockers); consolidation deletes the
// node whose pod costs less to evict, the first by name on a tie.
func TestDisruptEvictionCostAnnotations(t *testing.T) {
	data, err := os.ReadFile(disruptScenario("do-not-disrupt-and-pdb"))
	require.NoError(t, err)
	base, _, ok := strings.Cut(string(data), "---\napiVersion: policy/v1")
	require.True(t, ok)
	const dnd = `    karpenter.sh/do-not-disrupt: "true"`
	require.Contains(t, base, dnd)
	first, second := "ip-10-0-1-10.ec2.internal", "ip-10-0-2-11.ec2.internal"

	// The first node's pod has a pod-deletion-cost: the second goes,
	// unless Karpenter manages pod-deletion-cost itself.
	withPDC := strings.Replace(base, dnd, `    controller.kubernetes.io/pod-deletion-cost: "1000000"`, 1)
	deleted, _ := disruptDeletes(t, withPDC)
	assert.Equal(t, []string{second}, deleted)
	deleted, _ = disruptDeletes(t, withPDC, "--feature-gates", "PodDeletionCostManagement=true")
	assert.Equal(t, []string{first}, deleted)

	// The second node's pod has a higher disruption-cost: the first goes,
	// with the gate on or off.
	withBoth := strings.Replace(withPDC, "  labels: {app: ledger}", "  annotations: {karpenter.sh/disruption-cost: \"2000000\"}\n  labels: {app: ledger}", 1)
	deleted, _ = disruptDeletes(t, withBoth)
	assert.Equal(t, []string{first}, deleted)
	deleted, _ = disruptDeletes(t, withBoth, "--feature-gates", "PodDeletionCostManagement=true")
	assert.Equal(t, []string{first}, deleted)
}

// TestDisruptRebootingNode: in budget-notready-deleting one NotReady and one
// deleting node use two of the budget's three disruptions; a third node
// whose NodeClaim is rebooting uses the last one, and is no candidate.
func TestDisruptRebootingNode(t *testing.T) {
	data, err := os.ReadFile(disruptScenario("budget-notready-deleting"))
	require.NoError(t, err)
	input := string(data)
	at := strings.Index(input, "name: default-g5h6j")
	require.Positive(t, at)
	const initialized = `    - {type: Initialized, status: "True", reason: Initialized, lastTransitionTime: "2026-03-02T08:03:00Z"}` + "\n"
	i := strings.Index(input[at:], initialized)
	require.Positive(t, i)
	cut := at + i + len(initialized)
	rebooting := input[:cut] + `    - {type: Rebooting, status: "True", reason: RebootRequested, message: rebooting, lastTransitionTime: "2026-03-03T11:59:00Z"}` + "\n" + input[cut:]

	deleted, _ := disruptDeletes(t, input)
	assert.Equal(t, []string{"ip-10-0-1-13.ec2.internal"}, deleted, "the scenario as it is")
	deleted, r := disruptDeletes(t, rebooting)
	assert.Empty(t, deleted)
	for _, v := range r.Candidates {
		switch v.Node {
		case "ip-10-0-3-12.ec2.internal":
			assert.Equal(t, "being rebooted (its NodeClaim's Rebooting condition is True)", v.Reason)
		case "ip-10-0-1-13.ec2.internal", "ip-10-0-2-14.ec2.internal":
			assert.Contains(t, v.Reason, "3 already disrupting", v.Node)
		}
	}

	// A budget for Unhealthy alone is accepted and paces nothing karpsim runs.
	unhealthy := strings.Replace(input, `      - {nodes: "3"}`, `      - {nodes: "3"}`+"\n"+`      - {nodes: "0", reasons: [Unhealthy]}`, 1)
	require.NotEqual(t, input, unhealthy)
	deleted, _ = disruptDeletes(t, unhealthy)
	assert.Equal(t, []string{"ip-10-0-1-13.ec2.internal"}, deleted)
}

// terminateFirstInput is a drifted m5.large launched into capacity
// reservation cr-0123456789abcdef0, whose one unit it holds, in a NodePool
// allowing only reserved capacity; the catalog (written beside it) lists
// the reservation as available with no unit left.
func terminateFirstInput(t *testing.T) (input, catalog string) {
	t.Helper()
	it, err := instancetypes.NewInstanceType(instancetypes.Spec{
		Name:     "m5.large",
		Labels:   map[string]string{apis.LabelArch: "amd64", apis.LabelOS: "linux"},
		Capacity: resources.New(2000, 8<<30, 29),
		Offerings: []instancetypes.Offering{
			{Zone: "us-east-1a", CapacityType: apis.CapacityTypeOnDemand, Price: 0.096, Available: true},
			{Zone: "us-east-1a", CapacityType: apis.CapacityTypeReserved, Price: 0.0000000096, Available: true,
				ReservationID: "cr-0123456789abcdef0", ReservationType: apis.CapacityReservationTypeDefault},
		},
	})
	require.NoError(t, err)
	c, err := instancetypes.NewCatalog(it)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, instancetypes.WriteJSON(&buf, c))
	catalog = writeFile(t, "catalog.json", buf.String())
	labels := `    karpenter.sh/nodepool: default
    karpenter.sh/capacity-type: reserved
    karpenter.k8s.aws/capacity-reservation-id: cr-0123456789abcdef0
    karpenter.k8s.aws/capacity-reservation-type: default
    node.kubernetes.io/instance-type: m5.large
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    topology.kubernetes.io/zone: us-east-1a
`
	input = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: my-cluster}}]
  role: KarpenterNodeRole-my-cluster
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: default}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
        - {key: karpenter.sh/capacity-type, operator: In, values: [reserved]}
  disruption: {consolidateAfter: 1h, budgets: [{nodes: "100%"}]}
---
apiVersion: v1
kind: Node
metadata:
  name: ip-10-0-1-10.ec2.internal
  creationTimestamp: "2026-03-02T08:00:00Z"
  labels:
` + labels + `    karpenter.sh/initialized: "true"
    karpenter.sh/registered: "true"
    kubernetes.io/hostname: ip-10-0-1-10.ec2.internal
spec:
  providerID: aws:///us-east-1a/i-0000000000abc000
status:
  capacity: {cpu: "2", memory: 8Gi, pods: "29"}
  allocatable: {cpu: 1930m, memory: 7Gi, pods: "29"}
  conditions:
    - {type: Ready, status: "True", lastHeartbeatTime: "2026-03-03T12:00:00Z", lastTransitionTime: "2026-03-02T08:00:00Z"}
---
apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: default-a1b2c
  creationTimestamp: "2026-03-02T08:00:00Z"
  annotations: {karpenter.sh/nodepool-hash: "1", karpenter.sh/nodepool-hash-version: v3}
  labels:
` + labels + `spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
  requirements:
    - {key: node.kubernetes.io/instance-type, operator: In, values: [m5.large]}
status:
  nodeName: ip-10-0-1-10.ec2.internal
  providerID: aws:///us-east-1a/i-0000000000abc000
  lastPodEventTime: "2026-03-03T09:00:00Z"
  conditions:
    - {type: Launched, status: "True", reason: Launched, lastTransitionTime: "2026-03-02T08:01:00Z"}
    - {type: Initialized, status: "True", reason: Initialized, lastTransitionTime: "2026-03-02T08:03:00Z"}
    - {type: Drifted, status: "True", reason: NodePoolDrifted, lastTransitionTime: "2026-03-03T10:00:00Z"}
---
apiVersion: v1
kind: Pod
metadata:
  name: api-0
  namespace: shop
  creationTimestamp: "2026-03-03T09:00:00Z"
  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: api, uid: api-uid, controller: true}]
spec:
  nodeName: ip-10-0-1-10.ec2.internal
  containers: [{name: app, image: app, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
status: {phase: Running}
`
	return input, catalog
}

// TestDisruptTerminateFirstDrift: the drifted node's pod has nowhere to go
// while its reservation is full, so drift is blocked; with
// --feature-gates TerminateFirstDrift=true the node is deleted first, from
// the files and from a cluster holding the same objects alike.
func TestDisruptTerminateFirstDrift(t *testing.T) {
	input, catalog := terminateFirstInput(t)
	deleted, r := disruptDeletes(t, input, "--catalog", catalog)
	assert.Empty(t, deleted)
	require.Len(t, r.Candidates, 1)
	assert.Contains(t, r.Candidates[0].Reason, "every capacity reservation these instance types could launch into is full")

	deleted, r = disruptDeletes(t, input, "--catalog", catalog, "--feature-gates", "TerminateFirstDrift=true")
	assert.Equal(t, []string{"ip-10-0-1-10.ec2.internal"}, deleted)
	require.Len(t, r.Commands, 1)
	assert.Equal(t, consolidation.MethodDrift, r.Commands[0].Method)
	assert.Empty(t, r.Commands[0].Replacements)
	assert.True(t, r.Commands[0].TerminateFirst)
	assert.Contains(t, r.Commands[0].Reason, "terminate first (reservation cr-0123456789abcdef0 is full")

	file := writeFile(t, "cluster.yaml", input)
	env, f := fakeCluster(t, file)
	args := []string{"--at", "2026-03-03T12:00:00Z", "--catalog", catalog, "--feature-gates", "TerminateFirstDrift=true", "-o", "json"}
	code, want, stderr := runCmd(append([]string{"disrupt", "-f", file}, args...)...)
	require.Zero(t, code, stderr)
	code, got, stderr := runEnv(env, append([]string{"disrupt", "--context", "fake"}, args...)...)
	require.Zero(t, code, stderr)
	assert.Equal(t, want, got)
	noWrites(t, f)
}
