package snapshot_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/karpsim/karpsim/manifests"
	"github.com/karpsim/karpsim/scheduling"
	"github.com/karpsim/karpsim/snapshot"
)

// A pending pod whose ResourceClaim does not exist yet is reported
// unschedulable with why, as Karpenter leaves it pending until the claim
// exists, and the other pods are planned as before; a running pod whose
// claim is gone stays on its node. Neither is an input error.
func TestPodsWithMissingClaimsAreDeferred(t *testing.T) {
	base, err := os.ReadFile("../testdata/plan/dra-gpu/input.yaml")
	require.NoError(t, err)
	extra := `
---
apiVersion: v1
kind: Pod
metadata: {name: late, namespace: ml}
spec:
  tolerations:
    - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
  resourceClaims:
    - {name: gpu, resourceClaimName: not-created-yet}
  containers:
    - name: trainer
      image: ml/trainer:1
      resources:
        requests: {cpu: "1", memory: 1Gi}
        claims: [{name: gpu}]
`
	without, err := manifests.Decode("dra.yaml", base)
	require.NoError(t, err)
	with, err := manifests.Decode("dra.yaml", append(append([]byte{}, base...), extra...))
	require.NoError(t, err)
	plan := func(set *manifests.Set) (scheduling.Result, []string) {
		snap, err := snapshot.FromSet(set, snapshot.Options{DRA: true})
		require.NoError(t, err)
		return scheduling.Solve(snap.Input(scheduling.Options{})), snap.Warnings
	}
	want, _ := plan(without)
	got, warnings := plan(with)
	require.Equal(t, want.NodeClaims, got.NodeClaims, "the other pods are planned as before")
	var reason string
	for _, u := range got.Unschedulable {
		if u.Pod == "ml/late" {
			reason = u.Reason
		}
	}
	require.Contains(t, reason, "ResourceClaim ml/not-created-yet does not exist")
	require.True(t, strings.Contains(strings.Join(warnings, "\n"), "Pod/ml/late"), "warnings: %v", warnings)
}
