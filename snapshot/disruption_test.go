package snapshot

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/consolidation"
	"github.com/karpsim/karpsim/drift"
)

// disruptionNode is a Node launched by a NodeClaim of the general pool;
// extra is added under the node's metadata, claimExtra under the claim's.
func disruptionNode(name, ready, extra, claimExtra string) []string {
	return []string{`apiVersion: v1
kind: Node
metadata:
  name: ` + name + `
  creationTimestamp: "2026-03-01T08:00:00Z"
` + extra + `  labels:
    karpenter.sh/nodepool: general
    karpenter.sh/initialized: "true"
    node.kubernetes.io/instance-type: m5.large
    karpenter.k8s.aws/instance-category: m
    karpenter.sh/capacity-type: on-demand
    topology.kubernetes.io/zone: us-east-1a
spec:
  providerID: aws:///us-east-1a/i-` + name + `
status:
  allocatable: {cpu: 1930m, memory: 6903Mi, pods: "29"}
  conditions: [{type: Ready, status: "` + ready + `", lastHeartbeatTime: "2026-03-03T12:00:00Z"}]
`, `apiVersion: karpenter.sh/v1
kind: NodeClaim
metadata:
  name: claim-` + name + `
  creationTimestamp: "2026-03-01T08:00:00Z"
` + claimExtra + `  labels:
    karpenter.sh/nodepool: general
    node.kubernetes.io/instance-type: m5.large
    karpenter.k8s.aws/instance-category: m
    karpenter.sh/capacity-type: on-demand
    topology.kubernetes.io/zone: us-east-1a
spec:
  nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: general}
  requirements: []
status:
  providerID: aws:///us-east-1a/i-` + name + `
  lastPodEventTime: "2026-03-03T09:00:00Z"
  conditions:
    - {type: Initialized, status: "True", reason: Initialized, lastTransitionTime: "2026-03-01T08:03:00Z"}
`}
}

func disruptionSet(t *testing.T) []string {
	docs := []string{nodeClassYAML, nodePoolYAML}
	docs = append(docs, disruptionNode("a", "True", "  annotations: {karpenter.sh/do-not-disrupt: \"true\"}\n", "")...)
	docs = append(docs, disruptionNode("b", "True", "  deletionTimestamp: \"2026-03-03T11:00:00Z\"\n  finalizers: [karpenter.sh/termination]\n", "")...)
	docs = append(docs, disruptionNode("c", "Unknown", "", "  annotations: {karpenter.sh/nodepool-hash: \"1\", karpenter.sh/nodepool-hash-version: v3}\n")...)
	return append(docs,
		podYAML("on-a", "  nodeName: a\n"),
		podYAML("on-b", "  nodeName: b\n"),
		podYAML("pending", ""),
		`apiVersion: v1
kind: Pod
metadata:
  name: db-0
  deletionTimestamp: "2026-03-03T11:59:00Z"
  ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: db, uid: db}]
spec:
  nodeName: a
  containers: [{name: app, image: app}]
`)
}

func TestForDisruption(t *testing.T) {
	now := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	set := decode(t, disruptionSet(t)...)
	d, err := ForDisruption(set, Options{}, now)
	require.NoError(t, err)
	c := d.Cluster
	require.Len(t, c.Nodes, 3)
	byName := map[string]*consolidation.Node{}
	for _, n := range c.Nodes {
		byName[n.Node.Name] = n
		require.NotNil(t, n.NodeClaim, n.Node.Name)
		assert.Equal(t, "claim-"+n.Node.Name, n.NodeClaim.Name, "matched by providerID")
		assert.Equal(t, time.Date(2026, 3, 1, 8, 3, 0, 0, time.UTC), n.InitializedAt, "the Initialized condition's time")
		assert.Equal(t, time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC), n.LastPodEventAt)
	}
	a, b, cNode := byName["a"], byName["b"], byName["c"]
	assert.Equal(t, "true", a.Annotations["karpenter.sh/do-not-disrupt"])
	assert.Equal(t, []string{"default/db-0", "default/on-a"}, names(a.Node.Pods), "terminating pods stay on their node")
	assert.False(t, a.Deleting || a.NotReady)
	assert.True(t, b.Deleting, "deleting nodes are kept")
	assert.Equal(t, []string{"default/on-b"}, names(b.Node.Pods), "their pods go back to them")
	assert.Equal(t, []string{"default/pending"}, names(c.Pending))
	assert.True(t, cNode.NotReady)
	require.NotNil(t, cNode.Drift)
	assert.Equal(t, string(drift.NodePoolDrifted), cNode.Drift.Reason)
	assert.Equal(t, now, cNode.Drift.Since, "no Drifted condition: since now")
	assert.Nil(t, a.Drift, "no hash annotations: not drifted")
	require.Len(t, c.NodePools, 1)
	assert.Equal(t, "general", c.NodePools[0].NodePool.Name)
	assert.NotEmpty(t, c.NodePools[0].InstanceTypes)
	assert.Empty(t, d.Expired)

	decision := consolidation.Evaluate(c, now, consolidation.Options{})
	for _, v := range decision.Candidates {
		switch v.Node {
		case "a":
			assert.Contains(t, v.Reason, "do-not-disrupt")
		case "b":
			assert.Equal(t, "being deleted", v.Reason)
		}
	}
}

func TestForDisruptionExpired(t *testing.T) {
	set := decode(t, append([]string{nodeClassYAML, nodePoolYAML}, disruptionNode("a", "True", "", "")...)...)
	d, err := ForDisruption(set, Options{}, time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	assert.Equal(t, []Expired{{NodeClaim: "claim-a", Node: "a", NodePool: "general", ExpiredAt: time.Date(2026, 3, 31, 8, 0, 0, 0, time.UTC)}}, d.Expired)
	d, err = ForDisruption(set, Options{}, time.Date(2026, 3, 31, 7, 59, 59, 0, time.UTC))
	require.NoError(t, err)
	assert.Empty(t, d.Expired)
}

func TestForDisruptionLeavesTheSetAlone(t *testing.T) {
	set, pristine := decode(t, disruptionSet(t)...), decode(t, disruptionSet(t)...)
	d, err := ForDisruption(set, Options{}, time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	for _, n := range d.Cluster.Nodes {
		n.NodeClaim.Labels["changed"] = "yes"
		n.Node.Labels["changed"] = "yes"
		for _, p := range n.Node.Pods {
			p.Labels = map[string]string{"changed": "yes"}
		}
	}
	d.Cluster.NodePools[0].NodePool.Name = "changed"
	sv, pv := reflect.ValueOf(set).Elem(), reflect.ValueOf(pristine).Elem()
	for i := range sv.NumField() {
		if sv.Type().Field(i).IsExported() {
			assert.True(t, reflect.DeepEqual(sv.Field(i).Interface(), pv.Field(i).Interface()), "Set.%s changed", sv.Type().Field(i).Name)
		}
	}
}

func TestForDisruptionErrors(t *testing.T) {
	_, err := ForDisruption(nil, Options{}, time.Time{})
	require.Error(t, err)
	_, err = ForDisruption(decode(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec:\n  nodeName: a\n  containers: [{name: app, image: app, resources: {requests: {cpu: \"-1\"}}}]\n"), Options{}, time.Time{})
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "Pod/bad"), err.Error())
}

func TestLatestTime(t *testing.T) {
	assert.True(t, LatestTime(decode(t, podYAML("p", ""))).IsZero())
	set := decode(t, disruptionSet(t)...)
	assert.Equal(t, time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC), LatestTime(set), "the nodes' heartbeats")
}
