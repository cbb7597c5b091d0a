package scheduling

import (
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/karpsim/karpsim/apis"
)

// zoneMinValuesPool asks for three zones; the fake types are sold in all
// three.
func zoneMinValuesPool() *apis.NodePool {
	np := newPool("zones")
	np.Spec.Template.Spec.Requirements = append(np.Spec.Template.Spec.Requirements, apis.NodeSelectorRequirementWithMinValues{
		Key: apis.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"test-zone-1", "test-zone-2", "test-zone-3"}, MinValues: new(3)})
	return np
}

// A pod that narrows the claim to one zone leaves one zone to count: the
// types' other zones are not values the claim allows (Karpenter v1.15.0).
func TestMinValuesCountsOnlyAllowedValues(t *testing.T) {
	p := newPod("p", "1", "1Gi", withNodeSelector(apis.LabelTopologyZone, "test-zone-1"))
	in := Input{Pods: []*corev1.Pod{p}, NodePools: []Pool{pool(zoneMinValuesPool())}}

	strict := Solve(in)
	require.Empty(t, strict.NodeClaims)
	require.Len(t, strict.Unschedulable, 1)
	require.Contains(t, strict.Unschedulable[0].Reason, "minValues: topology.kubernetes.io/zone needs 3 distinct values, the instance types left have 1")

	in.Options.MinValuesBestEffort = true
	relaxed := Solve(in)
	require.Len(t, relaxed.NodeClaims, 1, "%v", relaxed.Unschedulable)
	require.Equal(t, "test-zone-1", relaxed.NodeClaims[0].Zone)
	require.Equal(t, map[string]int{apis.LabelTopologyZone: 1}, relaxed.NodeClaims[0].MinValuesRelaxed)

	// Without the narrowing pod the three zones count.
	in.Options.MinValuesBestEffort = false
	in.Pods = []*corev1.Pod{newPod("q", "1", "1Gi")}
	open := Solve(in)
	require.Len(t, open.NodeClaims, 1, "%v", open.Unschedulable)
	require.Nil(t, open.NodeClaims[0].MinValuesRelaxed)
}
