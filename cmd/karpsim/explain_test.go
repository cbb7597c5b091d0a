package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/scheduling"
)

func TestExplainAPodOnANewClaim(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd("plan", "-f", scenario("gpu"), "--explain", "ml/inference")
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{
		"Pod ml/inference\n",
		"requests:     cpu=2, memory=8Gi, nvidia.com/gpu=1, pods=1\n",
		"tolerations:  nvidia.com/gpu:NoSchedule\n",
		"outcome:      placed on new NodeClaim gpu-1 (gpu, on-demand g4dn.xlarge in us-east-1a, $0.5260/hour)\n",
		"Attempt 1 (as written)\n",
		"NodePools (weight, then name descending):\n",
		"gpu      accepted\n",
		"general  not tried: an earlier option took the pod\n",
	} {
		assert.Contains(t, stdout, want)
	}
}

func TestExplainAnUnschedulablePodNamesEveryRefusal(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCmd("plan", "-f", scenario("gpu"), "--explain", "ml/notebook")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "outcome:      unschedulable: ")
	assert.Contains(t, stdout, "gpu      refused: did not tolerate taint nvidia.com/gpu:NoSchedule\n")
	assert.Contains(t, stdout, "general  refused: no instance type satisfied resources")
	assert.Contains(t, stdout, "tolerations:  none\n")
}

func TestExplainExistingNodesAndDefaultNamespace(t *testing.T) {
	code, stdout, stderr := runCmd("plan", "-f", scenario("fits-existing-node"), "--explain", "shop/worker")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "outcome:      bound to existing node ip-10-0-1-17.ec2.internal\n")
	assert.Contains(t, stdout, "existing nodes (initialized first, then by name):\n    ip-10-0-1-17.ec2.internal  accepted\n")
	assert.Contains(t, stdout, "general  not tried")

	code, stdout, stderr = runCmd("plan", "-f", scenario("spot-over-on-demand"), "--explain", "batch-worker")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, "Pod default/batch-worker\n")
}

func TestExplainAPodRefusedUpFront(t *testing.T) {
	code, stdout, stderr := runCmd("plan", "-f", scenario("restricted-label"), "--explain", "pinned")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stdout, `outcome:      unschedulable: selects on restricted label "kubernetes.io/hostname"`)
	assert.Contains(t, stdout, "No attempt: the pod was refused before any node or NodePool was tried.")
}

func TestExplainAsJSON(t *testing.T) {
	code, stdout, stderr := runCmd("plan", "-f", scenario("custom-label-selector"), "--explain", "finance/ledger-export", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var e scheduling.Explanation
	require.NoError(t, json.Unmarshal([]byte(stdout), &e))
	assert.Equal(t, "finance/ledger-export", e.Pod)
	require.NotEmpty(t, e.Attempts)
	var pools []string
	for _, v := range e.Attempts[0].NodePools {
		pools = append(pools, v.Name)
		assert.False(t, v.Accepted)
		assert.Contains(t, v.Reason, "team In [finance]")
	}
	assert.Equal(t, []string{"web", "ml"}, pools)
}

func TestExplainABoundPod(t *testing.T) {
	code, _, stderr := runCmd("plan", "-f", scenario("fits-existing-node"), "--explain", "shop/api-0")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "the pod is bound to node ip-10-0-1-17.ec2.internal already")
}

func TestFormatTolerations(t *testing.T) {
	assert.Equal(t, "none", formatTolerations(nil))
	assert.Equal(t, "*, dedicated=db:NoSchedule, gpu:NoExecute", formatTolerations([]corev1.Toleration{
		{Operator: corev1.TolerationOpExists},
		{Key: "dedicated", Value: "db", Effect: corev1.TaintEffectNoSchedule},
		{Key: "gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
	}))
	assert.Equal(t, "cpu=1, pods=1", formatRequests(map[string]string{"pods": "1", "cpu": "1"}))
	assert.Equal(t, "default/web", podKeyOf("web"))
	assert.Equal(t, "kube-system/dns", podKeyOf("kube-system/dns"))
	assert.True(t, strings.HasPrefix(relaxations(2), "2 preferences"))
}
